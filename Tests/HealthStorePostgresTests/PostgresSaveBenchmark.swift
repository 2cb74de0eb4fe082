import Foundation
import HealthBridgeTesting
import HealthModel
import HealthStore
import HealthStorePostgres
import Testing

/// A figure, not a timed test: saving 100,000 samples in batches of 5,000 into PostgreSQL and into a SQLite file in
/// the same run. Runs only with `HEALTHBRIDGE_POSTGRES_BENCH=1` (and a PostgreSQL URL):
///
/// ```sh
/// HEALTHBRIDGE_POSTGRES_BENCH=1 HEALTHBRIDGE_POSTGRES_URL=postgres://… swift test --skip-build --filter PostgresSaveBenchmark
/// ```
@Suite(.enabled(if: PostgresTesting.enabled && ProcessInfo.processInfo.environment["HEALTHBRIDGE_POSTGRES_BENCH"] == "1",
                "a benchmark: HEALTHBRIDGE_POSTGRES_BENCH=1"))
struct PostgresSaveBenchmark {
    static let total = 100_000
    static let batchSize = 5_000

    /// Batches of steps and heart rates from two sources, every tenth with metadata, as an import makes them.
    static func batches() -> [SampleBatch] {
        var batches: [SampleBatch] = []
        var batch = SampleBatch(capacity: batchSize)
        for index in 0..<total {
            let start = pgT0.addingTimeInterval(Double(index) * 30)
            let heart = index % 3 == 0
            let sample = HealthSample(
                type: heart ? "heartRate" : "stepCount", start: start, end: heart ? start : start.addingTimeInterval(60),
                value: heart ? .quantity(Double(60 + index % 40), unit: "count/min") : .quantity(Double(index % 200), unit: "count"),
                source: index % 2 == 0 ? pgPhone : pgWatch,
                metadata: index % 10 == 0 ? ["HKTimeZone": "Europe/Paris", "HKWasUserEntered": "0"] : [:])
            batch.append(sample)
            if batch.count == batchSize {
                batches.append(batch)
                batch = SampleBatch(tables: batch.tables, capacity: batchSize)
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    static func rate(_ store: some BulkImportStore, _ batches: [SampleBatch]) async throws -> Double {
        let start = ContinuousClock.now
        var inserted = 0
        for batch in batches { inserted += try await store.save(batch).inserted }
        let elapsed = ContinuousClock.now - start
        #expect(inserted == total)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(total) / seconds
    }

    @Test func save100kSamplesInBatchesOf5000() async throws {
        let batches = Self.batches()
        let sqliteRate = try await TemporaryHome.with("bench") { home in
            let store = try SQLiteHealthStore(location: .file(home.appending("health.sqlite")), logger: PostgresTesting.logger)
            return try await Self.rate(store, batches)
        }
        let postgresRate = try await PostgresTesting.withStore { store, _ in
            let rate = try await Self.rate(store, batches)
            #expect(try await store.currentAnchor() == Int64(Self.total))
            return rate
        }
        print(String(format: "save 100k samples, batches of 5000: SQLite %.0f records/s, PostgreSQL %.0f records/s (ratio %.2f)",
                     sqliteRate, postgresRate, postgresRate / sqliteRate))
    }
}
