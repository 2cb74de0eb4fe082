import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

/// `healthbridge store copy`: everything of one store into another, exactly, and resumed after an interruption
/// without doubling anything. SQLite to SQLite here; HealthStorePostgresTests copies to and from PostgreSQL.
@Suite struct StoreCopierTests {
    static let world = DemoWorld(days: 6, seed: 11, end: Date(timeIntervalSince1970: 1_719_761_400), zone: .utcZone)

    static func source() async throws -> SQLiteHealthStore {
        let (store, _) = try await world.store()
        let steps = try await store.sources(type: "stepCount").map(\.source.key)
        try await store.setPriority(type: "stepCount", sources: Array(steps.reversed()))
        try await store.setSetting("home_time_zone", "UTC")
        // A deletion, so the copy has a tombstone to carry.
        let first = try await store.samples(SampleQuery(type: "heartRate", limit: 1)).samples
        try await store.delete(uuids: first.map(\.uuid))
        return store
    }

    @Test func copiesEverythingExactly() async throws {
        let source = try await Self.source()
        let target = try SQLiteHealthStore(location: .inMemory)
        let copier = StoreCopier(from: source, to: target, sourceName: "source.sqlite", batchSize: 2_000)
        let report = try await copier.run()
        #expect(report.samples > 1_000 && report.workouts > 0 && report.routePoints > 0)
        #expect(report.correlations > 0, "the demo logs meals (food correlations)")
        #expect(report.priorityOrders == 1)
        #expect(try await copier.verify().isEmpty)

        for type in ["stepCount", "heartRate", "dietaryEnergyConsumed"] {
            #expect(try await all(source, type) == all(target, type), "every \(type) sample, field by field")
        }
        let workouts = try await source.workouts(WorkoutQuery())
        #expect(try await target.workouts(WorkoutQuery()) == workouts)
        let route = try #require(workouts.flatMap(\.routes).first)
        #expect(try await target.routePoints(route.uuid, offset: 0, limit: 100_000)
                == source.routePoints(route.uuid, offset: 0, limit: 100_000))
        #expect(try await target.correlations(type: "food", start: nil, end: nil, limit: nil)
                == source.correlations(type: "food", start: nil, end: nil, limit: nil))
        #expect(try await target.priority(type: "stepCount", counts: true).map(\.source.key)
                == source.priority(type: "stepCount", counts: true).map(\.source.key))
        #expect(try await target.setting("home_time_zone") == "UTC")

        // Copying again finds everything there: nothing doubles.
        let again = try await StoreCopier(from: source, to: target, sourceName: "source.sqlite").run()
        #expect(again.samples == 0 && again.correlations == 0 && again.resumedFrom == report.anchor)
        #expect(try await copier.verify().isEmpty)
    }

    @Test func anInterruptedCopyResumesWhereItStopped() async throws {
        let source = try await Self.source()
        let target = try SQLiteHealthStore(location: .inMemory)
        let copier = StoreCopier(from: source, to: target, sourceName: "source.sqlite", batchSize: 500)
        let interrupted = Task {
            try await copier.run { _, _ in withUnsafeCurrentTask { $0?.cancel() } }
        }
        await #expect(throws: CancellationError.self) { try await interrupted.value }
        let reached = try #require(try await target.setting(StoreCopier.progressKey(source: "source.sqlite")).flatMap { Int64($0) })
        #expect(reached > 0)
        #expect(try await !copier.verify().isEmpty, "cut after one batch, the copy is not complete")

        let resumed = try await copier.run()
        #expect(resumed.resumedFrom == reached)
        #expect(try await copier.verify().isEmpty)
        #expect(try await all(target, "stepCount").count == all(source, "stepCount").count)
    }
}
