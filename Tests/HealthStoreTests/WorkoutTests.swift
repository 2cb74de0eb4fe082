import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct WorkoutTests {
    static let routeID = UUID(uuidString: "11111111-2222-3333-4444-555555555555")!

    static func run(start: Double = 0, activity: String = "running") -> HealthWorkout {
        var source = watchSource
        source.version = "10.1"
        return HealthWorkout(
            activityType: activity, start: at(start), end: at(start + 3600), duration: 3300, source: source,
            creationDate: at(start + 3700), metadata: ["HKIndoorWorkout": "0", "HKAverageMETs": "9.5 kcal/hr·kg"],
            utcOffset: 7200, timeZone: "Europe/Paris",
            totalDistance: .init(10.2, "km"), totalEnergyBurned: .init(650, "kcal"),
            events: [
                .init(type: "HKWorkoutEventTypeSegment", date: at(start), duration: 1000, metadata: ["lap": "1"]),
                .init(type: "HKWorkoutEventTypePause", date: at(start + 1200), duration: 300),
                .init(type: "HKWorkoutEventTypeResume", date: at(start + 1500)),
            ],
            statistics: [
                .init(type: "heartRate", start: at(start), end: at(start + 3600), average: 152, minimum: 98, maximum: 181,
                      unit: "count/min"),
                .init(type: "distanceWalkingRunning", start: at(start), end: at(start + 3600), sum: 10.2, unit: "km"),
            ],
            activities: [.init(uuid: "A1", start: at(start), end: at(start + 3600), duration: 3300, metadata: nil)],
            routes: [.init(uuid: routeID, start: at(start), end: at(start + 3600), sourceName: "Alex’s Apple Watch",
                           file: "/workout-routes/route_2024-05-01_9.00am.gpx", pointCount: 5,
                           metadata: ["HKMetadataKeySyncVersion": "2"])])
    }

    @Test(arguments: TestStores.kinds)
    func aWorkoutWithEventsStatisticsAndRoutesRoundTrips(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let workout = Self.run()
            #expect(try await store.save(workouts: [workout]) == SaveResult(inserted: 1))
            #expect(try await store.save(workouts: [workout]) == SaveResult(inserted: 0, replaced: 0, ignored: 1))

            let read = try #require(try await store.workout(workout.uuid))
            #expect(read == workout)
            #expect(read.events.count == 3)
            #expect(read.events[1].duration == 300)
            #expect(read.statistics.last?.sum == 10.2)
            #expect(read.routes.first?.uuid == Self.routeID)
            #expect(read.source.version == "10.1")
            #expect(read.duration == 3300)
            #expect(try await store.workout(UUID()) == nil)
            #expect(try await store.workouts(WorkoutQuery()) == [workout])
        }
    }

    @Test(arguments: TestStores.kinds) func workoutQueriesFilterByActivityAndDate(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store throws in
            let day = 86_400.0
            let run1 = Self.run(start: 0)
            let ride = Self.run(start: day, activity: "cycling")
            let yoga = Self.run(start: 2 * day, activity: "yoga")
            let run2 = Self.run(start: 3 * day)
            #expect(try await store.save(workouts: [yoga, run2, run1, ride]).inserted == 4)

            func uuids(_ query: WorkoutQuery) async throws -> [UUID] { try await store.workouts(query).map(\.uuid) }
            // Newest first by default.
            #expect(try await uuids(WorkoutQuery()) == [run2, yoga, ride, run1].map(\.uuid))
            #expect(try await uuids(WorkoutQuery(ascending: true)) == [run1, ride, yoga, run2].map(\.uuid))
            #expect(try await uuids(WorkoutQuery(activityTypes: ["running"])) == [run2.uuid, run1.uuid])
            #expect(try await uuids(WorkoutQuery(activityTypes: ["running", "yoga"], ascending: true))
                    == [run1, yoga, run2].map(\.uuid))
            #expect(try await uuids(WorkoutQuery(activityTypes: ["swimming"])).isEmpty)
            #expect(try await uuids(WorkoutQuery(limit: 1)) == [run2.uuid])
            // Overlap: the ride (day .. day+3600) and yoga (2day .. 2day+3600) overlap [day+1800, 2day+60).
            #expect(try await uuids(WorkoutQuery(start: at(day + 1800), end: at(2 * day + 60), ascending: true))
                    == [ride.uuid, yoga.uuid])
            // A workout ending exactly at the start is included; one starting exactly at the end is not.
            #expect(try await uuids(WorkoutQuery(start: at(3600), end: at(day))) == [run1.uuid])
            #expect(try await uuids(WorkoutQuery(activityTypes: ["cycling"], start: at(0), end: at(day))).isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds) func routePointsArePagedAndReplaced(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let points: [RoutePoint] = (0..<5).map { (i: Int) -> RoutePoint in
                let x = Double(i)
                let elevation: Double? = i == 2 ? nil : 35 + x
                let vertical: Double? = i == 4 ? nil : 2
                return RoutePoint(time: at(x * 10), latitude: 48.85 + x / 1000, longitude: 2.35, elevation: elevation,
                                  speed: 3.1, course: 90, horizontalAccuracy: 4, verticalAccuracy: vertical)
            }
            try await store.saveRoute(Self.routeID, points: points)
            #expect(try await store.routePoints(Self.routeID, offset: 0, limit: 2) == Array(points[0..<2]))
            #expect(try await store.routePoints(Self.routeID, offset: 2, limit: 2) == Array(points[2..<4]))
            #expect(try await store.routePoints(Self.routeID, offset: 4, limit: 2) == [points[4]])
            #expect(try await store.routePoints(Self.routeID, offset: 5, limit: 2).isEmpty)
            #expect(try await store.routePoints(Self.routeID, offset: 0, limit: 100) == points)
            #expect(try await store.routePoints(UUID(), offset: 0, limit: 100).isEmpty)
            #expect(try await store.routePoints(Self.routeID, offset: 0, limit: 100)[2].elevation == nil)

            // Saving a route again replaces its points.
            let replacement = Array(points[1..<4])
            try await store.saveRoute(Self.routeID, points: replacement)
            #expect(try await store.routePoints(Self.routeID, offset: 0, limit: 100) == replacement)
        }
    }

    /// Awkward doubles (-0.0, 1e-300, the largest finite value, 0.1 + 0.2) and absent values come back bit for bit.
    @Test(arguments: TestStores.kinds)
    func routePointsRoundTripBitForBit(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let points = RouteStorageTests.columns.points
            try await store.saveRoute(Self.routeID, points: points)
            let read = try await store.routePoints(Self.routeID, offset: 0, limit: 10)
            #expect(read == points)
            func bits(_ values: [Double?]) -> [UInt64?] { values.map { $0?.bitPattern } }
            #expect(bits(read.map(\.latitude)) == bits(points.map(\.latitude)))
            #expect(bits(read.map(\.longitude)) == bits(points.map(\.longitude)))
            #expect(bits(read.map(\.elevation)) == bits(points.map(\.elevation)))
            #expect(bits(read.map(\.speed)) == bits(points.map(\.speed)))
            #expect(bits(read.map(\.course)) == bits(points.map(\.course)))
            #expect(bits(read.map(\.horizontalAccuracy)) == bits(points.map(\.horizontalAccuracy)))
            #expect(bits(read.map(\.verticalAccuracy)) == bits(points.map(\.verticalAccuracy)))
            #expect(read.map(\.time) == points.map(\.time))
            #expect(read[1].elevation == nil && read[1].speed == nil && read[1].verticalAccuracy == nil)
        }
    }

    @Test(arguments: TestStores.kinds) func correlationsRoundTripWithTheirMembers(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let systolic = qty("bloodPressureSystolic", 0, 0, 120, unit: "mmHg", source: scaleSource)
            let diastolic = qty("bloodPressureDiastolic", 0, 0, 80, unit: "mmHg", source: scaleSource)
            let systolic2 = qty("bloodPressureSystolic", 86_400, 86_400, 118, unit: "mmHg", source: scaleSource)
            let diastolic2 = qty("bloodPressureDiastolic", 86_400, 86_400, 79, unit: "mmHg", source: scaleSource)
            _ = try await store.save([systolic, diastolic, systolic2, diastolic2])
            let first = HealthCorrelation(type: "bloodPressure", start: at(0), end: at(0), source: scaleSource,
                                          creationDate: at(30), metadata: ["HKWasUserEntered": "0"],
                                          members: [systolic.uuid, diastolic.uuid])
            let second = HealthCorrelation(type: "bloodPressure", start: at(86_400), end: at(86_400), source: scaleSource,
                                           members: [systolic2.uuid, diastolic2.uuid])
            #expect(try await store.save(correlations: [first, second]) == SaveResult(inserted: 2))
            #expect(try await store.save(correlations: [first]) == SaveResult(ignored: 1))

            let stored = try await store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil)
            #expect(stored == [second, first])  // newest first
            #expect(stored.last?.members == [systolic.uuid, diastolic.uuid])
            #expect(try await store.correlations(type: "bloodPressure", start: at(3600), end: nil, limit: nil) == [second])
            #expect(try await store.correlations(type: "bloodPressure", start: nil, end: at(3600), limit: nil) == [first])
            #expect(try await store.correlations(type: "bloodPressure", start: nil, end: nil, limit: 1) == [second])
            #expect(try await store.correlations(type: "food", start: nil, end: nil, limit: nil).isEmpty)

            // The members are ordinary samples, stored once.
            let members = try await all(store, "bloodPressureSystolic").map(\.uuid)
            #expect(members == [systolic.uuid, systolic2.uuid])
            #expect(try await store.delete(uuids: [first.uuid]) == 1)
            #expect(try await store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil) == [second])
            #expect(try await all(store, "bloodPressureSystolic").count == 2)
        }
    }

    @Test(arguments: TestStores.kinds) func documentsRoundTripByKind(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store throws in
            let day1 = HealthDocument(uuid: UUID(), kind: .activitySummary, start: at(0), end: at(86_400), sourceName: nil,
                                      json: #"{"activeEnergyBurned":"512.3","appleExerciseTime":"34"}"#)
            let day2 = HealthDocument(uuid: UUID(), kind: .activitySummary, start: at(86_400), end: at(172_800),
                                      sourceName: nil, json: #"{"activeEnergyBurned":"401"}"#)
            let me = HealthDocument(uuid: UUID(), kind: .me, start: nil, end: nil, sourceName: nil,
                                    json: #"{"HKCharacteristicTypeIdentifierBiologicalSex":"HKBiologicalSexFemale"}"#)
            let ecg = HealthDocument(uuid: UUID(), kind: .electrocardiogram, start: at(500), end: at(530),
                                     sourceName: "ECG", json: #"{"classification":"SinusRhythm","samples":[1,2,3]}"#)
            #expect(try await store.save(documents: [day1, day2, me, ecg]) == SaveResult(inserted: 4))
            #expect(try await store.save(documents: [me]) == SaveResult(ignored: 1))

            #expect(try await store.documents(kind: .activitySummary, start: nil, end: nil, limit: nil) == [day2, day1])
            #expect(try await store.documents(kind: .activitySummary, start: nil, end: nil, limit: 1) == [day2])
            #expect(try await store.documents(kind: .activitySummary, start: at(90_000), end: nil, limit: nil) == [day2])
            #expect(try await store.documents(kind: .activitySummary, start: nil, end: at(86_400), limit: nil) == [day1])
            #expect(try await store.documents(kind: .me, start: nil, end: nil, limit: nil) == [me])
            #expect(try await store.documents(kind: .electrocardiogram, start: nil, end: nil, limit: nil) == [ecg])
            #expect(try await store.documents(kind: .audiogram, start: nil, end: nil, limit: nil).isEmpty)
        }
    }
}
