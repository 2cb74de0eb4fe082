import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct DeleteTests {
    @Test(arguments: TestStores.kinds) func deletingByUUIDLeavesATombstone(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let a = qty(0, 60, 10), b = qty(60, 120, 20), c = qty(120, 180, 30)
            _ = try await store.save([a, b, c])
            let before = try await store.currentAnchor()
            #expect(before == 3)

            let deleted = try await store.delete(uuids: [b.uuid, UUID()])  // an unknown UUID is skipped
            #expect(deleted == 1)
            #expect(try await store.currentAnchor() == 4)
            #expect(try await all(store).map(\.uuid) == [a.uuid, c.uuid])

            let changes = try await store.changes(since: before, types: nil, limit: 100)
            #expect(changes.added.isEmpty)
            #expect(changes.deleted.map(\.uuid) == [b.uuid])
            #expect(changes.deleted.first?.type == "stepCount")
            #expect(changes.deleted.first?.anchor == 4)
            #expect(changes.deleted.first?.syncIdentifier == nil)
            #expect(changes.anchor == 4)

            // Deleting again does nothing and does not move the anchor.
            #expect(try await store.delete(uuids: [b.uuid]) == 0)
            #expect(try await store.currentAnchor() == 4)
            #expect(try await store.delete(uuids: []) == 0)
        }
    }

    @Test(arguments: TestStores.kinds)
    func deletingMatchingATypeAndRangeTakesOnlyThoseSamples(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let early = qty(0, 60, 1)
            let inside1 = qty(100, 160, 2)
            let inside2 = qty(200, 260, 3)
            let late = qty(400, 460, 4)
            let otherType = qty("flightsClimbed", 100, 160, 5)
            _ = try await store.save([early, inside1, inside2, late, otherType])
            let before = try await store.currentAnchor()

            let count = try await store.delete(matching: SampleQuery(type: "stepCount", start: at(100), end: at(300),
                                                                     matching: .strictStartDate))
            #expect(count == 2)
            #expect(try await all(store).map(\.uuid) == [early.uuid, late.uuid])
            #expect(try await all(store, "flightsClimbed").map(\.uuid) == [otherType.uuid])
            let tombstones = try await store.changes(since: before, types: nil, limit: 100).deleted
            #expect(Set(tombstones.map(\.uuid)) == [inside1.uuid, inside2.uuid])
            #expect(try await store.currentAnchor() == before + 2)

            // A type with no samples deletes nothing.
            #expect(try await store.delete(matching: SampleQuery(type: "heartRate")) == 0)
        }
    }

    @Test(arguments: TestStores.kinds)
    func deletingMatchingAMetadataKeyWithAllowedValues(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let manual = qty(0, 60, 1, metadata: ["origin": "manual"])
            let imported = qty(60, 120, 2, metadata: ["origin": "import"])
            let synced = qty(120, 180, 3, metadata: ["origin": "sync"])
            let plain = qty(180, 240, 4)
            _ = try await store.save([manual, imported, synced, plain])

            let count = try await store.delete(matching: SampleQuery(type: "stepCount", metadataKey: "origin",
                                                                     metadataValues: ["manual", "sync", "absent"]))
            #expect(count == 2)
            #expect(try await all(store).map(\.uuid) == [imported.uuid, plain.uuid])
        }
    }

    @Test(arguments: TestStores.kinds) func deletingMatchingAMetadataKeyByPresence(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let userEntered = qty(0, 60, 1, metadata: [MetadataKey.wasUserEntered: "1"])
            let other = qty(60, 120, 2, metadata: ["HKMetadataKeyOther": "1"])
            let plain = qty(120, 180, 3)
            let userEnteredZero = qty(180, 240, 4, metadata: [MetadataKey.wasUserEntered: "0"])
            _ = try await store.save([userEntered, other, plain, userEnteredZero])

            let count = try await store.delete(matching: SampleQuery(type: "stepCount", metadataKey: MetadataKey.wasUserEntered))
            #expect(count == 2)
            #expect(try await all(store).map(\.uuid) == [other.uuid, plain.uuid])
        }
    }

    @Test(arguments: TestStores.kinds)
    func metadataAndSourceFiltersAlsoApplyToQueries(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let a = qty(0, 60, 1, source: watchSource, metadata: ["origin": "manual"])
            let b = qty(60, 120, 2, source: phoneSource, metadata: ["origin": "manual"])
            let c = qty(120, 180, 3, source: watchSource, metadata: ["origin": "sync"])
            _ = try await store.save([a, b, c])
            let query = SampleQuery(type: "stepCount", sources: [watchSource.name], metadataKey: "origin",
                                    metadataValues: ["manual"])
            #expect(try await store.samples(query).samples.map(\.uuid) == [a.uuid])
            #expect(try await store.delete(matching: query) == 1)
            #expect(try await all(store).map(\.uuid) == [b.uuid, c.uuid])
        }
    }

    @Test(arguments: TestStores.kinds) func deletingAWorkoutLeavesAWorkoutTombstone(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let run = HealthWorkout(activityType: "running", start: at(0), end: at(1800), source: watchSource)
            _ = try await store.save(workouts: [run])
            let before = try await store.currentAnchor()
            #expect(try await store.delete(uuids: [run.uuid]) == 1)
            #expect(try await store.workout(run.uuid) == nil)
            let changes = try await store.changes(since: before, types: nil, limit: 10)
            #expect(changes.deleted.map(\.uuid) == [run.uuid])
            #expect(changes.deleted.first?.type == "workout")
            #expect(try await store.changes(since: before, types: ["workout"], limit: 10).deleted.map(\.uuid) == [run.uuid])
            #expect(try await store.changes(since: before, types: ["stepCount"], limit: 10).deleted.isEmpty)
        }
    }
}
