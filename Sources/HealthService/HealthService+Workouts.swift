import Foundation
import HealthEngine
import HealthModel
import HealthStore

/// Workouts between two dates.
///
/// ```swift
/// let runs = try await service.workouts(WorkoutsRequest(activityTypes: ["running"], limit: 1))
/// ```
public struct WorkoutsRequest: Codable, Sendable, Hashable {
    /// HealthKit activity names (`running`, `walking`, `cycling`, …), any case.
    public var activityTypes: [String]?
    /// Default `30d`.
    public var start: String?
    public var end: String?
    /// 1…500, default 50.
    public var limit: Int?
    public var ascending: Bool?
    public var timeZone: String?
    public var cursor: String?

    public init(activityTypes: [String]? = nil, start: String? = nil, end: String? = nil, limit: Int? = nil,
                ascending: Bool? = nil, timeZone: String? = nil, cursor: String? = nil) {
        self.activityTypes = activityTypes; self.start = start; self.end = end; self.limit = limit
        self.ascending = ascending; self.timeZone = timeZone; self.cursor = cursor
    }

    public static let maxLimit = 500
}

public struct WorkoutsResult: Codable, Sendable, Hashable {
    public var timeZone: String
    public var start: String
    public var end: String
    public var count: Int
    public var workouts: [WorkoutRecord]
    public var hasMore: Bool
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case timeZone = "time_zone", start, end, count, workouts, hasMore = "has_more", nextCursor = "next_cursor"
    }
}

/// A workout in a list.
public struct WorkoutRecord: Codable, Sendable, Hashable {
    public var uuid: String
    public var activityType: String
    public var start: String
    public var end: String
    /// Active time (pauses excluded), to a tenth of a minute.
    public var durationMinutes: Double
    public var distanceKm: Double?
    /// Active energy.
    public var energyKcal: Double?
    public var source: String
    /// GPS points recorded (0: no route).
    public var routePointCount: Int

    /// Average pace over the active time, whole seconds per kilometre; nil without a distance of at least 10 m or
    /// a duration, or when slower than 100 h/km (not a pace worth showing).
    public var paceSecondsPerKm: Int? {
        guard let km = distanceKm, km > 0.01, durationMinutes > 0 else { return nil }
        guard let seconds = (durationMinutes * 60 / km).checkedInt(), seconds < 100 * 3600 else { return nil }
        return seconds
    }

    enum CodingKeys: String, CodingKey {
        case uuid, activityType = "activity_type", start, end, durationMinutes = "duration_minutes"
        case distanceKm = "distance_km", energyKcal = "energy_kcal", source, routePointCount = "route_point_count"
    }
}

/// One workout in detail.
public struct WorkoutRequest: Codable, Sendable, Hashable {
    public var uuid: String?
    /// First route point to return (default 0).
    public var routeOffset: Int?
    /// Route points to return, 0…5,000 (default 100; 0 for the summary only).
    public var routeLimit: Int?
    public var timeZone: String?

    public init(uuid: String? = nil, routeOffset: Int? = nil, routeLimit: Int? = nil, timeZone: String? = nil) {
        self.uuid = uuid; self.routeOffset = routeOffset; self.routeLimit = routeLimit; self.timeZone = timeZone
    }

    public static let maxRouteLimit = 5_000
}

public struct WorkoutDetail: Codable, Sendable, Hashable {
    public var workout: WorkoutRecord
    public var timeZone: String
    public var metadata: [String: String]
    public var events: [Event]
    public var statistics: [Statistic]
    public var route: RouteSummary?
    public var routePoints: [RoutePointRecord]
    public var routeOffset: Int
    /// Present when more route points follow: pass it as `routeOffset`.
    public var nextRouteOffset: Int?

    public struct Event: Codable, Sendable, Hashable {
        /// pause, resume, lap, marker, motionPaused, motionResumed, segment.
        public var type: String
        public var date: String
        public var durationSeconds: Double?
        enum CodingKeys: String, CodingKey { case type, date, durationSeconds = "duration_seconds" }
    }

    public struct Statistic: Codable, Sendable, Hashable {
        public var type: String
        public var sum: Double?
        public var average: Double?
        public var min: Double?
        public var max: Double?
        public var unit: String?
    }

    /// The route as a whole: distance along the track, elevation gain (5 m hysteresis), bounds, pace.
    public struct RouteSummary: Codable, Sendable, Hashable {
        public var pointCount: Int
        public var start: String
        public var end: String
        public var distanceKm: Double?
        public var elevationGainM: Double?
        public var minElevationM: Double?
        public var maxElevationM: Double?
        public var averageSpeedMps: Double?
        public var paceMinPerKm: Double?
        public var bounds: Bounds?

        public struct Bounds: Codable, Sendable, Hashable {
            public var minLatitude: Double
            public var maxLatitude: Double
            public var minLongitude: Double
            public var maxLongitude: Double
            enum CodingKeys: String, CodingKey {
                case minLatitude = "min_latitude", maxLatitude = "max_latitude"
                case minLongitude = "min_longitude", maxLongitude = "max_longitude"
            }
        }

        enum CodingKeys: String, CodingKey {
            case pointCount = "point_count", start, end, distanceKm = "distance_km", elevationGainM = "elevation_gain_m"
            case minElevationM = "min_elevation_m", maxElevationM = "max_elevation_m"
            case averageSpeedMps = "average_speed_mps", paceMinPerKm = "pace_min_per_km", bounds
        }
    }

    public struct RoutePointRecord: Codable, Sendable, Hashable {
        public var time: String
        public var latitude: Double
        public var longitude: Double
        public var elevationM: Double?
        public var speedMps: Double?
        enum CodingKeys: String, CodingKey {
            case time, latitude, longitude, elevationM = "elevation_m", speedMps = "speed_mps"
        }
    }

    enum CodingKeys: String, CodingKey {
        case timeZone = "time_zone", metadata, events, statistics, route, routePoints = "route_points"
        case routeOffset = "route_offset", nextRouteOffset = "next_route_offset"
    }

    // The workout's own fields are at the top level, beside the details.
    public init(from decoder: any Decoder) throws {
        workout = try WorkoutRecord(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timeZone = try container.decode(String.self, forKey: .timeZone)
        metadata = try container.decode([String: String].self, forKey: .metadata)
        events = try container.decode([Event].self, forKey: .events)
        statistics = try container.decode([Statistic].self, forKey: .statistics)
        route = try container.decodeIfPresent(RouteSummary.self, forKey: .route)
        routePoints = try container.decode([RoutePointRecord].self, forKey: .routePoints)
        routeOffset = try container.decode(Int.self, forKey: .routeOffset)
        nextRouteOffset = try container.decodeIfPresent(Int.self, forKey: .nextRouteOffset)
    }

    public func encode(to encoder: any Encoder) throws {
        try workout.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(metadata, forKey: .metadata)
        try container.encode(events, forKey: .events)
        try container.encode(statistics, forKey: .statistics)
        try container.encodeIfPresent(route, forKey: .route)
        try container.encode(routePoints, forKey: .routePoints)
        try container.encode(routeOffset, forKey: .routeOffset)
        try container.encodeIfPresent(nextRouteOffset, forKey: .nextRouteOffset)
    }

    init(workout: WorkoutRecord, timeZone: String, metadata: [String: String], events: [Event], statistics: [Statistic],
         route: RouteSummary?, routePoints: [RoutePointRecord], routeOffset: Int, nextRouteOffset: Int? = nil) {
        self.workout = workout; self.timeZone = timeZone; self.metadata = metadata; self.events = events
        self.statistics = statistics; self.route = route; self.routePoints = routePoints; self.routeOffset = routeOffset
        self.nextRouteOffset = nextRouteOffset
    }
}

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
            let all = try await store.routeColumns(route.uuid, offset: 0, limit: .max)
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

extension WorkoutDetail.RouteSummary {
    init(pointCount: Int, start: String, end: String) {
        self.pointCount = pointCount
        self.start = start
        self.end = end
    }
}
