import Crypto
import Foundation
import _CryptoExtras
import HealthModel

/// Where a PostgreSQL store lives: a `postgres://` URL as `serve --store` and `store copy --to` take it.
///
/// `postgres://user:password@host:5432/database?schema=healthbridge&sslmode=disable` — every part but the host is
/// optional (port 5432, user `postgres`, database named after the user, schema `healthbridge`). `schema` keeps one
/// store's tables apart from another's in the same database (the tests give each test a schema of its own);
/// `sslmode` is `disable` (the default on loopback), `prefer` or `require`.
///
/// ```swift
/// let configuration = try PostgresStoreConfiguration(url: "postgres://hb@127.0.0.1:5432/health?schema=t1")
/// configuration.schema   // "t1"
/// ```
public struct PostgresStoreConfiguration: Sendable, Hashable {
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var schema: String
    public var tls: TLSMode
    /// How long a call waits for a connection (and a new connection for PostgreSQL's answer) before it throws
    /// `.storeUnavailable`: a database that went away is reported at once, not waited for. URL: `connect_timeout`
    /// in seconds (as libpq's).
    public var acquireTimeout: Duration = .seconds(5)
    /// The most connections the store's pool opens (the change listener has one more of its own).
    public var maximumConnections: Int = 10
    /// The person whose store this schema is (their household id, e.g. `alex-martin`); nil for the household's
    /// owner. It names the rows row-level security lets through (``personUUID``); `--person` sets it.
    public var person: String?

    public init(host: String, port: Int = 5432, username: String = "postgres", password: String? = nil,
                database: String? = nil, schema: String = "healthbridge", tls: TLSMode = .disable) {
        self.host = host; self.port = port; self.username = username; self.password = password
        self.database = database ?? username; self.schema = schema; self.tls = tls
    }

    /// Whether `string` names a PostgreSQL store (`postgres://` or `postgresql://`) rather than a path.
    public static func isPostgresURL(_ string: String) -> Bool {
        let lower = string.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses a `postgres://` URL; a clear ``HealthError`` (`.invalidArgument`) names what is wrong.
    public init(url string: String) throws {
        guard Self.isPostgresURL(string), let components = URLComponents(string: string) else {
            throw HealthError(.invalidArgument, "not a PostgreSQL URL (expected postgres://user@host:port/database)",
                              argument: "store")
        }
        guard let host = components.host, !host.isEmpty else {
            throw HealthError(.invalidArgument, "the PostgreSQL URL names no host", argument: "store")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw HealthError(.invalidArgument, "the PostgreSQL URL's port must be 1–65535", argument: "store")
        }
        let username = components.user.flatMap { $0.removingPercentEncoding ?? $0 } ?? "postgres"
        let password = components.password.flatMap { $0.removingPercentEncoding ?? $0 }
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        let query = components.queryItems ?? []
        var schema = "healthbridge"
        var tls = TLSMode.disable
        var timeout: Duration?
        for item in query {
            switch item.name {
            case "schema":
                guard let value = item.value, Self.isIdentifier(value) else {
                    throw HealthError(.invalidArgument,
                                      "schema must be a lower-case SQL identifier (letters, digits, _; at most 63)",
                                      argument: "store")
                }
                schema = value
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw HealthError(.invalidArgument, "sslmode must be disable, prefer or require", argument: "store")
                }
                tls = mode
            case "connect_timeout":
                guard let value = item.value, let seconds = Int(value), (1...600).contains(seconds) else {
                    throw HealthError(.invalidArgument, "connect_timeout must be 1–600 seconds", argument: "store")
                }
                timeout = .seconds(seconds)
            default:
                throw HealthError(.invalidArgument,
                                  "unknown PostgreSQL URL parameter '\(item.name)' (schema, sslmode, connect_timeout)",
                                  argument: "store")
            }
        }
        self.init(host: host, port: components.port ?? 5432, username: username, password: password,
                  database: path.isEmpty ? nil : (path.removingPercentEncoding ?? path), schema: schema, tls: tls)
        if let timeout { acquireTimeout = timeout }
    }

    /// The URL without the password, for logs and `status`.
    public var redactedDescription: String {
        "postgres://\(username)@\(host):\(port)/\(database)?schema=\(schema)"
    }

    /// The value of every `person_id` column of this store, and the only one its row-level security policies let
    /// through: the owner's is ``PostgresHealthStore/ownerPersonID``; another person's is derived from their id
    /// (the first 16 bytes of SHA-256 of `healthbridge.person.<id>`, marked as a version-8 UUID), so every process
    /// computes the same.
    ///
    /// ```swift
    /// var configuration = try PostgresStoreConfiguration(url: "postgres://hb@db/health?schema=healthbridge_alex")
    /// configuration.person = "alex"
    /// configuration.personUUID   // "9c6d…" (stable for "alex")
    /// ```
    public var personUUID: String {
        guard let person, !person.isEmpty, person != "owner" else { return PostgresHealthStore.ownerPersonID }
        var bytes = Array(SHA256.hash(data: Data(("healthbridge.person." + person).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8 (vendor-defined)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }

    /// The database role the store's data work runs as: a `LOGIN` role the pooled connections and the change
    /// listener sign in as (``rolePassword``), created by the connecting user when the store is first opened, with
    /// `USAGE` on this schema and the table privileges the store needs, nothing elsewhere. (A role an administrator
    /// made `NOLOGIN` by hand is taken with `SET ROLE` on the connecting user's connections instead.) Roles are cluster-wide, so the name carries a hash of the database and
    /// schema: `hb_<schema>_<8 hex>`, at most 62 bytes, a plain identifier.
    ///
    /// ```swift
    /// try PostgresStoreConfiguration(url: "postgres://hb@db/health?schema=healthbridge_alex").roleName
    /// // "hb_healthbridge_alex_1f0c2a9e"
    /// ```
    public var roleName: String {
        let digest = SHA256.hash(data: Data("\(database)\u{0}\(schema)".utf8))
        let hex = digest.prefix(4).map { String(format: "%02x", $0) }.joined()
        return "hb_" + String(schema.prefix(50)) + "_" + hex
    }

    /// The password the store's connections sign in as ``roleName`` with: HMAC-SHA256 of the role's name keyed by
    /// the connecting user's password, so every app server holding the same `postgres://` URL derives it, and none
    /// has to be stored. PostgreSQL keeps only its SCRAM-SHA-256 verifier (``scramVerifier(salt:iterations:)``);
    /// the password itself never appears in SQL. Changing the connecting user's password changes it: the next
    /// opening by a user that may create roles sets it again.
    ///
    /// ```swift
    /// configuration.rolePassword   // 64 hex digits
    /// ```
    public var rolePassword: String {
        let key = SymmetricKey(data: Data((password ?? "").utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(("healthbridge.role-password." + roleName).utf8), using: key)
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The SCRAM-SHA-256 verifier of ``rolePassword`` (RFC 5802, RFC 7677), as PostgreSQL stores it:
    /// `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`. `ALTER ROLE … PASSWORD '<verifier>'` stores it
    /// as is, so the password is never sent to the server nor written to its logs.
    public func scramVerifier(salt: [UInt8], iterations: Int = 4_096) throws -> String {
        // SaltedPassword := Hi(password, salt, i), PBKDF2-HMAC-SHA256 of the digest's 32 bytes. SCRAM's iteration
        // count is PostgreSQL's (4,096), below the library's checked minimum, hence the unchecked rounds.
        let saltedKey = try KDF.Insecure.PBKDF2.deriveKey(from: Data(rolePassword.utf8), salt: salt, using: .sha256,
                                                          outputByteCount: 32, unsafeUncheckedRounds: max(1, iterations))
        let clientKey = Array(HMAC<SHA256>.authenticationCode(for: Data("Client Key".utf8), using: saltedKey))
        let storedKey = Array(SHA256.hash(data: clientKey))
        let serverKey = Array(HMAC<SHA256>.authenticationCode(for: Data("Server Key".utf8), using: saltedKey))
        return "SCRAM-SHA-256$\(iterations):\(Data(salt).base64EncodedString())$"
            + "\(Data(storedKey).base64EncodedString()):\(Data(serverKey).base64EncodedString())"
    }

    /// A lower-case SQL identifier that needs no quoting: `[a-z_][a-z0-9_]{0,62}`.
    public static func isIdentifier(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, value.unicodeScalars.count <= 63 else { return false }
        func letter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || s == "_" }
        return letter(first) && value.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}
