import Foundation

/// What an ingest did: objects new, replaced (a bucket whose total changed since the last send) and already stored,
/// per HealthKit type, and what was kept aside.
public struct IngestReport: Codable, Sendable, Hashable {
    public var format = "health-auto-export"
    /// Samples, correlations and workouts written for the first time.
    public var inserted = 0
    /// Buckets re-sent with a new total: the newer replaced the older.
    public var replaced = 0
    /// Already stored as sent: a re-send or an overlapping period.
    public var unchanged = 0
    /// Objects per HealthKit type in the payload (`workout` for workouts).
    public var types: [String: Int] = [:]
    /// Route points of the payload's workouts.
    public var routePoints = 0
    /// Metrics and sections HealthBridge does not know, with their item counts: not stored, not an error.
    public var unknown: [String: Int] = [:]
    /// Items of known metrics that could not be stored, per metric, and the first reason of each.
    public var rejected: [String: Int] = [:]
    public var reasons: [String: String] = [:]
    /// The change feed's anchor after the ingest.
    public var anchor = "0"

    public init() {}
}

// MARK: - Schemas

extension IngestReport: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "format": .string(oneOf: ["health-auto-export", "health-connect"]),
        "inserted": .integer("Samples, correlations and workouts written for the first time."),
        "replaced": .integer("Buckets re-sent with a new total: the newer replaced the older."),
        "unchanged": .integer("Already stored as sent: a re-send or an overlapping period."),
        "types": .map(.integer(), "Objects per HealthKit type in the payload (workout for workouts)."),
        "routePoints": .integer("Route points of the payload's workouts."),
        "unknown": .map(.integer(), "Metrics and sections not known, with their item counts: not stored, not an error."),
        "rejected": .map(.integer(), "Items of known metrics that could not be stored, per metric."),
        "reasons": .map(.string(), "The first reason of each rejected metric."),
        "anchor": .string("The change feed's anchor after the ingest."),
    ], required: ["format", "inserted", "replaced", "unchanged", "types", "routePoints", "unknown", "rejected", "reasons",
                  "anchor"])
}
