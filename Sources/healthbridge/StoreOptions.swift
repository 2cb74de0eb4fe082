import ArgumentParser
import Foundation
import HealthAccess
import HealthModel
import HealthService
import HealthStore
import HealthSupport

/// Where the store is, for every command that opens it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory (default: $HEALTHBRIDGE_HOME, else XDG data home).")
    var home: String?

    func resolveHome() throws -> HealthBridgeHome {
        try HealthError.mappingPrivateFile {
            if let home {
                let resolved = HealthBridgeHome(directory: URL(fileURLWithPath: home, isDirectory: true))
                try resolved.createIfNeeded()
                return resolved
            }
            return try HealthBridgeHome.resolve()
        }
    }

    func openStore() throws -> SQLiteHealthStore {
        try SQLiteHealthStore(location: .file(resolveHome().storeURL), logger: CLILog.logger)
    }

    /// The service, acting for the owner (the person at this machine's command line), on the data directory's
    /// access state (pairing, clients, sharing, tokens, audit log), reporting writes and deletes to its audit log.
    func openService() async throws -> HealthService {
        let home = try resolveHome()
        let store = try SQLiteHealthStore(location: .file(home.storeURL), logger: CLILog.logger)
        return try await HealthService.open(store: store, access: try AccessStore.open(home: home.directory),
                                            logger: CLILog.logger)
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
