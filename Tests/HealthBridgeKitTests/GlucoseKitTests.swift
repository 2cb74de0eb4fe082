import Foundation
import GRDB
import HealthAPI
import HealthBridgeKit
import HealthModel
import Testing

/// Blood glucose through HealthBridgeKit against a real `healthbridge serve`: the manager's generic
/// `save(quantity:)`, the sync engine's generic outbox case, mg/dL and mmol/L, meal time, refusals.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct GlucoseKitTests {
    /// The entry once the engine has settled it. A write whose first attempt failed in transit (a server slow under
    /// a loaded machine) stays pending and is retried with backoff: flushed again until it is not, at most 30 s.
    static func settled(_ entry: OutboxEntry, _ engine: SyncEngine) async throws -> OutboxEntry {
        var current = entry
        let deadline = ContinuousClock.now + .seconds(30)
        while current.status == .pending, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            _ = await engine.flush()
            current = try engine.entry(syncId: entry.syncId) ?? current
        }
        return current
    }

    @Test func glucoseWritesThroughTheManagerAndTheOutbox() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, directory) = try await server.pairedApp()
            let glucose = HealthDataType("bloodGlucose")
            #expect(HealthDataType.writable.contains(glucose) && glucose.entryUnits.map(\.name) == ["mg/dL", "mmol/L"])
            _ = try await manager.requestAuthorization(toShare: [glucose], read: [glucose])
            try await server.approvePending()

            // The manager: 180 mg/dL after a meal (once refused by a 0.1…100 bound in mg/dL); a retry changes nothing.
            let at = Date().addingTimeInterval(-120)
            let saved = try await manager.save(quantity: glucose, value: 180, unit: "mg/dL", date: at,
                                               metadata: ["meal_time": "postprandial"], syncId: "g-180")
            #expect(saved.inserted == 1)
            let again = try await manager.save(quantity: glucose, value: 180, unit: "mg/dL", date: at,
                                               metadata: ["meal_time": "postprandial"], syncId: "g-180")
            #expect(again.inserted == 0 && again.unchanged == 1)

            // The outbox: 7.8 mmol/L before a meal, sent in the quantity batch.
            let db = try DatabaseQueue(path: directory.appendingPathComponent("app.sqlite").path)
            let engine = try SyncEngine(manager: manager, database: db,
                                        policy: RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
            let queued = try await engine.log(quantity: glucose, value: 7.8, unit: "mmol/L", date: Date().addingTimeInterval(-60),
                                              metadata: ["meal_time": "preprandial"], syncId: "g-7.8")
            #expect(queued.status == .synced, "\(queued.lastError ?? "")")
            #expect(queued.operation.quantityEntry?.unit == "mmol/L")

            // Read back in mg/dL with HealthKit's meal time.
            let changes = try await manager.changes(types: [glucose])
            let readings = changes.added.compactMap(\.sample)
            #expect(readings.map { (($0.value ?? 0) * 10).rounded() / 10 } == [180, 140.5])
            #expect(readings.map { $0.metadata?["HKMetadataKeyBloodGlucoseMealTime"] } == ["2", "1"])
            #expect(readings.allSatisfy { $0.unit == "mg/dL" })

            // Out of bounds and a wrong unit: refused with the write's codes, never retried.
            let tooLow = try await Self.settled(try await engine.log(quantity: glucose, value: 5, unit: "mg/dL"), engine)
            #expect(tooLow.status == .invalid && tooLow.lastCode == HealthError.Code.invalidArgument.rawValue,
                    "\(tooLow.status) \(tooLow.lastCode ?? "") \(tooLow.lastError ?? "")")
            let wrongUnit = try await Self.settled(try await engine.log(quantity: glucose, value: 100, unit: "kg"), engine)
            #expect(wrongUnit.status == .invalid && wrongUnit.lastCode == HealthError.Code.invalidUnit.rawValue,
                    "\(wrongUnit.status) \(wrongUnit.lastCode ?? "") \(wrongUnit.lastError ?? "")")
            await #expect {
                try await manager.save(quantity: glucose, value: 100, unit: "kg")
            } throws: { error in
                (error as? HealthBridgeError)?.failure.code == .invalidUnit
            }
            #expect(try await manager.changes(types: [glucose]).added.count == 2)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension OutboxOperation {
    var quantityEntry: QuantityEntry? {
        if case .quantity(let entry) = self { return entry }
        return nil
    }
}
