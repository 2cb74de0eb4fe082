import Foundation
import HealthAPI
import HealthBridgeTesting
import HealthImport
import HealthModel
import HealthService
import HealthStore
import Testing

/// Issue 27: "the merged daily steps of a one-year export, and every sample, are equal on both stores". Real exports
/// from `../shared/fixtures` go into a SQLite store and a PostgreSQL store through the same importer
/// (``ExportImporter`` over `any HealthStore`); then every sample (uuid, type, dates, value, unit, source, metadata),
/// workout, route point, correlation, document, source and type summary is compared, and the service computes the
/// merged daily steps of the year (and daily heart-rate statistics) on each.
///
/// Runs when PostgreSQL is configured (`HEALTHBRIDGE_POSTGRES_URL`) or required (`HEALTHBRIDGE_REQUIRE_POSTGRES=1`,
/// where a missing URL fails it), and when the fixture is there (always with `HEALTHBRIDGE_REQUIRE_FIXTURES=1`,
/// where a missing fixture fails it).
@Suite("SQLite and PostgreSQL hold and answer the same export",
       .enabled(if: TestStores.kinds.contains(.postgres), "needs HEALTHBRIDGE_POSTGRES_URL (IntegrationTests/postgres.sh)"))
struct StoreEquivalenceTests {
    // MARK: Fixtures

    /// `/work/shared/fixtures`, found from this file's real location.
    static let fixtures: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("../../../shared/fixtures", isDirectory: true).standardizedFileURL

    static let iphone2019 = "real-iphone-2019-export.xml"
    static let v14 = "realistic-v14-export.xml"
    static let routeZip = "real-route-export.zip"

    /// Whether a fixture's test runs: when the file is there, and always under `HEALTHBRIDGE_REQUIRE_FIXTURES=1`.
    static func available(_ name: String) -> Bool {
        ProcessInfo.processInfo.environment["HEALTHBRIDGE_REQUIRE_FIXTURES"] == "1"
            || FileManager.default.isReadableFile(atPath: fixtures.appendingPathComponent(name).path)
    }

    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// Opt-in, too large for every run: a generated year (`python3 scripts/generate_corpus.py --profile typical-year
    /// --out bench-out/typical-year.zip`, about 520,000 records with routes) named by
    /// `HEALTHBRIDGE_EQUIVALENCE_EXPORT`.
    static var yearExport: URL? {
        ProcessInfo.processInfo.environment["HEALTHBRIDGE_EQUIVALENCE_EXPORT"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
    }

    // MARK: Tests

    @Test("the 2019 iPhone export: every sample, and the merged daily steps of 2019",
          .enabled(if: available(iphone2019)), .timeLimit(.minutes(5)))
    func iphoneExportOfAYear() async throws {
        try await Self.withBothStores { sqlite, postgres in
            try await Self.importBoth([Self.iphone2019], sqlite, postgres)
            let samples = try await Self.expectSameContents(sqlite, postgres)
            #expect(samples > 3_000, "the export's records were compared")

            let steps = SummaryRequest(type: "stepCount", start: "2019-01-01", end: "2020-01-01", interval: "day")
            let (sqliteSteps, postgresSteps) = try await Self.summaries(steps, sqlite, postgres)
            #expect(sqliteSteps.count == 365)
            #expect(postgresSteps == sqliteSteps)
            let days = sqliteSteps.filter { ($0.sum ?? 0) > 0 }.count
            #expect(days > 30, "the export has two months of steps: \(days) days with steps")

            for type in ["distanceWalkingRunning", "flightsClimbed"] {
                let daily = SummaryRequest(type: type, start: "2019-01-01", end: "2020-01-01", interval: "day",
                                           contributions: true)
                let (inSQLite, inPostgres) = try await Self.summaries(daily, sqlite, postgres)
                #expect(inPostgres == inSQLite, "\(type)")
                #expect(inSQLite.contains { ($0.sum ?? 0) > 0 }, "\(type)")
            }
        }
    }

    @Test("a v14 export and an export with a workout route: every object, route points bit for bit",
          .enabled(if: available(v14) && available(routeZip)), .timeLimit(.minutes(5)))
    func exportsWithWorkoutsRoutesAndDocuments() async throws {
        try await Self.withBothStores { sqlite, postgres in
            try await Self.importBoth([Self.v14, Self.routeZip], sqlite, postgres)
            let objects = try await Self.expectSameContents(sqlite, postgres)
            #expect(objects > 0)
            let routes = try await sqlite.workouts(WorkoutQuery()).flatMap(\.routes)
            #expect(!routes.isEmpty, "the route export's workout has its route")
            let energy = SummaryRequest(type: "activeEnergyBurned", start: "2020-01-01", end: "2026-01-01",
                                        interval: "month")
            let (sqliteEnergy, postgresEnergy) = try await Self.summaries(energy, sqlite, postgres)
            #expect(postgresEnergy == sqliteEnergy)
            let heart = SummaryRequest(type: "heartRate", start: "2020-01-01", end: "2026-01-01", interval: "day",
                                       statistics: ["average", "min", "max", "most_recent"], skipEmpty: true)
            let (sqliteHeart, postgresHeart) = try await Self.summaries(heart, sqlite, postgres)
            #expect(postgresHeart == sqliteHeart)
            #expect(sqliteHeart.contains { $0.average != nil })
        }
    }

    @Test("a generated one-year export (HEALTHBRIDGE_EQUIVALENCE_EXPORT): every object, the merged daily steps of the year",
          .enabled(if: yearExport != nil), .timeLimit(.minutes(30)))
    func aGeneratedYear() async throws {
        let url = try #require(Self.yearExport)
        try await Self.withBothStores { sqlite, postgres in
            let name = url.lastPathComponent
            let (intoSQLite, intoPostgres) = try await Self.importBoth(url, sqlite, postgres)
            // The issue's figure: the same export into each store, in the same run.
            let figure = "\(name): " + String(format: "%d records; SQLite %.0f records/s (%.1f s), "
                                    + "PostgreSQL %.0f records/s (%.1f s), PostgreSQL/SQLite %.2f",
                                intoSQLite.records, intoSQLite.recordsPerSecond,
                                intoSQLite.elapsedSeconds, intoPostgres.recordsPerSecond, intoPostgres.elapsedSeconds,
                                intoPostgres.recordsPerSecond / max(intoSQLite.recordsPerSecond, 1))
            print(figure)
            let samples = try await Self.expectSameContents(sqlite, postgres)
            #expect(samples >= intoSQLite.samplesInserted - intoSQLite.samplesReplaced)

            let steps = try #require(try await sqlite.typeSummaries().first { $0.type == "stepCount" })
            let first = try #require(steps.first)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = Self.paris
            let year = calendar.component(.year, from: first)
            let request = SummaryRequest(type: "stepCount", start: "\(year)-01-01", end: "\(year + 1)-01-01",
                                         interval: "day", contributions: true)
            let (sqliteSteps, postgresSteps) = try await Self.summaries(request, sqlite, postgres)
            #expect([365, 366].contains(sqliteSteps.count))
            #expect(postgresSteps == sqliteSteps)
            #expect(sqliteSteps.filter { ($0.sum ?? 0) > 0 }.count > 300, "a year of steps")
        }
    }

    // MARK: Helpers

    /// A fresh SQLite store and a fresh PostgreSQL store (its own schema), both closed and removed afterwards.
    static func withBothStores(_ body: (any HealthStore, any HealthStore) async throws -> Void) async throws {
        try await TestStores.withStore(.sqlite) { sqlite in
            try await TestStores.withStore(.postgres) { postgres in
                try await body(sqlite, postgres)
            }
        }
    }

    /// Imports the fixtures into both stores through the same importer; the reports must count the same things.
    static func importBoth(_ names: [String], _ sqlite: any HealthStore, _ postgres: any HealthStore) async throws {
        for name in names {
            try await importBoth(fixtures.appendingPathComponent(name), sqlite, postgres)
        }
    }

    /// Imports one export into both stores; returns the two reports (SQLite's, PostgreSQL's).
    @discardableResult
    static func importBoth(_ url: URL, _ sqlite: any HealthStore, _ postgres: any HealthStore) async throws
        -> (ImportReport, ImportReport)
    {
        let name = url.lastPathComponent
        let intoSQLite = try await ExportImporter(store: sqlite, logger: TestStores.logger).run(url)
        let intoPostgres = try await ExportImporter(store: postgres, logger: TestStores.logger).run(url)
        #expect(intoSQLite.records > 0, "\(name)")
        #expect(intoPostgres.contentHash == intoSQLite.contentHash, "\(name)")
        #expect(intoPostgres.elements == intoSQLite.elements, "\(name)")
        #expect(intoPostgres.recordTypes == intoSQLite.recordTypes, "\(name)")
        #expect(intoPostgres.samplesInserted == intoSQLite.samplesInserted, "\(name)")
        #expect(intoPostgres.samplesReplaced == intoSQLite.samplesReplaced, "\(name)")
        #expect(intoPostgres.samplesAlreadyStored == intoSQLite.samplesAlreadyStored, "\(name)")
        #expect(intoPostgres.workoutsInserted == intoSQLite.workoutsInserted, "\(name)")
        #expect(intoPostgres.correlationsInserted == intoSQLite.correlationsInserted, "\(name)")
        #expect(intoPostgres.documentsInserted == intoSQLite.documentsInserted, "\(name)")
        #expect(intoPostgres.routePoints == intoSQLite.routePoints, "\(name)")
        #expect(intoPostgres.skippedCount == intoSQLite.skippedCount, "\(name)")
        return (intoSQLite, intoPostgres)
    }

    /// A service summary's buckets in each store, all pages; every page (source priority, totals, contributions,
    /// cursors) must be equal too.
    static func summaries(_ request: SummaryRequest, _ sqlite: any HealthStore, _ postgres: any HealthStore)
        async throws -> ([SummaryBucket], [SummaryBucket])
    {
        func pages(_ store: any HealthStore) async throws -> [SummaryResult] {
            let service = HealthService(store: store, homeTimeZone: paris)
            var pages = [try await service.summary(request)]
            while let next = pages.last?.nextCursor, pages.count < 1_000 {
                pages.append(try await service.summary(SummaryRequest(cursor: next)))
            }
            return pages
        }
        let (inSQLite, inPostgres) = (try await pages(sqlite), try await pages(postgres))
        #expect(inPostgres == inSQLite, "\(request.type ?? "") by \(request.interval ?? "day")")
        return (inSQLite.flatMap(\.buckets), inPostgres.flatMap(\.buckets))
    }

    /// A source as both stores must describe it: everything but the store's own opaque number.
    struct SourceFacts: Hashable, CustomStringConvertible {
        var source: HealthSource
        var category: SourceCategory
        var count: Int
        var rank: Int?
        var userOrdered: Bool
        init(_ summary: SourceSummary) {
            source = summary.source; category = summary.category; count = summary.count; rank = summary.rank
            userOrdered = summary.userOrdered
        }
        var description: String {
            "\(source.name) [\(source.key)] \(category) count \(count) rank \(rank.map(String.init) ?? "-")"
                + (userOrdered ? " user-ordered" : "")
        }
    }

    /// The objects of a store's change feed from the start (samples and workouts added, tombstones), walked by pages.
    struct Feed {
        var added: Set<UUID> = []
        var deleted: Set<UUID> = []
        var pages = 0

        init(_ store: any HealthStore) async throws {
            var anchor: Int64?
            repeat {
                let page = try await store.changes(since: anchor, types: nil, limit: 20_000)
                added.formUnion(page.added.map(\.uuid))
                added.formUnion(page.addedWorkouts.map(\.uuid))
                deleted.formUnion(page.deleted.map(\.uuid))
                pages += 1
                if !page.hasMore { return }
                #expect(page.anchor != anchor, "the change feed moved on")
                anchor = page.anchor
            } while pages < 10_000
        }
    }

    /// Compares everything the two stores hold; returns how many samples were compared.
    @discardableResult
    static func expectSameContents(_ sqlite: any HealthStore, _ postgres: any HealthStore) async throws -> Int {
        // Values first, then the comparison: a failure shows both sides.
        let summaries = try await sqlite.typeSummaries()
        let postgresSummaries = try await postgres.typeSummaries()
        #expect(postgresSummaries == summaries)
        let (sqlitePresent, postgresPresent) = (try await sqlite.presentTypes(), try await postgres.presentTypes())
        #expect(postgresPresent == sqlitePresent)
        let sqliteSources = try await sqlite.sources(type: nil).map(SourceFacts.init)
        let postgresSources = try await postgres.sources(type: nil).map(SourceFacts.init)
        #expect(postgresSources == sqliteSources)
        // The same writes make the same number of changes: one anchor per saved or deleted object.
        let (sqliteAnchor, postgresAnchor) = (try await sqlite.currentAnchor(), try await postgres.currentAnchor())
        #expect(postgresAnchor == sqliteAnchor, "anchor after the import: SQLite \(sqliteAnchor), PostgreSQL \(postgresAnchor)")
        // The change feed from the start holds the same objects.
        let (sqliteFeed, postgresFeed) = (try await Feed(sqlite), try await Feed(postgres))
        #expect(postgresFeed.added.count == sqliteFeed.added.count, "objects in the change feed")
        #expect(postgresFeed.added == sqliteFeed.added, "the change feed's objects")
        #expect(postgresFeed.deleted == sqliteFeed.deleted, "the change feed's tombstones")

        var compared = 0
        for summary in summaries {
            switch summary.kind {
            case .workout:
                continue
            case .correlation:
                let expected = try await sqlite.correlations(type: summary.type, start: nil, end: nil, limit: nil)
                #expect(try await postgres.correlations(type: summary.type, start: nil, end: nil, limit: nil) == expected,
                        "\(summary.type)")
            default:
                let expected = try await sqlite.samples(SampleQuery(type: summary.type)).samples
                let actual = try await postgres.samples(SampleQuery(type: summary.type)).samples
                expectSameSamples(actual, expected, type: summary.type)
                compared += expected.count
                let sqlitePriority = try await sqlite.priority(type: summary.type, counts: true).map(SourceFacts.init)
                let postgresPriority = try await postgres.priority(type: summary.type, counts: true).map(SourceFacts.init)
                #expect(postgresPriority == sqlitePriority, "\(summary.type)")
            }
        }

        let workouts = try await sqlite.workouts(WorkoutQuery(ascending: true))
        #expect(try await postgres.workouts(WorkoutQuery(ascending: true)) == workouts)
        for route in workouts.flatMap(\.routes) {
            let expected = try await sqlite.routePoints(route.uuid, offset: 0, limit: 10_000_000)
            let actual = try await postgres.routePoints(route.uuid, offset: 0, limit: 10_000_000)
            #expect(actual.count == expected.count, "route \(route.uuid)")
            #expect(actual == expected, "route \(route.uuid)")
            let bits = { (points: [RoutePoint]) in
                points.map { [$0.latitude, $0.longitude, $0.elevation ?? .nan, $0.speed ?? .nan].map(\.bitPattern) }
            }
            #expect(bits(actual) == bits(expected), "route \(route.uuid)")
        }
        for kind in HealthDocument.Kind.allCases {
            #expect(try await postgres.documents(kind: kind, start: nil, end: nil, limit: nil)
                    == (try await sqlite.documents(kind: kind, start: nil, end: nil, limit: nil)), "\(kind)")
        }
        return compared
    }

    /// The same samples with every field equal, in the same order; a difference names the first sample that differs.
    static func expectSameSamples(_ actual: [HealthSample], _ expected: [HealthSample], type: String) {
        #expect(actual.count == expected.count, "\(type): \(actual.count) samples on PostgreSQL, \(expected.count) on SQLite")
        let byUUID = Dictionary(actual.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        var missing = 0, different = 0
        var firstDifference: String?
        for sample in expected {
            guard let other = byUUID[sample.uuid] else { missing += 1; continue }
            if other != sample {
                different += 1
                if firstDifference == nil { firstDifference = "SQLite \(sample)\nPostgreSQL \(other)" }
            }
        }
        #expect(missing == 0, "\(type): \(missing) samples of SQLite are not on PostgreSQL")
        #expect(different == 0, "\(type): \(different) samples differ; the first:\n\(firstDifference ?? "")")
        #expect(actual.map(\.uuid) == expected.map(\.uuid), "\(type): the same samples in another order")
    }
}
