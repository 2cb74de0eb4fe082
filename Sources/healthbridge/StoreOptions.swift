import ArgumentParser
import Foundation
import HealthAccess
import HealthModel
import HealthService
import HealthStore
import HealthStorePostgres
import HealthSupport

/// Where the store is, for every command that opens it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory (default: $HEALTHBRIDGE_HOME, else XDG data home).")
    var home: String?

    @Option(name: .customLong("store"),
            help: "The health data store: a postgres:// URL (several people, several app servers on one database), or a SQLite file (default: $HEALTHBRIDGE_STORE, else health.sqlite in the data directory).")
    var storeURL: String?

    @Option(name: .long,
            help: "The person whose data this is (default: $HEALTHBRIDGE_PERSON, else the household's owner); `healthbridge people` lists them.")
    var person: String?

    /// The household's data directory: `--home`, else the environment's.
    func resolveHouseholdHome() throws -> HealthBridgeHome {
        try HealthError.mappingPrivateFile {
            if let home {
                let resolved = HealthBridgeHome(directory: URL(fileURLWithPath: home, isDirectory: true))
                try resolved.createIfNeeded()
                return resolved
            }
            return try HealthBridgeHome.resolve()
        }
    }

    /// The person a command acts on: `--person`, else `$HEALTHBRIDGE_PERSON`, else nil (the owner).
    var personID: String? {
        if let person, !person.isEmpty { return person }
        if let env = ProcessInfo.processInfo.environment["HEALTHBRIDGE_PERSON"], !env.isEmpty { return env }
        return nil
    }

    /// The data directory of the person a command acts on: the household's for the owner, `people/<id>/` for the others.
    func resolveHome() throws -> HealthBridgeHome {
        let household = try resolveHouseholdHome()
        guard let personID else { return household }
        return try Household(home: household).home(of: personID)
    }

    /// The store a command names: `--store`, else `$HEALTHBRIDGE_STORE`, else the SQLite file of the data directory.
    var storeLocation: String? {
        if let storeURL, !storeURL.isEmpty { return storeURL }
        if let env = ProcessInfo.processInfo.environment["HEALTHBRIDGE_STORE"], !env.isEmpty { return env }
        return nil
    }

    /// Opens the named store: PostgreSQL for a `postgres://` URL, else SQLite (a path, or the data directory's file).
    func openStore() async throws -> any HealthStore {
        try await Self.openStore(storeLocation, home: resolveHome(), person: personID)
    }

    /// Opens a store by location, as `--store` and `store copy --to` take it. A person other than the owner has a
    /// store of their own: on SQLite the file of their data directory (or the path given), on PostgreSQL a schema
    /// of their own (`<schema>_<person>`), so that no table holds two people's rows.
    static func openStore(_ location: String?, home: HealthBridgeHome, person: String?) async throws -> any HealthStore {
        guard let location else {
            return try SQLiteHealthStore(location: .file(home.storeURL), logger: CLILog.logger)
        }
        if PostgresStoreConfiguration.isPostgresURL(location) {
            return try await PostgresHealthStore(configuration: try postgresConfiguration(location, person: person),
                                                 logger: CLILog.logger)
        }
        let url = URL(fileURLWithPath: (location as NSString).expandingTildeInPath)
        return try HealthError.mappingPrivateFile { try SQLiteHealthStore(location: .file(url), logger: CLILog.logger) }
    }

    /// The service, acting for the owner (the person at this machine's command line), on the data directory's
    /// access state (pairing, clients, sharing, tokens, audit log), reporting writes and deletes to its audit log.
    func openService() async throws -> HealthService {
        let home = try resolveHome()
        let store = try await Self.openStore(storeLocation, home: home, person: personID)
        return try await HealthService.open(store: store, access: try AccessStore.open(home: home.directory),
                                            logger: CLILog.logger)
    }

    /// The household of the data directory, opening each person's service (their store on the same `--store`, their
    /// access state) when first needed.
    func householdServices() throws -> HouseholdServices {
        let household = Household(home: try resolveHouseholdHome())
        // A PostgreSQL URL holds everyone (a schema each); a SQLite file given with --store is this person's only,
        // the others keep theirs in their data directories.
        let own = personID ?? Household.ownerID
        let location = storeLocation
        let shared = location.flatMap { PostgresStoreConfiguration.isPostgresURL($0) ? $0 : nil }
        return HouseholdServices(household: household) { id in
            let home = try household.home(of: id)
            let store = try await Self.openStore(id == own ? location : shared, home: home,
                                                 person: id == Household.ownerID ? nil : id)
            return try await HealthService.open(store: store, access: try AccessStore.open(home: home.directory),
                                                logger: CLILog.logger)
        }
    }
}

extension StoreOptions {
    /// A PostgreSQL URL's configuration for a person: the owner's schema as given, another person's suffixed with
    /// their id (`healthbridge_alex`), bound to that person (their role and their rows, see docs/stores.md).
    static func postgresConfiguration(_ url: String, person: String?) throws -> PostgresStoreConfiguration {
        var configuration = try PostgresStoreConfiguration(url: url)
        if let person, person != Household.ownerID {
            let schema = configuration.schema + "_" + person.replacingOccurrences(of: "-", with: "_")
            guard PostgresStoreConfiguration.isIdentifier(schema) else {
                throw HealthError(.invalidArgument, "the schema '\(configuration.schema)' with the person '\(person)' is longer than PostgreSQL's 63 characters",
                                  argument: "store")
            }
            configuration.schema = schema
            configuration.person = person  // the rows its row-level security lets through, its role's
        }
        return configuration
    }
}

/// Options shared by the reading commands: passed to the service as they were typed (it resolves them, see
/// `DateRange`).
struct RangeOptions: ParsableArguments {
    @Option(name: [.customLong("from"), .customLong("start")],
            help: "Start (--start is the same): an ISO date or instant, now, today, yesterday, or a span back from now (7d, 12h, 2w, 3mo, 1y).")
    var from: String?

    @Option(name: [.customLong("to"), .customLong("end")], help: "End (exclusive; --end is the same), in the same forms (default: now).")
    var to: String?

    @Option(help: "IANA time zone for day boundaries and the times shown (default: the store's home zone).")
    var tz: String?
}

/// `--json` for every command that prints a result: the service's result document, one JSON object; errors as
/// `{"error": {"code", "message"}}` on stderr.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON (errors too, on stderr).") var json = false
}
