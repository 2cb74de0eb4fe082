import Foundation
import GRDB
import HealthBridgeTesting
import HealthModel
import Testing
@testable import HealthStore

/// Issue 24: the paired API's `status` asks which types are present on every request. ``SQLiteHealthStore/presentTypes()``
/// answers what ``SQLiteHealthStore/typeSummaries()`` lists, with an index probe per type instead of a scan.
@Suite struct PresentTypesTests {
    static let phone = HealthSource(name: "Phone", bundleIdentifier: "com.apple.health")

    static func steps(_ count: Int) -> [HealthSample] {
        (0..<count).map { index in
            HealthSample(type: "stepCount", start: at(Double(index) * 60), end: at(Double(index) * 60 + 60),
                         value: .quantity(Double(index % 90), unit: "count"), source: phone)
        }
    }

    @Test(arguments: TestStores.kinds) func presentTypesAreTheSummariesTypes(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            #expect(try await store.presentTypes().isEmpty)
            let heart = HealthSample(type: "heartRate", start: at(0), end: at(0), value: .quantity(61, unit: "count/min"),
                                     source: Self.phone)
            try await store.save(Self.steps(50) + [heart])
            try await store.save(workouts: [HealthWorkout(activityType: "running", start: at(0), end: at(1_800),
                                                          source: Self.phone)])
            let present = try await store.presentTypes()
            #expect(present == ["heartRate", "stepCount", "workout"])
            #expect(present == Set(try await store.typeSummaries().map(\.type)))

            // A type whose samples were all deleted is interned still, but no longer present.
            try await store.delete(uuids: [heart.uuid])
            #expect(try await store.presentTypes() == ["stepCount", "workout"])
            #expect(try await store.presentTypes() == Set(try await store.typeSummaries().map(\.type)))
        }
    }

    /// SQLite only: its query plan (`EXPLAIN QUERY PLAN`).
    /// The query plan searches the scan indexes by type; it never scans the samples or the correlations.
    @Test func presentTypesProbesTheIndexesAndScansNoSamples() async throws {
        let store = try SQLiteHealthStore.inMemory()
        try await store.save(Self.steps(2_000))
        let plan = try await store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteHealthStore.presentTypesSQL).map { $0["detail"] as String }
        }
        #expect(!plan.contains { $0.hasPrefix("SCAN samples") || $0.hasPrefix("SCAN correlations") }, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH samples USING COVERING INDEX samples_scan (type_id=?)") }, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH correlations USING") && $0.contains("(type_id=?)") }, "\(plan)")
    }
}
