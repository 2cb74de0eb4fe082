import Foundation
import HealthModel

// The answers of the HealthBridge HTTPS API that HealthBridgeKit decodes, mirrored here so the kit depends on no
// server code. Field names are the wire's (snake_case where the API uses it). Every type is Codable and Sendable;
// fields the server may leave out are optional.

/// What a write did (`POST /api/v1/log/…`, `/health/samples`).
///
/// ```swift
/// let outcome = try await manager.logWater(250, syncId: "water-1")
/// outcome.unchanged == 1   // a retry: already stored, applied once
/// ```
public struct WriteOutcome: Codable, Sendable, Hashable {
    public struct Object: Codable, Sendable, Hashable {
        public var uuid: String
        public var type: String
    }
    public var objects: [Object]
    public var inserted: Int
    public var replaced: Int
    /// Already stored: a retry, or a sync version not greater than the stored one.
    public var unchanged: Int
    /// The change feed's anchor after the write.
    public var anchor: String
}

/// What a delete did (`DELETE /api/v1/log/{logId}`).
///
/// ```swift
/// let gone = try await manager.deleteNutrition(logId: "meal-42").deleted
/// ```
public struct DeleteOutcome: Codable, Sendable, Hashable {
    public var deleted: Int
    public var uuids: [String]
    public var anchor: String
}

/// One sample as the server's use cases give it.
///
/// ```swift
/// let mine = batch.added.compactMap(\.sample).filter { $0.syncId?.hasPrefix("water-") == true }
/// ```
public struct SampleRecord: Codable, Sendable, Hashable {
    public var uuid: String
    public var start: String
    public var end: String
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var source: String
    public var metadata: [String: String]?

    /// The sample's sync identifier (`HKMetadataKeySyncIdentifier`), if it was written with one.
    public var syncId: String? { metadata?["HKMetadataKeySyncIdentifier"] }
    public var startDate: Date? { HealthBridgeDates.parse(start) }
}

/// One workout in a list.
///
/// ```swift
/// let list = try await manager.get("health/workouts", query: [("start", "7d")], as: WorkoutList.self)
/// let minutes = list.workouts.map(\.durationMinutes)
/// ```
public struct WorkoutRecord: Codable, Sendable, Hashable {
    public var uuid: String
    public var activityType: String
    public var start: String
    public var end: String
    public var durationMinutes: Double
    public var distanceKm: Double?
    public var energyKcal: Double?
    public var source: String

    enum CodingKeys: String, CodingKey {
        case uuid, activityType = "activity_type", start, end, durationMinutes = "duration_minutes"
        case distanceKm = "distance_km", energyKcal = "energy_kcal", source
    }
}

/// `GET /api/v1/health/workouts`.
///
/// ```swift
/// let week = try await manager.get("health/workouts", query: [("start", "7d")], as: WorkoutList.self)
/// ```
public struct WorkoutList: Codable, Sendable, Hashable {
    public var count: Int
    public var workouts: [WorkoutRecord]
    public var hasMore: Bool
    public var nextCursor: String?
    enum CodingKeys: String, CodingKey { case count, workouts, hasMore = "has_more", nextCursor = "next_cursor" }
}

/// `GET /api/v1/health/latest`.
///
/// ```swift
/// let latest = try await manager.get("health/latest", query: [("type", "restingHeartRate")], as: LatestSample.self)
/// ```
public struct LatestSample: Codable, Sendable, Hashable {
    public var type: String
    /// False when there is no sample (or the type is not shared with this app: the same answer).
    public var found: Bool
    public var value: Double?
    public var unit: String?
    public var start: String?
    public var end: String?
    public var source: String?
}

/// What ``HealthBridgeManager/statistics(_:)`` asks (`GET /api/v1/health/statistics`). Dates are the server's
/// expressions (`today`, `now`, `7d`, ISO dates and instants), resolved in its home zone.
///
/// ```swift
/// let today = try await manager.statistics(StatisticsQuery(type: .stepCount, start: "today", end: "now", interval: "total"))
/// ```
public struct StatisticsQuery: Codable, Sendable, Hashable {
    public var type: HealthDataType
    public var start: String?
    public var end: String?
    public var interval: String?
    public var statistics: [String]?
    public var unit: String?
    public var timeZone: String?

    public init(type: HealthDataType, start: String? = nil, end: String? = nil, interval: String? = nil,
                statistics: [String]? = nil, unit: String? = nil, timeZone: String? = nil) {
        self.type = type; self.start = start; self.end = end; self.interval = interval; self.statistics = statistics
        self.unit = unit; self.timeZone = timeZone
    }

    var query: [(String, String)] {
        var items = [("type", type.rawValue)]
        if let start { items.append(("start", start)) }
        if let end { items.append(("end", end)) }
        if let interval { items.append(("interval", interval)) }
        if let statistics { items.append(("statistics", statistics.joined(separator: ","))) }
        if let unit { items.append(("unit", unit)) }
        if let timeZone { items.append(("time_zone", timeZone)) }
        return items
    }
}

/// Statistics per bucket, merged across sources by the server's priority order.
///
/// ```swift
/// let steps = try await manager.statistics(StatisticsQuery(type: .stepCount, start: "7d", interval: "day"))
/// for bucket in steps.buckets { print(bucket.start, bucket.sum ?? 0) }
/// ```
public struct StatisticsResult: Codable, Sendable, Hashable {
    public struct Bucket: Codable, Sendable, Hashable {
        public var start: String
        public var end: String
        public var sum: Double?
        public var average: Double?
        public var min: Double?
        public var max: Double?
        public var mostRecent: Double?
        public var count: Int
        enum CodingKeys: String, CodingKey { case start, end, sum, average, min, max, mostRecent = "most_recent", count }
    }
    public var type: String
    public var unit: String
    public var merged: Bool
    public var buckets: [Bucket]
    /// Cumulative types: the sum over the buckets.
    public var totalSum: Double?
    enum CodingKeys: String, CodingKey { case type, unit, merged, buckets, totalSum = "total_sum" }
}

/// One answer of the anchored change feed (`GET /api/v1/health/changes`): HealthKit's anchored object query.
///
/// ```swift
/// let batch = try await manager.changes(types: [.bodyMass], anchor: saved)
/// saved = batch.anchor
/// ```
public struct ChangeBatch: Codable, Sendable, Hashable {
    public struct Added: Codable, Sendable, Hashable {
        public var type: String
        public var sample: SampleRecord?
        public var workout: WorkoutRecord?
    }
    public struct Deleted: Codable, Sendable, Hashable {
        public var uuid: String
        public var type: String
        public var syncId: String?
        public var deletedAt: String
        enum CodingKeys: String, CodingKey { case uuid, type, syncId = "sync_id", deletedAt = "deleted_at" }
    }
    public var added: [Added]
    public var deleted: [Deleted]
    /// Pass it back to get what changed after this answer.
    public var anchor: String
    public var hasMore: Bool
    enum CodingKeys: String, CodingKey { case added, deleted, anchor, hasMore = "has_more" }

    public var isEmpty: Bool { added.isEmpty && deleted.isEmpty }
}

/// HealthKit's `HKAuthorizationStatus`, for writing: reads are never reported.
///
/// ```swift
/// if try await manager.authorizationStatus(for: .dietaryWater) == .sharingDenied { hideWaterSync() }
/// ```
public enum HealthAuthorizationStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case notDetermined, sharingDenied, sharingAuthorized
}

/// A request for access as the server keeps it.
///
/// ```swift
/// if let request = try await manager.requestFullAuthorization().request { print("ask the owner to approve \(request.id)") }
/// ```
public struct AccessRequestRecord: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, Hashable { case pending, approved, denied }
    public var id: String
    public var principal: String
    public var read: [String]
    public var write: [String]
    public var status: Status
}

/// The answer to ``HealthBridgeManager/requestAuthorization(toShare:read:reasons:)``.
///
/// ```swift
/// let result = try await manager.requestOnboardingAuthorization()
/// let pending = result.request?.status == .pending
/// ```
public struct AuthorizationRequestResult: Codable, Sendable, Hashable {
    /// The request filed, nil when every type was already decided.
    public var request: AccessRequestRecord?
    public var write: [String: HealthAuthorizationStatus]
}

/// `GET /api/v1/access/status`.
///
/// ```swift
/// let answer = try await manager.get("access/status", query: [("types", "bodyMass")], as: AuthorizationStatusAnswer.self)
/// ```
public struct AuthorizationStatusAnswer: Codable, Sendable, Hashable {
    public var principal: String
    public var write: [String: HealthAuthorizationStatus]
    public var requestPending: Bool
}

/// ISO-8601 instants as the server writes them.
///
/// ```swift
/// let date = HealthBridgeDates.parse("2026-11-25T08:00:00Z")
/// ```
public enum HealthBridgeDates {
    /// An instant with a zone, fractional seconds allowed; nil when malformed.
    public static func parse(_ text: String) -> Date? { ISO8601.date(text) }

    /// The instant in UTC, to the second (what the kit sends).
    public static func string(_ date: Date) -> String { ISO8601.string(wholeSecond(date)) }

    /// The date without its fraction of a second: how the kit writes dates, so dates read back compare equal.
    public static func wholeSecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
