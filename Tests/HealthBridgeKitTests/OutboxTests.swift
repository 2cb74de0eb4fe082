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
        // Not paired: the write is kept, pending, with a backoff (counted from the attempt, not from when this
        // test gets a thread back: under load that can be seconds later).
        let attempted = Date()
        let first = try await engine.logWater(250, syncId: "a")
        #expect(first.status == .pending && first.attempts == 1)
        #expect(first.nextAttemptAt > attempted.addingTimeInterval(4))
        // Queued in the app's own transaction, due now, but behind the head: not sent before it.
        try await db.write { db in try engine.enqueue(.weight(kilograms: 70, date: Date()), syncId: "b", in: db) }
        let report = await engine.flush()
        #expect(report.synced == 0 && report.pending == 2)
        #expect(report.nextAttemptAt == first.nextAttemptAt)   // run() sleeps until then, no busy loop
        #expect(try engine.entry(syncId: "b")?.attempts == 0)
        // Queuing the same sync id again does nothing.
        try await db.write { db in try engine.enqueue(.weight(kilograms: 99, date: Date()), syncId: "b", in: db) }
        #expect(try engine.outbox().map(\.syncId) == ["a", "b"])
        guard case .quantity(let weight)? = try engine.outbox().last?.operation else {
            Issue.record("the second entry is not the weight")
            return
        }
        #expect(weight.type == .bodyMass && weight.value == 70 && weight.unit == "kg")
        // A restart keeps everything.
        let reopened = try unpairedEngine(db)
        #expect(try reopened.counts() == [.pending: 2])
    }

    @Test func rowsWrittenBeforeTheGenericQuantityCaseStillDecode() async throws {
        let db = try DatabaseQueue()
        let engine = try unpairedEngine(db)
        // As an app's SQLite file holds them from the per-type outbox: water, weight, a meal, a delete.
        let date = Date(timeIntervalSinceReferenceDate: 786_000_000)
        let meal = HealthBridgeMeal(id: "meal-1", calories: 320, protein: 11, carbs: 54, fat: 6)
        let mealJSON = String(decoding: try JSONEncoder().encode(meal), as: UTF8.self)
        let rows: [(String, String, String)] = [
            ("old-water", "water", #"{"water":{"milliliters":250,"date":786000000}}"#),
            ("old-weight", "weight", #"{"weight":{"kilograms":72.4,"date":786000000}}"#),
            ("old-food", "food", #"{"food":{"_0":\#(mealJSON)}}"#),
            ("old-delete", "deleteFood", #"{"deleteFood":{"logId":"meal-1"}}"#),
        ]
        try await db.write { db in
            for (syncId, kind, json) in rows {
                try db.execute(sql: """
                    INSERT INTO healthbridge_outbox (sync_id, kind, operation, next_attempt_at, created_at)
                    VALUES (?, ?, ?, 0, 0)
                    """, arguments: [syncId, kind, Data(json.utf8)])
            }
        }
        let entries = try engine.outbox()
        #expect(entries.map(\.syncId) == ["old-water", "old-weight", "old-food", "old-delete"])
        #expect(entries.first?.operation == .quantity(QuantityEntry(type: .dietaryWater, value: 250, unit: "mL", date: date)))
        #expect(entries.dropFirst().first?.operation == .quantity(QuantityEntry(type: .bodyMass, value: 72.4, unit: "kg", date: date)))
        #expect(entries.dropFirst(2).first?.operation == .food(meal))
        #expect(entries.last?.operation == .deleteFood(logId: "meal-1"))
        // Written again, each keeps its shape: the old cases now as the generic one.
        for entry in entries {
            let data = try JSONEncoder().encode(entry.operation)
            #expect(try JSONDecoder().decode(OutboxOperation.self, from: data) == entry.operation)
        }
        let meta = OutboxOperation.quantity(QuantityEntry(type: "heartRate", value: 62, unit: "bpm", date: date,
                                                          metadata: ["note": "x"]))
        #expect(try JSONDecoder().decode(OutboxOperation.self, from: JSONEncoder().encode(meta)) == meta)
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
