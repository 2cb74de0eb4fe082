import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct SyncIdentifierTests {
    @Test(arguments: TestStores.kinds)
    func aGreaterVersionFromTheSameSourceReplacesTheOlderObject(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let v1 = synced("weigh-in-1", version: 1, value: 70)
            #expect(try await store.save([v1]) == SaveResult(inserted: 1))
            let before = try await store.currentAnchor()
            #expect(before == 1)

            let v2 = synced("weigh-in-1", version: 2, value: 71.5, start: 30, end: 90)
            #expect(v2.uuid != v1.uuid)
            let result = try await store.save([v2])
            #expect(result == SaveResult(inserted: 0, replaced: 1, ignored: 0))

            let stored = try await all(store, "bodyMass")
            #expect(stored.map(\.uuid) == [v2.uuid])
            #expect(stored.first?.value == .quantity(71.5, unit: "kg"))
            #expect(stored.first?.syncVersion == 2)

            // One tombstone (anchor 2) and one addition (anchor 3).
            #expect(try await store.currentAnchor() == 3)
            let changes = try await store.changes(since: before, types: nil, limit: 100)
            #expect(changes.added.map(\.uuid) == [v2.uuid])
            #expect(changes.deleted.count == 1)
            let tombstone = try #require(changes.deleted.first)
            #expect(tombstone.uuid == v1.uuid)
            #expect(tombstone.type == "bodyMass")
            #expect(tombstone.syncIdentifier == "weigh-in-1")
            #expect(tombstone.syncVersion == 1)
            #expect(tombstone.anchor == 2)
            #expect(changes.anchor == 3)
            #expect(!changes.hasMore)

            // A third version replaces the second in turn.
            #expect(try await store.save([synced("weigh-in-1", version: 7, value: 72)]).replaced == 1)
            #expect(try await all(store, "bodyMass").map(\.value) == [.quantity(72, unit: "kg")])
            let later = try await store.changes(since: 3, types: nil, limit: 100)
            #expect(later.deleted.map(\.uuid) == [v2.uuid])
            #expect(later.deleted.first?.syncVersion == 2)
        }
    }

    @Test(arguments: TestStores.kinds) func anEqualOrLowerVersionIsIgnored(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let v5 = synced("w", version: 5, value: 80)
            _ = try await store.save([v5])
            let anchor = try await store.currentAnchor()

            let equal = try await store.save([synced("w", version: 5, value: 81)])
            #expect(equal == SaveResult(inserted: 0, replaced: 0, ignored: 1))
            let lower = try await store.save([synced("w", version: 4, value: 82)])
            #expect(lower == SaveResult(inserted: 0, replaced: 0, ignored: 1))

            #expect(try await all(store, "bodyMass").map(\.uuid) == [v5.uuid])
            #expect(try await all(store, "bodyMass").first?.value == .quantity(80, unit: "kg"))
            #expect(try await store.currentAnchor() == anchor)
            let changes = try await store.changes(since: anchor, types: nil, limit: 10)
            #expect(changes.added.isEmpty && changes.deleted.isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds)
    func theSameSyncIdentifierFromAnotherSourceIsASeparateObject(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let fromApp = synced("shared-id", version: 3, value: 70, source: appSource)
            let fromScale = synced("shared-id", version: 1, value: 69, source: scaleSource)
            #expect(try await store.save([fromApp]).inserted == 1)
            #expect(try await store.save([fromScale]) == SaveResult(inserted: 1, replaced: 0, ignored: 0))
            let stored = try await all(store, "bodyMass")
            #expect(Set(stored.map(\.uuid)) == [fromApp.uuid, fromScale.uuid])

            // A newer version from the scale replaces only the scale's object.
            let scaleV2 = synced("shared-id", version: 2, value: 68, source: scaleSource)
            #expect(try await store.save([scaleV2]).replaced == 1)
            #expect(Set(try await all(store, "bodyMass").map(\.uuid)) == [fromApp.uuid, scaleV2.uuid])
        }
    }

    @Test(arguments: TestStores.kinds) func versionsInsideOneBatchResolveInOrder(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let result = try await store.save([
                synced("b", version: 1, value: 1), synced("b", version: 3, value: 3), synced("b", version: 2, value: 2),
            ])
            #expect(result == SaveResult(inserted: 1, replaced: 1, ignored: 1))
            #expect(try await all(store, "bodyMass").map(\.value) == [.quantity(3, unit: "kg")])
        }
    }
}
