import Foundation
import HealthModel

/// Raw samples of one type, paged.
///
/// ```swift
/// let page = try await service.samples(SamplesRequest(type: "heartRate", start: "today", limit: 50))
/// ```
public struct SamplesRequest: Codable, Sendable, Hashable {
    /// A type identifier, with or without its HealthKit prefix. Required unless `cursor` is given.
    public var type: String?
    /// Default `7d`. See ``DateRange``.
    public var start: String?
    public var end: String?
    /// Samples per page, 1…5,000, default 100.
    public var limit: Int?
    /// Oldest first; default newest first.
    public var ascending: Bool?
    /// Only samples of these sources (names or keys).
    public var sources: [String]?
    /// IANA zone of the dates in the result; default the home zone.
    public var timeZone: String?
    /// Quantities in this unit (`kcal`, `lb`, `km`, …) instead of the type's own.
    public var unit: String?
    /// `next_cursor` of the previous page: the other fields are then taken from it (but `limit`, which may still
    /// change the page size).
    public var cursor: String?
    /// Only samples whose metadata has this key with one of ``metadataValues`` (HealthKit's
    /// `HKQuery.predicateForObjects(withMetadataKey:allowedValues:)`): an app's own key (`DietAppLogId`) or a
    /// HealthKit one. 1…128 bytes; given together with `metadataValues`.
    public var metadataKey: String?
    /// The values ``metadataKey`` may have: 1…100 values of at most 4,096 bytes each.
    public var metadataValues: [String]?

    public init(type: String? = nil, start: String? = nil, end: String? = nil, limit: Int? = nil,
                ascending: Bool? = nil, sources: [String]? = nil, timeZone: String? = nil, unit: String? = nil,
                cursor: String? = nil, metadataKey: String? = nil, metadataValues: [String]? = nil) {
        self.type = type; self.start = start; self.end = end; self.limit = limit; self.ascending = ascending
        self.sources = sources; self.timeZone = timeZone; self.unit = unit; self.cursor = cursor
        self.metadataKey = metadataKey; self.metadataValues = metadataValues
    }

    enum CodingKeys: String, CodingKey {
        case type, start, end, limit, ascending, sources, timeZone, unit, cursor
        case metadataKey = "metadata_key", metadataValues = "metadata_values"
    }

    public static let maxLimit = 5_000
    public static let defaultLimit = 100
    /// The longest metadata key a predicate names, in UTF-8 bytes (as writes allow).
    public static let maxMetadataKeyBytes = 128
    /// The most values a metadata predicate allows, and the longest of them in UTF-8 bytes.
    public static let maxMetadataValues = 100
    public static let maxMetadataValueBytes = 4_096
}

/// A page of samples.
public struct SamplesResult: Codable, Sendable, Hashable {
    public var type: String
    /// The unit of every value (quantity types).
    public var unit: String?
    public var timeZone: String
    public var start: String
    public var end: String
    /// `desc` (newest first) or `asc`.
    public var order: String
    public var count: Int
    public var samples: [SampleRecord]
    public var hasMore: Bool
    public var nextCursor: String?

    public init(type: String, unit: String? = nil, timeZone: String, start: String, end: String, order: String,
                count: Int, samples: [SampleRecord], hasMore: Bool, nextCursor: String? = nil) {
        self.type = type; self.unit = unit; self.timeZone = timeZone; self.start = start; self.end = end
        self.order = order; self.count = count; self.samples = samples; self.hasMore = hasMore
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case type, unit, timeZone = "time_zone", start, end, order, count, samples, hasMore = "has_more"
        case nextCursor = "next_cursor"
    }
}

/// One sample: a quantity in its type's unit, or a category by name.
public struct SampleRecord: Codable, Sendable, Hashable {
    public var uuid: String
    public var start: String
    public var end: String
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var source: String
    public var metadata: [String: String]?

    public init(uuid: String, start: String, end: String, value: Double? = nil, unit: String? = nil,
                category: String? = nil, source: String, metadata: [String: String]? = nil) {
        self.uuid = uuid; self.start = start; self.end = end; self.value = value; self.unit = unit
        self.category = category; self.source = source; self.metadata = metadata
    }
}

// MARK: - Schemas

extension SamplesRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A type identifier, with or without its HealthKit prefix. Required unless cursor is given."),
        "start": .string("Start of the range: a date expression (DateRange). Default 7d."),
        "end": .string("End of the range (exclusive). Default now."),
        "limit": .integer("Samples per page.", minimum: 1, maximum: maxLimit, default: defaultLimit),
        "ascending": .boolean("Oldest first; default newest first."),
        "sources": .array(.string(), "Only samples of these sources (names or keys)."),
        "timeZone": .string("IANA zone of the dates in the result; default the home zone."),
        "unit": .string("Quantities in this unit (kcal, lb, km, …) instead of the type's own."),
        "cursor": .string("next_cursor of the previous page."),
        "metadata_key": .string("Only samples whose metadata has this key (1–128 bytes) with one of metadata_values (HealthKit's predicateForObjects(withMetadataKey:allowedValues:)). Given with metadata_values."),
        "metadata_values": .array(.string(), "The values metadata_key may have: 1–100 values of at most 4,096 bytes. Given with metadata_key."),
    ])
}

extension SamplesResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string(),
        "unit": .string("The unit of every value (quantity types)."),
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "order": .string(oneOf: ["desc", "asc"]),
        "count": .integer("Samples in this page."),
        "samples": .array(SampleRecord.jsonSchema),
    ].adding(JSONSchema.paging), required: ["type", "time_zone", "start", "end", "order", "count", "samples", "has_more"])
}

extension SampleRecord: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "uuid": .string("The sample's UUID."),
        "metadata": .map(.string(), "HealthKit metadata (HKMetadataKey…), when the sample has any."),
        "start": .instant(),
        "end": .instant(),
        "value": .number("The value in `unit` (quantity types)."),
        "unit": .string(),
        "category": .string("The value's name (category types: inBed, asleep, awake, core, deep, rem for sleep)."),
        "source": .string(),
    ], required: ["uuid", "start", "end", "source"])
}
