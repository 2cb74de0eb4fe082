import ArgumentParser
import Foundation
import HealthModel
import HealthStore
import HealthStorePostgres

/// `healthbridge store copy --to postgres://…`: everything of one store into another, exactly and resumably.
struct StoreCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every sample, workout, route, correlation, document, priority order and setting into another store.",
        discussion: """
            The source is --store (default: the data directory's SQLite file); the target is --to, a postgres:// URL \
            or a SQLite file. Objects keep their UUIDs, so running the copy again after an interruption continues \
            where it stopped and never doubles anything. At the end the two stores are compared type by type; a \
            difference is an error (exit 1). Then point the app servers at the target: serve --store URL.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "The target store: a postgres:// URL or a SQLite file path.") var to: String
    @Option(help: "Changes per batch (1–50000).") var batchSize = 5_000
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        guard (1...50_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1–50000") }
    }

    func run() async throws {
        let home = try store.resolveHome()
        let sourceName = store.storeLocation.map { Self.redacted($0, person: store.personID) } ?? home.storeURL.path
        guard Self.redacted(to, person: store.personID) != sourceName else {
            throw HealthError(.invalidArgument, "the target is the source; name another store with --to", argument: "to")
        }
        let source = try await StoreOptions.openStore(store.storeLocation, home: home, person: store.personID)
        let target = try await StoreOptions.openStore(to, home: home, person: store.personID)
        let copier = StoreCopier(from: source, to: target, sourceName: sourceName, batchSize: batchSize,
                                 logger: CLILog.logger)
        let interactive = isatty(STDERR_FILENO) == 1 && !json
        let started = Date()
        let report = try await copier.run { reached, last in
            if interactive { Output.stderr("\u{1B}[1A\u{1B}[2Kcopied up to change \(reached) of \(last)") }
        }
        let differences = try await copier.verify()
        let elapsed = Date().timeIntervalSince(started)
        if json {
            try Output.json(CopyJSON(report: report, seconds: (elapsed * 10).rounded() / 10,
                                     differences: differences.map(\.description)))
        } else {
            let resumed = report.resumedFrom > 0 ? " (resumed after change \(report.resumedFrom))" : ""
            print("""
                Copied into \(Self.redacted(to, person: store.personID))\(resumed) in \(String(format: "%.1f", elapsed)) s: \
                \(Output.number(Double(report.samples))) samples, \(report.workouts) workouts with \
                \(Output.number(Double(report.routePoints))) route points, \(report.correlations) correlations, \
                \(report.documents) documents, \(report.priorityOrders) priority orders, \(report.settings) settings; \
                \(report.deletions) deletions applied.
                """)
            print(differences.isEmpty ? "Verified: every type has the same samples, span and sources in both stores."
                                      : "Differences:\n" + differences.map { "  \($0)" }.joined(separator: "\n"))
        }
        if !differences.isEmpty {
            throw HealthError(.conflict, "the copy differs from its source in \(differences.count) type(s); run it again to resume")
        }
    }

    /// A store location without its password, as logs, progress keys and reports name it.
    static func redacted(_ location: String, person: String? = nil) -> String {
        guard PostgresStoreConfiguration.isPostgresURL(location),
              let configuration = try? StoreOptions.postgresConfiguration(location, person: person) else { return location }
        return configuration.redactedDescription
    }

    struct CopyJSON: Encodable {
        var report: StoreCopier.Report
        var seconds: Double
        var differences: [String]
    }
}
