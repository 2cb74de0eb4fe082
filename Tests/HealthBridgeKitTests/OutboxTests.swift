import Foundation
import GRDB
import HealthBridgeKit
import Testing

/// The outbox without a server: order, backoff, restarts.
@Suite struct OutboxTests {
    func unpairedEngine(_ db: DatabaseQueue, policy: RetryPolicy = RetryPolicy(baseDelay: .seconds(10), maxDelay: .seconds(60)))
        throws -> SyncEngine
    {
        let credentials = FileManager.default.temporaryDirectory.appendingPathComponent("hbk-none-\(UUID().uuidString)/c.json")
        return try SyncEngine(manager: try HealthBridgeManager(appId: "org.example.test", credentialsFile: credentials),
                              database: db, policy: policy)
    }

    @Test func entriesWaitInOrderBehindTheHeadsBackoff() async throws {
        let db = try DatabaseQueue()
        let engine = try unpairedEngine(db)
        // Not paired: the write is kept, pending, with a backoff.
        let first = try await engine.logWater(250, syncId: "a")
        #expect(first.status == .pending && first.attempts == 1)
        #expect(first.nextAttemptAt > Date().addingTimeInterval(4))
        // Queued in the app's own transaction, due now, but behind the head: not sent before it.
        try await db.write { db in try engine.enqueue(.weight(kilograms: 70, date: Date()), syncId: "b", in: db) }
        let report = await engine.flush()
        #expect(report.synced == 0 && report.pending == 2)
        #expect(report.nextAttemptAt == first.nextAttemptAt)   // run() sleeps until then, no busy loop
        #expect(try engine.entry(syncId: "b")?.attempts == 0)
        // Queuing the same sync id again does nothing.
        try await db.write { db in try engine.enqueue(.weight(kilograms: 99, date: Date()), syncId: "b", in: db) }
        #expect(try engine.outbox().map(\.syncId) == ["a", "b"])
        guard case .weight(let kilograms, _)? = try engine.outbox().last?.operation else {
            Issue.record("the second entry is not the weight")
            return
        }
        #expect(kilograms == 70)
        // A restart keeps everything.
        let reopened = try unpairedEngine(db)
        #expect(try reopened.counts() == [.pending: 2])
    }

    @Test func backoffGrowsWithJitterUpToTheCap() {
        let policy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(30))
        for attempts in 1...10 {
            let expected = min(30, pow(2, Double(attempts - 1)))
            for _ in 0..<20 {
                let delay = policy.delay(afterAttempts: attempts)
                #expect(delay >= expected / 2 && delay <= expected)
            }
        }
        #expect(policy.delay(afterAttempts: 1, retryAfter: 7) == 7)
    }
}
