import Foundation
import GRDB
import HealthModel
import Testing
@testable import HealthStore

/// Issue 16: while an import runs, WAL checkpoints happen on another connection (the writer never waits for their
/// fsyncs), the WAL stays bounded, nothing is lost, and the writer gets SQLite's auto-checkpoint back afterwards.
/// SQLite only: WAL checkpoints and the writer's pragmas are the SQLite store's internals.
@Suite("Bulk writes")
struct BulkWriteTests {
    static func autocheckpoint(_ store: SQLiteHealthStore) async throws -> Int? {
        try await store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
    }

    static func batch(_ index: Int, count: Int) -> [HealthSample] {
        (0..<count).map { i in
            let second = Double(index * count + i) * 60
            return qty("heartRate", second, second, Double(60 + i % 40), unit: "count/min", source: watchSource,
                       metadata: ["HKMetadataKeyHeartRateMotionContext": "\(i % 3)"])
        }
    }

    @Test func checkpointsRunInTheBackgroundAndTheWALStaysBounded() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            let store = try SQLiteHealthStore(location: .file(url))
            // Small thresholds so that a test-sized import crosses them many times: 8 pages ask for a background
            // checkpoint, 40 make the writer bound the log.
            store.bulkWrites.withLock { $0.backgroundFrames = 8; $0.writerFrames = 40 }
            #expect(try await Self.autocheckpoint(store) == 1000)

            await store.beginBulkWrites()
            #expect(try await Self.autocheckpoint(store) == 0, "SQLite's auto-checkpoint is off while the hook runs")
            let batches = 60, perBatch = 2_000
            var largestWAL = 0
            for index in 0..<batches {
                let result = try await store.save(Self.batch(index, count: perBatch))
                #expect(result.inserted == perBatch)
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
                largestWAL = max(largestWAL, size)
            }
            await store.endBulkWrites()

            #expect(try await Self.autocheckpoint(store) == 1000, "the writer has SQLite's auto-checkpoint back")
            let (background, writer) = store.bulkWrites.withLock { ($0.backgroundCheckpoints, $0.writerCheckpoints) }
            #expect(background > 0, "checkpoints ran on the checkpointer's connection")
            #expect(writer > 0, "the writer bounded the log")
            // Every frame was copied into the database before endBulkWrites returned.
            let (frames, copied) = try await store.writer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            #expect(frames == copied, "WAL frames \(frames), copied \(copied)")
            // The log restarted instead of growing with the data: the file never held more than a few bounds' worth,
            // while the store itself grew far beyond it.
            let pageWithHeader = 16_384 + 24
            let storeSize = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            #expect(largestWAL < 3 * 40 * pageWithHeader + 32, "the WAL grew to \(largestWAL) bytes")
            #expect(storeSize > 3 * largestWAL, "store \(storeSize) bytes, WAL at most \(largestWAL)")

            // Nothing lost, and writes after the run work with the default checkpoint.
            let total = try await store.typeSummaries().first { $0.type == "heartRate" }?.count
            #expect(total == batches * perBatch)
            #expect(try await store.save(Self.batch(100_000, count: 10)).inserted == 10)
        }
    }

    @Test func runsNestAndAMemoryStoreIgnoresThem() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLiteHealthStore(location: .file(dir.appendingPathComponent("health.sqlite")))
            await store.beginBulkWrites()
            await store.beginBulkWrites()
            await store.endBulkWrites()
            #expect(try await Self.autocheckpoint(store) == 0, "still in the outer run")
            await store.endBulkWrites()
            #expect(try await Self.autocheckpoint(store) == 1000)
            await store.endBulkWrites()  // unbalanced: ignored
            #expect(try await Self.autocheckpoint(store) == 1000)
        }
        let memory = try SQLiteHealthStore.inMemory()
        await memory.beginBulkWrites()
        #expect(try await memory.save(Self.batch(0, count: 5)).inserted == 5)
        await memory.endBulkWrites()
        #expect(memory.bulkWrites.withLock { $0.checkpointer == nil && $0.depth == 0 })
    }
}
