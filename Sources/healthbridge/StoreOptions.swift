import ArgumentParser
import Foundation
import HealthModel
import HealthService
import HealthStore

/// Where the store is, for every command that opens it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory (default: $HEALTHBRIDGE_HOME, else XDG data home).")
    var home: String?

    func resolveHome() throws -> HealthBridgeHome {
        if let home {
            let resolved = HealthBridgeHome(directory: URL(fileURLWithPath: home, isDirectory: true))
            try resolved.createIfNeeded()
            return resolved
        }
        return try HealthBridgeHome.resolve()
    }

    func openStore() throws -> SQLiteHealthStore {
        try SQLiteHealthStore(location: .file(resolveHome().storeURL), logger: CLILog.logger)
    }

    /// The service, in the home zone or the `--tz` zone.
    func openService(timeZone: String? = nil) async throws -> HealthService {
        let store = try openStore()
        let zone = try timeZone.map { name throws(HealthError) in try DateExpression.timeZone(name) }
        return try await HealthService.open(store: store, timeZone: zone)
    }
}

/// Options shared by the reading commands.
struct RangeOptions: ParsableArguments {
    @Option(help: "Start: an ISO date or instant, now, today, yesterday, or a span back from now (7d, 12h, 2w, 3mo, 1y).")
    var from: String?

    @Option(help: "End, in the same forms (default: now).")
    var to: String?

    @Option(help: "IANA time zone for day boundaries (default: the store's home zone).")
    var tz: String?

    func resolve(_ service: HealthService, defaultFrom: String) throws -> (Date, Date) {
        let now = service.clock()
        let start = try DateExpression.parse(from ?? defaultFrom, now: now, timeZone: service.homeTimeZone)
        let end = try to.map { text throws(HealthError) in
            try DateExpression.parse(text, now: now, timeZone: service.homeTimeZone)
        } ?? now
        guard end >= start else {
            throw HealthError(.invalidRange, "--to (\(ISO8601.string(end))) is before --from (\(ISO8601.string(start)))")
        }
        return (start, end)
    }
}
