import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct ChangeNotificationTests {
    @Test(arguments: TestStores.kinds)
    func aSaveInTheSameProcessIsAnnouncedWithItsTypes(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let stream = store.changeNotifications()
            _ = try await store.save([qty(0, 60, 1), qty("heartRate", 0, 0, 60, unit: "count/min", source: watchSource)])
            let note = await notification(on: stream, containing: "stepCount", within: 10)
            #expect(note == ChangeNotification(types: ["stepCount", "heartRate"], anchor: 2))

            // Deletes are announced too.
            let deletes = store.changeNotifications()
            _ = try await store.delete(uuids: [qty(0, 60, 1).uuid])
            #expect(await notification(on: deletes, containing: "stepCount", within: 10)
                    == ChangeNotification(types: ["stepCount"], anchor: 3))

            let workouts = store.changeNotifications()
            _ = try await store.save(workouts: [HealthWorkout(activityType: "yoga", start: at(0), end: at(60), source: phoneSource)])
            #expect(await notification(on: workouts, containing: "workout", within: 10)?.anchor == 4)
        }
    }

    /// SQLite: two instances on one file; PostgreSQL: two stores on one schema (LISTEN/NOTIFY between them).
    @Test(arguments: TestStores.kinds)
    func aSaveThroughASecondInstanceOnTheSameStoreIsNoticed(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            let first = try await place.open()
            let second = try await place.open()  // stands in for another process

            let stream = first.changeNotifications()
            _ = try await second.save([qty("heartRate", 0, 0, 61, unit: "count/min", source: watchSource)])
            let note = await notification(on: stream, containing: "heartRate", within: 10)
            #expect(note?.types == ["heartRate"])
            #expect(note?.anchor == 1)

            // The first instance reads what the second one wrote.
            #expect(try await all(first, "heartRate").count == 1)

            // A delete through the second instance is noticed as well.
            let deletes = first.changeNotifications()
            _ = try await second.delete(uuids: [qty("heartRate", 0, 0, 61, unit: "count/min", source: watchSource).uuid])
            let deleted = await notification(on: deletes, containing: "heartRate", within: 10)
            #expect(deleted?.anchor == 2)
        }
    }
}
