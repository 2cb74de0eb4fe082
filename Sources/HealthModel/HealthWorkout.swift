import Foundation

/// A workout: HealthKit's `HKWorkout`, with its events, per-quantity statistics, activities and routes.
public struct HealthWorkout: Sendable, Hashable, Codable, Identifiable {
    public var uuid: UUID
    /// The activity type's short name (`running`), or the export's name when unknown.
    public var activityType: String
    public var start: Date
    public var end: Date
    /// Active time in seconds (paused time excluded).
    public var duration: TimeInterval
    public var source: HealthSource
    public var creationDate: Date?
    public var metadata: [String: String]
    public var utcOffset: Int?
    public var timeZone: String?
    /// Legacy totals (`totalDistance`, `totalEnergyBurned`) in their recorded units.
    public var totalDistance: Measurement?
    public var totalEnergyBurned: Measurement?
    public var events: [Event]
    public var statistics: [Statistic]
    public var activities: [Activity]
    public var routes: [Route]

    public var id: UUID { uuid }

    public init(uuid: UUID? = nil, activityType: String, start: Date, end: Date, duration: TimeInterval? = nil,
                source: HealthSource, creationDate: Date? = nil, metadata: [String: String] = [:],
                utcOffset: Int? = nil, timeZone: String? = nil, totalDistance: Measurement? = nil,
                totalEnergyBurned: Measurement? = nil, events: [Event] = [], statistics: [Statistic] = [],
                activities: [Activity] = [], routes: [Route] = []) {
        self.activityType = activityType
        self.start = start
        self.end = end
        self.duration = duration ?? end.timeIntervalSince(start)
        self.source = source
        self.creationDate = creationDate
        self.metadata = metadata
        self.utcOffset = utcOffset
        self.timeZone = timeZone ?? metadata[MetadataKey.timeZone]
        self.totalDistance = totalDistance
        self.totalEnergyBurned = totalEnergyBurned
        self.events = events
        self.statistics = statistics
        self.activities = activities
        self.routes = routes
        self.uuid = uuid ?? HealthSample.naturalUUID(type: "workout:" + activityType, sourceKey: source.key,
                                                      start: start, end: end, value: .quantity(self.duration, unit: "s"))
    }

    /// A value with its unit, e.g. 5.2 km.
    public struct Measurement: Sendable, Hashable, Codable {
        public var value: Double
        public var unit: String
        public init(_ value: Double, _ unit: String) { self.value = value; self.unit = unit }
    }

    /// A workout event: pause 1, resume 2, lap 3, marker 4, motionPaused 5, motionResumed 6, segment 7.
    public struct Event: Sendable, Hashable, Codable {
        public var type: String
        public var date: Date
        public var duration: TimeInterval?
        public var metadata: [String: String]?
        public init(type: String, date: Date, duration: TimeInterval? = nil, metadata: [String: String]? = nil) {
            self.type = type; self.date = date; self.duration = duration; self.metadata = metadata
        }
    }

    /// Per-quantity statistics of the workout (iOS 16 and later).
    public struct Statistic: Sendable, Hashable, Codable {
        public var type: String
        public var start: Date
        public var end: Date
        public var sum: Double?
        public var average: Double?
        public var minimum: Double?
        public var maximum: Double?
        public var unit: String?
        public init(type: String, start: Date, end: Date, sum: Double? = nil, average: Double? = nil,
                    minimum: Double? = nil, maximum: Double? = nil, unit: String? = nil) {
            self.type = type; self.start = start; self.end = end; self.sum = sum; self.average = average
            self.minimum = minimum; self.maximum = maximum; self.unit = unit
        }
    }

    /// A sub-activity of a multi-sport workout (`WorkoutActivity`).
    public struct Activity: Sendable, Hashable, Codable {
        public var uuid: String?
        public var start: Date
        public var end: Date?
        public var duration: TimeInterval?
        public var metadata: [String: String]?
        public init(uuid: String?, start: Date, end: Date?, duration: TimeInterval?, metadata: [String: String]?) {
            self.uuid = uuid; self.start = start; self.end = end; self.duration = duration; self.metadata = metadata
        }
    }

    /// A route: its points live in the store's route table, keyed by ``uuid``.
    public struct Route: Sendable, Hashable, Codable {
        public var uuid: UUID
        public var start: Date
        public var end: Date
        public var sourceName: String?
        /// The GPX file the points came from, when they came from one.
        public var file: String?
        public var pointCount: Int
        public var metadata: [String: String]?
        public init(uuid: UUID, start: Date, end: Date, sourceName: String?, file: String?, pointCount: Int,
                    metadata: [String: String]?) {
            self.uuid = uuid; self.start = start; self.end = end; self.sourceName = sourceName; self.file = file
            self.pointCount = pointCount; self.metadata = metadata
        }
    }
}

/// One point of a workout route.
public struct RoutePoint: Sendable, Hashable, Codable {
    public var time: Date
    public var latitude: Double
    public var longitude: Double
    public var elevation: Double?
    public var speed: Double?
    public var course: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?

    public init(time: Date, latitude: Double, longitude: Double, elevation: Double? = nil, speed: Double? = nil,
                course: Double? = nil, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil) {
        self.time = time; self.latitude = latitude; self.longitude = longitude; self.elevation = elevation
        self.speed = speed; self.course = course; self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
    }
}

/// A correlation (bloodPressure, food): a set of member samples saved together.
public struct HealthCorrelation: Sendable, Hashable, Codable, Identifiable {
    public var uuid: UUID
    public var type: String
    public var start: Date
    public var end: Date
    public var source: HealthSource
    public var creationDate: Date?
    public var metadata: [String: String]
    /// The member samples' UUIDs; the samples themselves are stored as ordinary samples, once.
    public var members: [UUID]

    public var id: UUID { uuid }

    public init(uuid: UUID? = nil, type: String, start: Date, end: Date, source: HealthSource,
                creationDate: Date? = nil, metadata: [String: String] = [:], members: [UUID]) {
        self.type = type; self.start = start; self.end = end; self.source = source
        self.creationDate = creationDate; self.metadata = metadata; self.members = members
        self.uuid = uuid ?? HealthSample.naturalUUID(type: "correlation:" + type, sourceKey: source.key, start: start,
                                                      end: end, value: .quantity(Double(members.count), unit: "count"))
    }
}

/// Any other exported object kept whole as JSON: ActivitySummary, Me, ClinicalRecord, Audiogram,
/// VisionPrescription, Electrocardiogram.
public struct HealthDocument: Sendable, Hashable, Codable, Identifiable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case activitySummary, me, exportInfo, clinicalRecord, audiogram, visionPrescription, electrocardiogram
        /// An element this version does not know, kept whole (`{"element": name, …}`).
        case other
    }
    public var uuid: UUID
    public var kind: Kind
    public var start: Date?
    public var end: Date?
    public var sourceName: String?
    /// A JSON object with the element's fields.
    public var json: String

    public var id: UUID { uuid }

    public init(uuid: UUID, kind: Kind, start: Date?, end: Date?, sourceName: String?, json: String) {
        self.uuid = uuid; self.kind = kind; self.start = start; self.end = end; self.sourceName = sourceName
        self.json = json
    }
}
