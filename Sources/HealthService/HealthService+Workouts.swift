import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

extension HealthService {
    struct WorkoutsState: Codable {
        var start: Date
        var end: Date
        var ascending: Bool
        var limit: Int
        var offset: Int
        var types: [String]?
        var timeZone: String
    }

    /// Workouts in a range, newest first unless `ascending`, of the given activity types. Nothing when this
    /// principal may not read workouts.
    public func workouts(_ request: WorkoutsRequest) async throws -> WorkoutsResult {
        var state: WorkoutsState
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: WorkoutsState.self, use: "workouts")
            guard (1...WorkoutsRequest.maxLimit).contains(state.limit), (0...10_000_000).contains(state.offset),
                  state.end >= state.start else { throw ServiceCursor.invalid("workouts") }
            if let limit = request.limit {
                state.limit = try Self.limit(limit, default: state.limit, range: 1...WorkoutsRequest.maxLimit)
            }
        } else {
            let zoned = try self.zoned(request.timeZone)
            let range = try zoned.range(start: request.start, end: request.end, defaultStart: "30d")
            state = WorkoutsState(start: range.start, end: range.end, ascending: request.ascending ?? false,
                                  limit: try Self.limit(request.limit, default: 50, range: 1...WorkoutsRequest.maxLimit),
                                  offset: 0, types: try Self.activityTypes(Self.list(request.activityTypes)),
                                  timeZone: zoned.homeTimeZone.identifier)
        }
        let service = try zoned(state.timeZone)
        var result = WorkoutsResult(timeZone: state.timeZone, start: service.iso(state.start), end: service.iso(state.end),
                                    count: 0, workouts: [], hasMore: false)
        guard try await authorizeRead(["workout"]) else { return result }
        let routes = try await grants(for: principal).read.allows(Self.workoutRouteType)
        let fetched = try await store.workouts(WorkoutQuery(activityTypes: state.types, start: state.start, end: state.end,
                                                            limit: state.offset + state.limit + 1,
                                                            ascending: state.ascending))
        result.workouts = fetched.dropFirst(state.offset).prefix(state.limit).map { service.workoutRecord($0, routes: routes) }
        result.count = result.workouts.count
        let whole = fetched.count <= state.offset + state.limit && state.offset == 0
            ? fetched
            : try await store.workouts(WorkoutQuery(activityTypes: state.types, start: state.start, end: state.end))
        result.totals = WorkoutTotals(whole.map { service.workoutRecord($0, routes: false) })
        if fetched.count > state.offset + result.count {
            state.offset += result.count
            result.hasMore = true
            result.nextCursor = ServiceCursor.encode(state, use: "workouts")
        }
        return result
    }

    /// One workout: statistics, events, metadata, its route's summary and a page of route points.
    /// `HEALTH_NOT_FOUND` for an unknown uuid (or one this principal may not read). The route is a type of its own
    /// (HealthKit's `HKSeriesType.workoutRoute()`): without a `workoutRoute` read grant the workout looks exactly like
    /// one without a route (no summary, no points, `route_point_count` 0), never an error.
    public func workout(_ request: WorkoutRequest) async throws -> WorkoutDetail {
        let service = try zoned(request.timeZone)
        guard let text = DateRange.nonEmpty(request.uuid)?.trimmingCharacters(in: .whitespaces) else {
            throw HealthError(.invalidArgument, "uuid is required: a workout uuid from the workouts list")
        }
        guard let uuid = UUID(uuidString: text) else {
            throw HealthError(.invalidArgument, "uuid '\(text)' is not a UUID; take one from the workouts list")
        }
        let offset = try Self.limit(request.routeOffset, name: "route_offset", default: 0, range: 0...10_000_000)
        let limit = try Self.limit(request.routeLimit, name: "route_limit", default: 100, range: 0...WorkoutRequest.maxRouteLimit)
        guard try await authorizeRead(["workout"]), let workout = try await store.workout(uuid) else {
            throw HealthError(.notFound, "no workout has uuid \(text); the workouts list gives the uuids")
        }
        let routes = try await grants(for: principal).read.allows(Self.workoutRouteType)
        var detail = WorkoutDetail(
            workout: service.workoutRecord(workout, routes: routes), timeZone: service.homeTimeZone.identifier,
            metadata: workout.metadata,
            events: workout.events.map { WorkoutDetail.Event(type: Self.eventNames[$0.type] ?? $0.type,
                                                              date: service.iso($0.date), durationSeconds: $0.duration) },
            statistics: workout.statistics.map {
                WorkoutDetail.Statistic(type: SampleTypeRegistry.shortIdentifier($0.type), sum: $0.sum, average: $0.average,
                                        min: $0.minimum, max: $0.maximum, unit: $0.unit.map(Self.wireUnit))
            },
            route: nil, routePoints: [], routeOffset: offset)
        if routes, let route = workout.routes.first {
            // The summary reads every point as columns; only the page's points become values.
            let all = try await bulk.routeColumns(route.uuid, offset: 0, limit: .max)
            detail.route = service.routeSummary(RouteSummary(all), route: route)
            let end = min(all.count, offset + limit)
            if offset < end {
                detail.routePoints = (offset..<end).map { index in
                    let point = all[index]
                    return WorkoutDetail.RoutePointRecord(time: service.iso(point.time), latitude: point.latitude,
                                                          longitude: point.longitude, elevationM: point.elevation,
                                                          speedMps: point.speed)
                }
            }
            if limit > 0, end < all.count { detail.nextRouteOffset = max(end, offset) }
        }
        return detail
    }

    static let eventNames = ["HKWorkoutEventTypePause": "pause", "HKWorkoutEventTypeResume": "resume",
                             "HKWorkoutEventTypeLap": "lap", "HKWorkoutEventTypeMarker": "marker",
                             "HKWorkoutEventTypeMotionPaused": "motionPaused",
                             "HKWorkoutEventTypeMotionResumed": "motionResumed", "HKWorkoutEventTypeSegment": "segment"]

    /// The grant name of workout routes (HealthKit's `HKSeriesType.workoutRoute()`), apart from `workout`.
    static let workoutRouteType = "workoutRoute"

    /// A workout as lists give it; `routes` false (no `workoutRoute` read grant) counts no route points, as for a
    /// workout recorded without a route.
    func workoutRecord(_ workout: HealthWorkout, routes: Bool) -> WorkoutRecord {
        WorkoutRecord(uuid: workout.uuid.uuidString, activityType: workout.activityType, start: iso(workout.start),
                      end: iso(workout.end), durationMinutes: Self.minutes(workout.duration),
                      distanceKm: Self.distanceKm(workout), energyKcal: Self.energyKcal(workout),
                      source: workout.source.name,
                      routePointCount: routes ? workout.routes.reduce(0) { $0 + $1.pointCount } : 0)
    }

    static func converted(_ measurement: HealthWorkout.Measurement?, to unit: String) -> Double? {
        guard let measurement else { return nil }
        return try? HealthUnit.parse(measurement.unit).convert(measurement.value, to: HealthUnit.parse(unit))
    }

    /// The workout's distance in km: its own total when it has one, else its distance statistic.
    static func distanceKm(_ workout: HealthWorkout) -> Double? {
        if let total = converted(workout.totalDistance, to: "km") { return total }
        guard let statistic = workout.statistics.first(where: { SampleTypeRegistry.shortIdentifier($0.type).hasPrefix("distance") }),
              let sum = statistic.sum else { return nil }
        return converted(.init(sum, statistic.unit ?? "m"), to: "km")
    }

    /// The workout's active energy in kcal: its own total when it has one, else its active energy statistic.
    static func energyKcal(_ workout: HealthWorkout) -> Double? {
        if let total = converted(workout.totalEnergyBurned, to: "kcal") { return total }
        guard let statistic = workout.statistics.first(where: { SampleTypeRegistry.shortIdentifier($0.type) == "activeEnergyBurned" }),
              let sum = statistic.sum else { return nil }
        return converted(.init(sum, statistic.unit ?? "kcal"), to: "kcal")
    }

    /// Activity type names as the store keeps them, from any accepted spelling; unknown names list close matches.
    static func activityTypes(_ names: [String]?) throws(HealthError) -> [String]? {
        guard let names else { return nil }
        return try names.map { name throws(HealthError) in
            if let type = WorkoutActivityType.named(name) { return type.name }
            let folded = name.lowercased()
            let close = WorkoutActivityType.all.map(\.name).filter {
                $0.lowercased().contains(folded) || folded.contains($0.lowercased())
            }.prefix(5)
            throw HealthError(.invalidArgument,
                              "unknown activity type '\(name)'\(close.isEmpty ? "" : "; did you mean \(close.joined(separator: ", "))?") (HealthKit names such as running, walking, cycling, swimming, hiking, yoga, traditionalStrengthTraining)")
        }
    }

    /// The engine's route summary in the result's units and zone.
    func routeSummary(_ summary: RouteSummary, route: HealthWorkout.Route) -> WorkoutDetail.RouteSummary {
        var result = WorkoutDetail.RouteSummary(
            pointCount: summary.pointCount,
            start: iso(summary.start.map(Date.init(timeIntervalSince1970:)) ?? route.start),
            end: iso(summary.end.map(Date.init(timeIntervalSince1970:)) ?? route.end))
        guard summary.pointCount > 0 else { return result }
        result.distanceKm = summary.distanceMeters / 1000
        result.elevationGainM = summary.elevationGainMeters
        result.minElevationM = summary.minElevationMeters
        result.maxElevationM = summary.maxElevationMeters
        result.averageSpeedMps = summary.averageSpeedMetersPerSecond
        result.paceMinPerKm = summary.paceMinutesPerKilometer
        result.bounds = summary.bounds.map {
            WorkoutDetail.RouteSummary.Bounds(minLatitude: $0.minLatitude, maxLatitude: $0.maxLatitude, minLongitude: $0.minLongitude,
                  maxLongitude: $0.maxLongitude)
        }
        return result
    }
}
