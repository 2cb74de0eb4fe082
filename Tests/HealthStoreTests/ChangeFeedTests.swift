import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct ChangeFeedTests {
    /// Builds a store whose change sequence is (anchor: change)
    /// 1 s1, 2 s2, 3 s3, 4 s4, 5 s5 (stepCount) · 6 w1 (workout) · 7 delete s2 · 8 h1, 9 h2, 10 h3 (heartRate)
    /// · 11 w2 · 12 delete h1.
    struct Fixture {
        let store: any HealthStore
        let steps: [HealthSample]
        let hearts: [HealthSample]
        let w1: HealthWorkout
        let w2: HealthWorkout
    }

    static func fixture(_ store: any HealthStore) async throws -> Fixture {
        let steps = (0..<5).map { qty(Double($0) * 60, Double($0) * 60 + 60, Double($0 + 1) * 10) }
        let hearts = (0..<3).map { qty("heartRate", Double($0) * 10, Double($0) * 10, 60 + Double($0), unit: "count/min",
                                       source: watchSource) }
        let w1 = HealthWorkout(activityType: "running", start: at(0), end: at(1800), source: watchSource)
        let w2 = HealthWorkout(activityType: "cycling", start: at(3600), end: at(7200), source: watchSource)
        _ = try await store.save(steps)
        _ = try await store.save(workouts: [w1])
        _ = try await store.delete(uuids: [steps[1].uuid])
        _ = try await store.save(hearts)
        _ = try await store.save(workouts: [w2])
        _ = try await store.delete(uuids: [hearts[0].uuid])
        return Fixture(store: store, steps: steps, hearts: hearts, w1: w1, w2: w2)
    }

    @Test(arguments: TestStores.kinds)
    func theAnchorIsMonotonicAcrossSavesAndDeletes(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            var anchors: [Int64] = [try await store.currentAnchor()]
            _ = try await store.save([qty(0, 60, 1), qty(60, 120, 2), qty(120, 180, 3)])
            anchors.append(try await store.currentAnchor())
            _ = try await store.save([qty(0, 60, 1)])  // ignored: no change
            anchors.append(try await store.currentAnchor())
            _ = try await store.delete(uuids: [qty(60, 120, 2).uuid])
            anchors.append(try await store.currentAnchor())
            _ = try await store.save([synced("s", version: 1, value: 1)])
            anchors.append(try await store.currentAnchor())
            _ = try await store.save([synced("s", version: 2, value: 2)])  // tombstone + insert
            anchors.append(try await store.currentAnchor())
            _ = try await store.save(workouts: [HealthWorkout(activityType: "yoga", start: at(0), end: at(60), source: phoneSource)])
            anchors.append(try await store.currentAnchor())
            _ = try await store.delete(matching: SampleQuery(type: "stepCount"))  // two samples left
            anchors.append(try await store.currentAnchor())
            try await store.setSetting("k", "v")  // settings are not changes
            anchors.append(try await store.currentAnchor())
            #expect(anchors == [0, 3, 3, 4, 5, 7, 8, 10, 10])
        }
    }

    @Test(arguments: TestStores.kinds) func changesSinceNilReturnsEverythingStored(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let f = try await Self.fixture(store)
            let changes = try await f.store.changes(since: nil, types: nil, limit: 1000)
            #expect(changes.added.map(\.uuid) == [f.steps[0], f.steps[2], f.steps[3], f.steps[4], f.hearts[1], f.hearts[2]].map(\.uuid))
            #expect(changes.addedWorkouts == [f.w1, f.w2])
            #expect(changes.deleted.map(\.uuid) == [f.steps[1].uuid, f.hearts[0].uuid])
            #expect(changes.deleted.map(\.anchor) == [7, 12])
            #expect(changes.deleted.map(\.type) == ["stepCount", "heartRate"])
            #expect(changes.anchor == 12)
            #expect(!changes.hasMore)
            #expect(try await f.store.currentAnchor() == 12)

            // Nothing after the current anchor.
            let none = try await f.store.changes(since: 12, types: nil, limit: 10)
            #expect(none.added.isEmpty && none.addedWorkouts.isEmpty && none.deleted.isEmpty)
            #expect(none.anchor == 12)
            #expect(!none.hasMore)
        }
    }

    /// Page sizes and the anchors their pages end at.
    static let pagings: [(limit: Int, expectedAnchors: [Int64])] = [
        (1, [1, 3, 4, 5, 6, 7, 9, 10, 11, 12]),
        (2, [3, 5, 7, 10, 12]),
        (3, [4, 7, 11, 12]),
        (5, [6, 12]),
        (10, [12]),
    ]

    @Test(arguments: TestStores.kinds, pagings)
    func pagingWalksEveryChangeExactlyOnceInOrder(kind: TestStoreKind,
                                                  paging: (limit: Int, expectedAnchors: [Int64])) async throws {
        let (limit, expectedAnchors) = paging
        try await TestStores.withStore(kind) { store in
            let f = try await Self.fixture(store)
            let pages = try await allChangePages(f.store, since: nil, limit: limit)
            #expect(pages.map(\.anchor) == expectedAnchors)
            #expect(pages.map(\.hasMore) == Array(repeating: true, count: expectedAnchors.count - 1) + [false])
            for page in pages {
                #expect(page.added.count + page.addedWorkouts.count + page.deleted.count <= limit)
            }
            #expect(pages.flatMap(\.added).map(\.uuid)
                    == [f.steps[0], f.steps[2], f.steps[3], f.steps[4], f.hearts[1], f.hearts[2]].map(\.uuid))
            #expect(pages.flatMap(\.addedWorkouts).map(\.uuid) == [f.w1.uuid, f.w2.uuid])
            #expect(pages.flatMap(\.deleted).map(\.uuid) == [f.steps[1].uuid, f.hearts[0].uuid])
        }
    }

    @Test(arguments: TestStores.kinds) func pagingFromAnAnchorStartsAfterIt(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let f = try await Self.fixture(store)
            let pages = try await allChangePages(f.store, since: 6, limit: 2)
            #expect(pages.map(\.anchor) == [9, 11, 12])
            #expect(pages[0].deleted.map(\.uuid) == [f.steps[1].uuid])
            #expect(pages[0].added.map(\.uuid) == [f.hearts[1].uuid])
            #expect(pages[1].added.map(\.uuid) == [f.hearts[2].uuid])
            #expect(pages[1].addedWorkouts.map(\.uuid) == [f.w2.uuid])
            #expect(pages[2].deleted.map(\.uuid) == [f.hearts[0].uuid])
        }
    }

    @Test(arguments: TestStores.kinds) func theTypeFilterKeepsOnlyThoseTypes(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let f = try await Self.fixture(store)
            let hearts = try await f.store.changes(since: nil, types: ["heartRate"], limit: 100)
            #expect(hearts.added.map(\.uuid) == [f.hearts[1].uuid, f.hearts[2].uuid])
            #expect(hearts.deleted.map(\.uuid) == [f.hearts[0].uuid])
            #expect(hearts.addedWorkouts.isEmpty)
            #expect(!hearts.hasMore)

            let workouts = try await f.store.changes(since: nil, types: ["workout"], limit: 100)
            #expect(workouts.added.isEmpty && workouts.deleted.isEmpty)
            #expect(workouts.addedWorkouts.map(\.uuid) == [f.w1.uuid, f.w2.uuid])

            let stepsAndWorkouts = try await f.store.changes(since: nil, types: ["stepCount", "workout"], limit: 100)
            #expect(stepsAndWorkouts.added.map(\.uuid) == [f.steps[0], f.steps[2], f.steps[3], f.steps[4]].map(\.uuid))
            #expect(stepsAndWorkouts.deleted.map(\.uuid) == [f.steps[1].uuid])
            #expect(stepsAndWorkouts.addedWorkouts.count == 2)

            let unknown = try await f.store.changes(since: nil, types: ["vo2Max"], limit: 100)
            #expect(unknown.added.isEmpty && unknown.deleted.isEmpty && unknown.addedWorkouts.isEmpty)
            #expect(!unknown.hasMore)

            // Paging with a filter: stepCount changes are at anchors 1, 3, 4, 5 and 7.
            let pages = try await allChangePages(f.store, since: nil, types: ["stepCount"], limit: 2)
            #expect(pages.map(\.anchor) == [3, 5, 12])
            #expect(pages.map(\.hasMore) == [true, true, false])
            #expect(pages.flatMap(\.added).count == 4)
            #expect(pages.flatMap(\.deleted).map(\.uuid) == [f.steps[1].uuid])
            #expect(pages.allSatisfy { $0.addedWorkouts.isEmpty })
        }
    }

    @Test(arguments: TestStores.kinds) func workoutsInTheFeedRoundTrip(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let f = try await Self.fixture(store)
            let changes = try await f.store.changes(since: 5, types: nil, limit: 1)
            #expect(changes.addedWorkouts == [f.w1])
            #expect(changes.anchor == 6)
            #expect(changes.hasMore)
        }
    }

    @Test(arguments: TestStores.kinds)
    func changesWrittenByAnotherInstanceKeepTheirUnits(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            let server = try await place.open()
            let importer = try await place.open()  // stands in for another process
            let distance = "distanceWalkingRunning"
            _ = try await server.save([qty(distance, 0, 60, 80, unit: "m")])
            let anchor = try await server.currentAnchor()
            // Warm the server's caches: it now knows the type, the source and the unit "m".
            #expect(try await server.changes(since: nil, types: nil, limit: 10).added.count == 1)

            // The other instance saves the same type from the same source in a unit the server has never seen.
            let km = qty(distance, 60, 120, 1.5, unit: "km")
            _ = try await importer.save([km])

            let changes = try await server.changes(since: anchor, types: nil, limit: 10)
            #expect(changes.added.map(\.uuid) == [km.uuid])
            let value = changes.added.first?.value
            #expect(value == .quantity(1.5, unit: "km"))
            // Plain queries agree.
            #expect(try await all(server, distance).last?.value == .quantity(1.5, unit: "km"))
        }
    }
}
