import Foundation
import HealthModel

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
    /// The totals of every workout of the range, across all pages (the same on each page).
    public var totals: WorkoutTotals

    public init(timeZone: String, start: String, end: String, count: Int, workouts: [WorkoutRecord], hasMore: Bool,
                nextCursor: String? = nil, totals: WorkoutTotals = WorkoutTotals()) {
        self.timeZone = timeZone; self.start = start; self.end = end; self.count = count; self.workouts = workouts
        self.hasMore = hasMore; self.nextCursor = nextCursor; self.totals = totals
    }

    enum CodingKeys: String, CodingKey {
        case timeZone = "time_zone", start, end, count, workouts, hasMore = "has_more", nextCursor = "next_cursor", totals
    }

    /// Decodes the totals as absent (zero) from a server that predates them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timeZone = try c.decode(String.self, forKey: .timeZone)
        start = try c.decode(String.self, forKey: .start)
        end = try c.decode(String.self, forKey: .end)
        count = try c.decode(Int.self, forKey: .count)
        workouts = try c.decode([WorkoutRecord].self, forKey: .workouts)
        hasMore = try c.decode(Bool.self, forKey: .hasMore)
        nextCursor = try c.decodeIfPresent(String.self, forKey: .nextCursor)
        totals = try c.decodeIfPresent(WorkoutTotals.self, forKey: .totals) ?? WorkoutTotals()
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

    public init(uuid: String, activityType: String, start: String, end: String, durationMinutes: Double,
                distanceKm: Double? = nil, energyKcal: Double? = nil, source: String, routePointCount: Int) {
        self.uuid = uuid; self.activityType = activityType; self.start = start; self.end = end
        self.durationMinutes = durationMinutes; self.distanceKm = distanceKm; self.energyKcal = energyKcal
        self.source = source; self.routePointCount = routePointCount
    }

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

        public init(type: String, date: String, durationSeconds: Double? = nil) {
            self.type = type; self.date = date; self.durationSeconds = durationSeconds
        }
        enum CodingKeys: String, CodingKey { case type, date, durationSeconds = "duration_seconds" }
    }

    public struct Statistic: Codable, Sendable, Hashable {
        public var type: String
        public var sum: Double?
        public var average: Double?
        public var min: Double?
        public var max: Double?
        public var unit: String?

        public init(type: String, sum: Double? = nil, average: Double? = nil, min: Double? = nil, max: Double? = nil,
                    unit: String? = nil) {
            self.type = type; self.sum = sum; self.average = average; self.min = min; self.max = max; self.unit = unit
        }
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

        public init(pointCount: Int, start: String, end: String, distanceKm: Double? = nil,
                    elevationGainM: Double? = nil, minElevationM: Double? = nil, maxElevationM: Double? = nil,
                    averageSpeedMps: Double? = nil, paceMinPerKm: Double? = nil, bounds: Bounds? = nil) {
            self.pointCount = pointCount; self.start = start; self.end = end; self.distanceKm = distanceKm
            self.elevationGainM = elevationGainM; self.minElevationM = minElevationM
            self.maxElevationM = maxElevationM; self.averageSpeedMps = averageSpeedMps
            self.paceMinPerKm = paceMinPerKm; self.bounds = bounds
        }

        public struct Bounds: Codable, Sendable, Hashable {
            public var minLatitude: Double
            public var maxLatitude: Double
            public var minLongitude: Double
            public var maxLongitude: Double

            public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
                self.minLatitude = minLatitude; self.maxLatitude = maxLatitude; self.minLongitude = minLongitude
                self.maxLongitude = maxLongitude
            }
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

        public init(time: String, latitude: Double, longitude: Double, elevationM: Double? = nil,
                    speedMps: Double? = nil) {
            self.time = time; self.latitude = latitude; self.longitude = longitude; self.elevationM = elevationM
            self.speedMps = speedMps
        }
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

    public init(workout: WorkoutRecord, timeZone: String, metadata: [String: String], events: [Event], statistics: [Statistic],
         route: RouteSummary?, routePoints: [RoutePointRecord], routeOffset: Int, nextRouteOffset: Int? = nil) {
        self.workout = workout; self.timeZone = timeZone; self.metadata = metadata; self.events = events
        self.statistics = statistics; self.route = route; self.routePoints = routePoints; self.routeOffset = routeOffset
        self.nextRouteOffset = nextRouteOffset
    }
}

// MARK: - Schemas

extension WorkoutsRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "activityTypes": .array(.string(), "HealthKit activity names (running, walking, cycling, …), any case."),
        "start": .string("Start of the range: a date expression (DateRange). Default 30d."),
        "end": .string("End of the range (exclusive). Default now."),
        "limit": .integer("Workouts per page.", minimum: 1, maximum: maxLimit, default: 50),
        "ascending": .boolean("Oldest first; default newest first."),
        "timeZone": .string("IANA zone of the dates in the result; default the home zone."),
        "cursor": .string("next_cursor of the previous page."),
    ])
}

extension WorkoutsResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "count": .integer("Workouts in this page."),
        "workouts": .array(WorkoutRecord.jsonSchema),
        "totals": WorkoutTotals.jsonSchema,
    ].adding(JSONSchema.paging), required: ["time_zone", "start", "end", "count", "workouts", "has_more", "totals"])
}

extension WorkoutRecord: SchemaDescribed {
    /// The workout's fields, also at the top level of a ``WorkoutDetail``.
    static let schemaProperties: [String: JSONSchema] = [
        "uuid": .string("Pass it to get_workout for details."),
        "activity_type": .string("e.g. running, walking, cycling, traditionalStrengthTraining."),
        "start": .instant(),
        "end": .instant(),
        "duration_minutes": .number("Active time (pauses excluded)."),
        "distance_km": .number(),
        "energy_kcal": .number("Active energy."),
        "source": .string(),
        "route_point_count": .integer("GPS points recorded (0: no route)."),
    ]
    static let schemaRequired = ["uuid", "activity_type", "start", "end", "duration_minutes", "source", "route_point_count"]
    public static let jsonSchema = JSONSchema.object(schemaProperties, required: schemaRequired)
}

extension WorkoutRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "uuid": .string("The workout's uuid."),
        "routeOffset": .integer("First route point to return.", minimum: 0, default: 0),
        "routeLimit": .integer("Route points to return (0: the summary only).", minimum: 0, maximum: maxRouteLimit,
                               default: 100),
        "timeZone": .string("IANA zone of the dates in the result; default the home zone."),
    ])
}

extension WorkoutDetail: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object(WorkoutRecord.schemaProperties.adding([
        "time_zone": .string(),
        "metadata": .map(.string()),
        "events": .array(.object([
            "type": .string("pause, resume, lap, marker, motionPaused, motionResumed, segment"),
            "date": .instant(),
            "duration_seconds": .number(),
        ], required: ["type", "date"])),
        "statistics": .array(.object([
            "type": .string(), "sum": .number(), "average": .number(), "min": .number(), "max": .number(),
            "unit": .string(),
        ], required: ["type"])),
        "route": .object([
            "point_count": .integer(),
            "start": .instant(),
            "end": .instant(),
            "distance_km": .number("Along the GPS track."),
            "elevation_gain_m": .number(),
            "min_elevation_m": .number(),
            "max_elevation_m": .number(),
            "average_speed_mps": .number(),
            "pace_min_per_km": .number(),
            "bounds": .object([
                "min_latitude": .number(), "max_latitude": .number(),
                "min_longitude": .number(), "max_longitude": .number(),
            ], required: ["min_latitude", "max_latitude", "min_longitude", "max_longitude"]),
        ], required: ["point_count", "start", "end"]),
        "route_points": .array(.object([
            "time": .instant(),
            "latitude": .number(),
            "longitude": .number(),
            "elevation_m": .number(),
            "speed_mps": .number(),
        ], required: ["time", "latitude", "longitude"])),
        "route_offset": .integer("The first route point of this reply."),
        "next_route_offset": .integer("Present when more route points follow: pass it as route_offset."),
    ]), required: WorkoutRecord.schemaRequired + ["time_zone", "metadata", "events", "statistics", "route_points", "route_offset"])
}
