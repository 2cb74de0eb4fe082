import Foundation
import HealthBridgeTesting
import HealthModel
import HealthStore
@testable import HealthStorePostgres
import Logging
import PostgresNIO
import Testing

/// The second wall between people on PostgreSQL: two people A and B on one database, each with a schema and a role
/// of their own; a connection working as A's role (as A's store does) cannot read or write B's rows, whatever SQL
/// a bug above it sends.
@Suite(.enabled(if: PostgresTesting.enabled), .serialized)
struct PostgresRowSecurityTests {
    /// Runs `body` with the stores of two people on one database (schemas `<t>_a` and `<t>_b`), each holding
    /// samples, closed and dropped (schemas and roles) afterwards.
    func withTwoPeople(_ body: (PostgresStoreConfiguration, PostgresStoreConfiguration) async throws -> Void) async throws {
        try await PostgresTesting.withSchema { base in
            var a = base, b = base
            a.schema = base.schema + "_a"; a.person = "alex"
            b.schema = base.schema + "_b"; b.person = "blake"
            do {
                let storeA = try await PostgresHealthStore(configuration: a, logger: PostgresTesting.logger)
                let storeB = try await PostgresHealthStore(configuration: b, logger: PostgresTesting.logger)
                try await storeA.save([pgSteps(0, 11), pgSteps(60, 12)])
                try await storeB.save([pgSteps(0, 901), pgSteps(60, 902), pgSteps(120, 903)])
                await storeA.close()
                await storeB.close()
                try await body(a, b)
            } catch {
                try? await PostgresHealthStore.dropSchema(configuration: a, logger: PostgresTesting.logger)
                try? await PostgresHealthStore.dropSchema(configuration: b, logger: PostgresTesting.logger)
                throw error
            }
            try await PostgresHealthStore.dropSchema(configuration: a, logger: PostgresTesting.logger)
            try await PostgresHealthStore.dropSchema(configuration: b, logger: PostgresTesting.logger)
        }
    }

    /// A connection of the test's own working as `configuration`'s role (`SET ROLE` at the start, as the store's).
    func connectAsRole(of configuration: PostgresStoreConfiguration) async throws -> PostgresConnection {
        var options = PostgresConnection.Configuration(host: configuration.host, port: configuration.port,
                                                       username: configuration.username, password: configuration.password,
                                                       database: configuration.database, tls: .disable)
        options.options.additionalStartupParameters = [("search_path", configuration.schema),
                                                       ("role", configuration.roleName)]
        return try await PostgresConnection.connect(configuration: options, id: 7, logger: PostgresTesting.logger)
    }

    /// The SQLSTATE a statement fails with, nil when it succeeds.
    func failure(_ connection: PostgresConnection, _ sql: String) async -> String? {
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresTesting.logger)
            for try await _ in rows {}
            return nil
        } catch let error as PSQLError {
            return error.serverInfo?[.sqlState] ?? "no state"
        } catch {
            return "\(type(of: error))"
        }
    }

    func strings(_ connection: PostgresConnection, _ sql: String) async throws -> [String] {
        var values: [String] = []
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresTesting.logger)
        for try await value in rows.decode(String.self) { values.append(value) }
        return values
    }

    @Test func personRoleIsNotPrivilegedAndEveryTableIsUnderForcedRowSecurity() async throws {
        try await withTwoPeople { a, b in
            let role = try await PostgresTesting.admin(a, """
                SELECT concat_ws(',', rolcanlogin, rolsuper, rolbypassrls, rolcreaterole, rolinherit)
                FROM pg_roles WHERE rolname = '\(a.roleName)'
                """)
            #expect(role == ["t,f,f,f,t"])  // LOGIN (the store signs in as it), not superuser, no BYPASSRLS, no CREATEROLE
            let tables = try await PostgresTesting.admin(a, """
                SELECT c.relname || ':' || c.relrowsecurity || ':' || c.relforcerowsecurity
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = '\(a.schema)' AND c.relkind = 'r' AND c.relname <> 'schema_migrations'
                ORDER BY 1
                """)
            #expect(tables.count == 13)
            #expect(tables.allSatisfy { $0.hasSuffix(":true:true") })
            let policies = try await PostgresTesting.admin(a, """
                SELECT count(*)::text FROM pg_policies WHERE schemaname = '\(a.schema)' AND policyname = 'person_rows'
                  AND qual LIKE '%\(a.personUUID)%' AND with_check LIKE '%\(a.personUUID)%'
                """)
            #expect(policies == ["13"])
            let crossing = try await PostgresTesting.admin(a, """
                SELECT has_schema_privilege('\(a.roleName)', '\(b.schema)', 'USAGE')::text
                    || has_schema_privilege('\(a.roleName)', '\(a.schema)', 'USAGE')::text
                    || has_table_privilege('\(a.roleName)', '\(a.schema).schema_migrations', 'INSERT')::text
                    || has_schema_privilege('public', '\(a.schema)', 'USAGE')::text
                """.replacingOccurrences(of: "'public'", with: "'\(b.roleName)'"))
            #expect(crossing == ["falsetruefalsefalse"])
            // Every row of each store is its own person's.
            let owners = try await PostgresTesting.admin(a, """
                SELECT DISTINCT person_id::text FROM \(a.schema).samples
                UNION SELECT DISTINCT person_id::text FROM \(b.schema).samples ORDER BY 1
                """)
            #expect(Set(owners) == [a.personUUID, b.personUUID])
            #expect(a.personUUID != b.personUUID && a.personUUID != PostgresHealthStore.ownerPersonID)
        }
    }

    /// The store's own connections sign in as the person's role: `RESET ROLE` (SQL a bug might send) leaves them the
    /// role, never the administrating user, so B's rows stay out of reach.
    @Test func theStoresConnectionsAreThePersonsRoleEvenAfterResetRole() async throws {
        try await withTwoPeople { a, b in
            let store = try await PostgresHealthStore(configuration: a, logger: PostgresTesting.logger)
            #expect(store.loginAsRole.isSet)
            let seen = try await store.withConnection { connection -> [String] in
                _ = try await connection.query("RESET ROLE", logger: PostgresTesting.logger)
                var users: [String] = []
                let rows = try await connection.query("SELECT session_user::text || ',' || current_user::text",
                                                      logger: PostgresTesting.logger)
                for try await value in rows.decode(String.self) { users.append(value) }
                return users
            }
            #expect(seen == ["\(a.roleName),\(a.roleName)"])
            await #expect(throws: HealthError.self) {
                try await store.withConnection { connection in
                    _ = try await connection.query("RESET ROLE", logger: PostgresTesting.logger)
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(b.schema).samples"),
                                                          logger: PostgresTesting.logger)
                    for try await _ in rows {}
                }
            }
            // The verifier PostgreSQL holds is SCRAM's: the password itself was never sent.
            let stored = try await PostgresTesting.admin(a, "SELECT left(rolpassword, 14) FROM pg_authid WHERE rolname = '\(a.roleName)'")
            #expect(stored == ["SCRAM-SHA-256$"])
            await store.close()
        }
    }

    /// The SCRAM-SHA-256 verifier matches one computed independently (Python's hashlib, RFC 5802's formulas) for the
    /// same password and salt.
    @Test func theRolesVerifierIsSCRAMSHA256() throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://hb:secret@db/health?schema=healthbridge_alex")
        configuration.person = "alex"
        #expect(configuration.roleName == "hb_healthbridge_alex_b6558a62")
        #expect(configuration.rolePassword == "f2a859fb916aec9d361501edb96a7011984946e4d85602fc9298dca860203d93")
        let verifier = try configuration.scramVerifier(salt: Array("0123456789abcdef".utf8), iterations: 4_096)
        // hashlib.pbkdf2_hmac("sha256", password, salt, 4096), then HMAC "Client Key"/"Server Key" and SHA-256.
        #expect(verifier == "SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$k6nn4U5qYrDsGru/1BFWXEVSZd7rG168UlRyYo/G3b8="
                + ":iztosYaBVd8maA5PFAPXEQA0iXEbNOxmb2p0d0H0eg4=")
        var other = configuration
        other.password = "another"
        #expect(other.rolePassword != configuration.rolePassword)
    }

    @Test func anotherPersonsSchemaIsRefused() async throws {
        try await withTwoPeople { a, b in
            let connection = try await connectAsRole(of: a)
            defer { Task { try? await connection.close() } }
            #expect(try await strings(connection, "SELECT current_user::text") == [a.roleName])
            #expect(try await strings(connection, "SELECT count(*)::text FROM samples") == ["2"])
            for table in ["samples", "counters", "settings", "workouts", "types", "sources", "schema_migrations"] {
                #expect(await failure(connection, "SELECT * FROM \(b.schema).\(table)") == "42501", "\(table)")
            }
            #expect(await failure(connection, "DELETE FROM \(b.schema).samples") == "42501")
            #expect(await failure(connection, "UPDATE \(b.schema).counters SET value = 0") == "42501")
            // COPY into B's schema: refused before a byte is taken.
            _ = try await strings(connection, "SELECT set_config('search_path', '\(b.schema)', false)")
            await #expect(throws: PSQLError.self) {
                try await connection.copyFrom(table: "settings", columns: ["key", "value"],
                                              logger: PostgresTesting.logger) { writer in
                    var buffer = ByteBuffer()
                    buffer.writeString("forged\tvalue\n")
                    try await writer.write(buffer)
                }
            }
            let untouched = try await PostgresTesting.admin(b, "SELECT count(*)::text FROM \(b.schema).settings WHERE key = 'forged'")
            #expect(untouched == ["0"])
        }
    }

    @Test func forgedRowsOfAnotherPersonAreInvisibleAndCannotBeWritten() async throws {
        try await withTwoPeople { a, b in
            // The administrator (a superuser bypasses row-level security) plants one of B's rows in A's table.
            _ = try await PostgresTesting.admin(a, """
                INSERT INTO \(a.schema).samples (person_id, seq, uuid, type_id, source_id, start, "end", value)
                SELECT '\(b.personUUID)', 1000, gen_random_uuid(), type_id, source_id, start, "end", 777
                FROM \(a.schema).samples LIMIT 1
                """)
            let planted = try await PostgresTesting.admin(a, "SELECT count(*)::text FROM \(a.schema).samples")
            #expect(planted == ["3"])
            let connection = try await connectAsRole(of: a)
            defer { Task { try? await connection.close() } }
            #expect(try await strings(connection, "SELECT count(*)::text FROM samples") == ["2"])
            #expect(try await strings(connection, "SELECT count(*)::text FROM samples WHERE person_id = '\(b.personUUID)' OR value = 777") == ["0"])
            // Updating or deleting the planted row does nothing: it is not there for A.
            #expect(try await strings(connection, "WITH d AS (DELETE FROM samples WHERE value = 777 RETURNING 1) SELECT count(*)::text FROM d") == ["0"])
            // Writing a row of B's into A's tables, or moving A's rows to B: the policy's WITH CHECK refuses.
            #expect(await failure(connection, """
                INSERT INTO settings (person_id, key, value) VALUES ('\(b.personUUID)', 'forged', 'x')
                """) == "42501")
            #expect(await failure(connection, "UPDATE samples SET person_id = '\(b.personUUID)'") == "42501")
            #expect(await failure(connection, "UPDATE counters SET person_id = '\(b.personUUID)'") == "42501")
            _ = try await strings(connection, "SELECT set_config('search_path', '\(a.schema)', false)")
            await #expect(throws: PSQLError.self) {
                try await connection.copyFrom(table: "settings", columns: ["person_id", "key", "value"],
                                              logger: PostgresTesting.logger) { writer in
                    var buffer = ByteBuffer()
                    buffer.writeString("\(b.personUUID)\tforged\tx\n")
                    try await writer.write(buffer)
                }
            }
            // A's own rows are still A's to write.
            #expect(await failure(connection, "INSERT INTO settings (key, value) VALUES ('mine', 'x')") == nil)
            #expect(try await strings(connection, "SELECT person_id::text FROM settings WHERE key = 'mine'") == [a.personUUID])
        }
    }

    @Test func dropSchemaRemovesThePersonsRole() async throws {
        try await withTwoPeople { a, _ in
            #expect(try await PostgresTesting.admin(a, "SELECT rolname::text FROM pg_roles WHERE rolname = '\(a.roleName)'") == [a.roleName])
            try await PostgresHealthStore.dropSchema(configuration: a, logger: PostgresTesting.logger)
            #expect(try await PostgresTesting.admin(a, "SELECT rolname::text FROM pg_roles WHERE rolname = '\(a.roleName)'").isEmpty)
            // Opening again makes both again, idempotently.
            let store = try await PostgresHealthStore(configuration: a, logger: PostgresTesting.logger)
            #expect(try await store.appliedMigrations() == [1, 2, 3])
            await store.close()
            let again = try await PostgresHealthStore(configuration: a, logger: PostgresTesting.logger)
            await again.close()
            #expect(try await PostgresTesting.admin(a, "SELECT rolname::text FROM pg_roles WHERE rolname = '\(a.roleName)'") == [a.roleName])
        }
    }

    @Test func aUserWhoMayNotCreateRolesIsToldWhatIsMissing() async throws {
        try await PostgresTesting.withSchema { base in
            let user = "hb_nocreaterole_" + String(base.schema.suffix(12))
            _ = try await PostgresTesting.admin(base, "CREATE ROLE \(user) LOGIN PASSWORD 'hb-limited-user'")
            _ = try await PostgresTesting.admin(base, "GRANT CREATE ON DATABASE \"\(base.database)\" TO \(user)")
            var limited = base
            limited.username = user
            limited.password = "hb-limited-user"
            do {
                _ = try await PostgresHealthStore(configuration: limited, logger: PostgresTesting.logger)
                Issue.record("a user without CREATEROLE opened a store without its role")
            } catch let error as HealthError {
                #expect(error.code == .storeUnavailable)
                #expect(error.message.contains("CREATEROLE") && error.message.contains(limited.roleName))
            }
            // Nothing was left behind: the transaction that would have made the schema was rolled back.
            #expect(try await PostgresTesting.admin(base, "SELECT nspname::text FROM pg_namespace WHERE nspname = '\(base.schema)'").isEmpty)
            _ = try await PostgresTesting.admin(base, "REVOKE CREATE ON DATABASE \"\(base.database)\" FROM \(user)")
            _ = try await PostgresTesting.admin(base, "DROP ROLE \(user)")
        }
    }

    /// A person's schema made before migration 2 holds rows with the owner's `person_id` (the column's old
    /// default): opening it for the person moves them to the person, so nothing is lost behind the new policy.
    @Test func aPersonsSchemaFromBeforeRowSecurityKeepsItsRows() async throws {
        try await PostgresTesting.withSchema { base in
            var configuration = base
            configuration.person = "alex"
            let schema = configuration.schema
            _ = try await PostgresTesting.admin(base, "CREATE SCHEMA \(schema)")
            _ = try await PostgresTesting.admin(base, """
                CREATE TABLE \(schema).schema_migrations (version bigint PRIMARY KEY, name text NOT NULL,
                                                          applied_at timestamptz NOT NULL DEFAULT now())
                """)
            // Migration 1 as a build before people had their own ids ran it, on a connection of the administrator's.
            var options = PostgresConnection.Configuration(host: base.host, port: base.port, username: base.username,
                                                           password: base.password, database: base.database, tls: .disable)
            options.options.additionalStartupParameters = [("search_path", schema)]
            let admin = try await PostgresConnection.connect(configuration: options, id: 8, logger: PostgresTesting.logger)
            do {
                for statement in PostgresHealthStore.migrations.first(where: { $0.version == 1 })?.statements ?? [] {
                    try await admin.query(PostgresQuery(unsafeSQL: statement), logger: PostgresTesting.logger)
                }
            } catch {
                try? await admin.close()
                throw error
            }
            try await admin.close()
            _ = try await PostgresTesting.admin(base, "INSERT INTO \(schema).schema_migrations VALUES (1, 'v1')")
            _ = try await PostgresTesting.admin(base, "INSERT INTO \(schema).settings (key, value) VALUES ('home.zone', 'Europe/Paris')")
            _ = try await PostgresTesting.admin(base, "UPDATE \(schema).counters SET value = 41")
            let store = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            #expect(try await store.appliedMigrations() == [1, 2, 3])
            #expect(try await store.setting("home.zone") == "Europe/Paris")
            try await store.save([pgSteps(0, 5)])
            #expect(try await store.currentAnchor() == 42)
            await store.close()
            let owners = try await PostgresTesting.admin(base, """
                SELECT DISTINCT person_id::text FROM \(schema).settings UNION SELECT DISTINCT person_id::text FROM \(schema).counters
                UNION SELECT DISTINCT person_id::text FROM \(schema).samples UNION SELECT DISTINCT person_id::text FROM \(schema).types
                """)
            #expect(owners == [configuration.personUUID])
            try await PostgresHealthStore.dropSchema(configuration: configuration, logger: PostgresTesting.logger)
        }
    }

    @Test func aSchemaOpenedForAnotherPersonIsRefused() async throws {
        try await withTwoPeople { a, _ in
            var wrong = a
            wrong.person = "blake"
            await #expect(throws: HealthError.self) {
                _ = try await PostgresHealthStore(configuration: wrong, logger: PostgresTesting.logger)
            }
            let store = try await PostgresHealthStore(configuration: a, logger: PostgresTesting.logger)
            #expect(try await store.samples(SampleQuery(type: "stepCount")).samples.count == 2)
            await store.close()
        }
    }

    @Test func personUUIDAndRoleNameAreStableAndSafe() throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://hb@db/health?schema=healthbridge_alex")
        #expect(configuration.personUUID == PostgresHealthStore.ownerPersonID)
        configuration.person = "alex"
        let uuid = configuration.personUUID
        #expect(UUID(uuidString: uuid) != nil && uuid == configuration.personUUID)
        configuration.person = "blake"
        #expect(configuration.personUUID != uuid)
        configuration.schema = String(repeating: "s", count: 63)
        #expect(configuration.roleName.utf8.count <= 63)
        #expect(PostgresStoreConfiguration.isIdentifier(configuration.roleName))
        var other = configuration
        other.database = "elsewhere"
        #expect(other.roleName != configuration.roleName)
    }
}
