import Foundation
import GRDB
import Synchronization
import Testing
import HealthBridgeTesting
import HealthModel
@testable import HealthStore

/// A one-shot signal a blocking database closure can wait on, with a deadline so a failing test cannot hang.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func open() { semaphore.signal() }
    func wait(seconds: Double) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
}

private struct Rollback: Error {}

@Suite struct ConcurrencyTests {
    /// SQLite only: it holds the store's GRDB writer inside an open transaction (internal API).
    /// The store's own writer sits inside an open write transaction (as it does for the whole of a large save) until
    /// the test lets it go. Reads issued meanwhile must complete, and see the committed state: if reads queued behind
    /// the writer, they would only return after the release, and the test would see that.
    @Test func readersAreNotBlockedByAnOpenWriteTransaction() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLiteHealthStore(location: .file(dir.appendingPathComponent("health.sqlite")))
            let existing = (0..<3).map { qty("heartRate", Double($0) * 60, Double($0) * 60, 60 + Double($0),
                                             unit: "count/min", source: watchSource) }
            _ = try await store.save(existing)

            let held = Gate(), release = Gate()
            let writer = store.writer
            let transaction = Task.detached {
                do {
                    try writer.write { db in
                        try db.execute(sql: "DELETE FROM samples")
                        held.open()
                        _ = release.wait(seconds: 60)
                        throw Rollback()
                    }
                    return false
                } catch is Rollback {
                    return true
                }
            }
            #expect(await Task.detached { held.wait(seconds: 30) }.value, "the writer never started its transaction")

            let readDone = Flag(), released = Flag()
            let reads = Task {
                let hearts = try await store.samples(SampleQuery(type: "heartRate"))
                readDone.set()
                return (hearts.samples.map(\.uuid), released.isSet)
            }
            // Give the read up to 30 s; it finishes in milliseconds unless it waits for the writer.
            let deadline = ContinuousClock.now + .seconds(30)
            while !readDone.isSet, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            let finished = readDone.isSet
            released.set()
            release.open()
            #expect(finished, "a read waited for the open write transaction")
            let (seen, afterRelease) = try await reads.value
            #expect(!afterRelease)
            #expect(seen == existing.map(\.uuid), "the uncommitted delete is invisible to readers")
            #expect(try await transaction.value)
            let after = try await store.samples(SampleQuery(type: "heartRate"))
            #expect(after.samples.map(\.uuid) == existing.map(\.uuid))
        }
    }

    /// Reads issued while a large save runs see the store before the save or after it, never half of it. On every
    /// store (SQLite: a file store, readers on their own connections).
    @Test(arguments: TestStores.kinds)
    func aLargeSaveIsAllOrNothingToConcurrentReaders(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            let store = try await place.open()
            let count = 100_000
            let big = (0..<count).map { i in
                HealthSample(uuid: UUID(), type: "stepCount", start: at(Double(i)), end: at(Double(i) + 1),
                             value: .quantity(Double(i % 50), unit: "count"), source: phoneSource)
            }
            let save = Task { try await store.save(big) }
            var counts: Set<Int> = []
            // A failed save ends the wait at the deadline; `save.value` below reports its error.
            let deadline = ContinuousClock.now + .seconds(300)
            while ContinuousClock.now < deadline {
                let total = try await store.typeSummaries().first { $0.type == "stepCount" }?.count ?? 0
                counts.insert(total)
                if total == count { break }
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(try await save.value.inserted == count)
            #expect(counts.isSubset(of: [0, count]), "a reader saw part of a save: \(counts.sorted())")
        }
    }
}

/// A flag set once, read from any task.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
