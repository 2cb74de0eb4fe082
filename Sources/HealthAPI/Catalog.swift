import Foundation
import HealthModel

/// What is in the store: types, sources, and the priority order statistics merge sources by.
public struct TypesResult: Codable, Sendable, Hashable {
    /// The home time zone; dates are given in it.
    public var timeZone: String
    public var now: String
    public var count: Int
    public var types: [TypeRecord]

    public init(timeZone: String, now: String, count: Int, types: [TypeRecord]) {
        self.timeZone = timeZone; self.now = now; self.count = count; self.types = types
    }

    enum CodingKeys: String, CodingKey { case timeZone = "time_zone", now, count, types }
}

public struct TypeRecord: Codable, Sendable, Hashable {
    /// The identifier to pass as `type`.
    public var type: String
    public var kind: String
    public var displayName: String
    public var count: Int
    public var first: String?
    public var last: String?
    /// The unit values are reported in (quantity types).
    public var unit: String?
    /// Units the samples were recorded in.
    public var recordedUnits: [String]
    /// `cumulative` or `discrete` (quantity types).
    public var aggregation: String?
    /// The statistics a summary gives for it.
    public var statistics: [String]

    public init(type: String, kind: String, displayName: String, count: Int, first: String? = nil,
                last: String? = nil, unit: String? = nil, recordedUnits: [String], aggregation: String? = nil,
                statistics: [String]) {
        self.type = type; self.kind = kind; self.displayName = displayName; self.count = count; self.first = first
        self.last = last; self.unit = unit; self.recordedUnits = recordedUnits; self.aggregation = aggregation
        self.statistics = statistics
    }

    enum CodingKeys: String, CodingKey {
        case type, kind, displayName = "display_name", count, first, last, unit, recordedUnits = "recorded_units"
        case aggregation, statistics
    }
}

/// Sources, or one type's sources in priority order.
public struct SourcesRequest: Codable, Sendable, Hashable {
    public var type: String?
    public init(type: String? = nil) { self.type = type }
}

/// Shows or changes one type's priority order (the owner only changes it).
public struct PriorityRequest: Codable, Sendable, Hashable {
    public var type: String?
    /// Source names, highest priority first; sources not named follow in the default order.
    public var set: [String]?
    /// Forget the stored order.
    public var reset: Bool?

    public init(type: String? = nil, set: [String]? = nil, reset: Bool? = nil) {
        self.type = type; self.set = set; self.reset = reset
    }
}

public struct SourcesResult: Codable, Sendable, Hashable {
    public var type: String?
    /// Highest priority first (with a type).
    public var priorityOrder: [String]?
    /// True when the owner set this type's order.
    public var userOrdered: Bool?
    public var count: Int
    public var sources: [SourceRecord]

    public init(type: String? = nil, priorityOrder: [String]? = nil, userOrdered: Bool? = nil, count: Int,
                sources: [SourceRecord]) {
        self.type = type; self.priorityOrder = priorityOrder; self.userOrdered = userOrdered; self.count = count
        self.sources = sources
    }

    enum CodingKeys: String, CodingKey {
        case type, priorityOrder = "priority_order", userOrdered = "user_ordered", count, sources
    }
}

public struct SourceRecord: Codable, Sendable, Hashable {
    public var name: String
    /// typed in, Apple Watch, iPhone, other device, app.
    public var category: String
    public var bundleId: String?
    /// The device model and hardware, when known.
    public var device: String?
    public var count: Int
    /// 1 is the highest priority (with a type).
    public var rank: Int?

    public init(name: String, category: String, bundleId: String? = nil, device: String? = nil, count: Int,
                rank: Int? = nil) {
        self.name = name; self.category = category; self.bundleId = bundleId; self.device = device
        self.count = count; self.rank = rank
    }

    enum CodingKeys: String, CodingKey { case name, category, bundleId = "bundle_id", device, count, rank }
}

// MARK: - Schemas

extension TypesResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "time_zone": .string("The user's home time zone; dates are shown in it."),
        "now": .instant(),
        "count": .integer(),
        "types": .array(TypeRecord.jsonSchema),
    ], required: ["time_zone", "now", "count", "types"])
}

extension TypeRecord: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("Identifier to pass as `type` to the other tools."),
        "kind": .string(oneOf: ["quantity", "category", "correlation", "workout"]),
        "display_name": .string(),
        "count": .integer("Samples stored."),
        "first": .instant(),
        "last": .instant(),
        "unit": .string("The unit values are reported in (quantity types)."),
        "recorded_units": .array(.string(), "Units the samples were recorded in."),
        "aggregation": .string("cumulative values add up (steps); discrete ones are levels (heart rate).",
                               oneOf: ["cumulative", "discrete"]),
        "statistics": .array(.string(), "Statistics summarize accepts for this type."),
    ], required: ["type", "kind", "display_name", "count", "recorded_units", "statistics"])
}

extension SourcesRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object(["type": .string("A type identifier: its sources in priority order.")])
}

extension PriorityRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A type identifier."),
        "set": .array(.string(), "Source names, highest priority first; sources not named follow in the default order."),
        "reset": .boolean("Forget the stored order."),
    ])
}

extension SourcesResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("The type asked about, if any."),
        "priority_order": .array(.string(), "Source names, highest priority first (with type)."),
        "user_ordered": .boolean("True when the user set this type's order; false for the default order (typed in by hand > Apple Watch > iPhone > other devices > apps)."),
        "count": .integer(),
        "sources": .array(SourceRecord.jsonSchema),
    ], required: ["count", "sources"])
}

extension SourceRecord: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "name": .string(),
        "category": .string(oneOf: SourceCategory.allCases.map(\.label)),
        "bundle_id": .string(),
        "device": .string("The device model and hardware, when known."),
        "count": .integer("Samples from this source (of the type, with type)."),
        "rank": .integer("1 is the highest priority (with type)."),
    ], required: ["name", "category", "count"])
}
