import Foundation
import HealthModel

/// Which sources recorded a type, per day (or hour), and where nothing was recorded.
///
/// ```swift
/// let coverage = try await service.coverage(CoverageRequest(type: "stepCount", start: "2024-05-01", end: "2024-06-01"))
/// coverage.gaps   // [{start: 2024-05-12T00:00…, end: 2024-05-14T00:00…, buckets: 2}]: two days without steps
/// ```
public struct CoverageRequest: Codable, Sendable, Hashable {
    public var type: String?
    /// Default `30d`. See ``DateRange``.
    public var start: String?
    public var end: String?
    /// `day` (default) or `hour`.
    public var interval: String?
    public var timeZone: String?

    public init(type: String? = nil, start: String? = nil, end: String? = nil, interval: String? = nil,
                timeZone: String? = nil) {
        self.type = type; self.start = start; self.end = end; self.interval = interval; self.timeZone = timeZone
    }

    /// The most buckets one answer covers (about 13 years of days, or 416 days of hours).
    public static let maxBuckets = 10_000
}

/// Coverage of one type: per bucket, the sources that recorded it with their sample counts; the runs of buckets
/// where nothing was recorded (the gaps); per source, its counts over the range. A type the principal may not read
/// looks exactly like a type with no data: every bucket empty, one gap over the whole range.
public struct CoverageResult: Codable, Sendable, Hashable {
    public var type: String
    public var interval: String
    public var timeZone: String
    public var start: String
    public var end: String
    public var buckets: [CoverageBucket]
    /// Runs of consecutive buckets without a sample.
    public var gaps: [CoverageGap]
    /// Per source, highest priority first: its samples and the buckets it recorded in.
    public var sources: [CoverageSource]
    /// Buckets with at least one sample.
    public var bucketsWithData: Int
    public var emptyBuckets: Int

    public init(type: String, interval: String, timeZone: String, start: String, end: String,
                buckets: [CoverageBucket], gaps: [CoverageGap], sources: [CoverageSource], bucketsWithData: Int,
                emptyBuckets: Int) {
        self.type = type; self.interval = interval; self.timeZone = timeZone; self.start = start; self.end = end
        self.buckets = buckets; self.gaps = gaps; self.sources = sources; self.bucketsWithData = bucketsWithData
        self.emptyBuckets = emptyBuckets
    }

    enum CodingKeys: String, CodingKey {
        case type, interval, timeZone = "time_zone", start, end, buckets, gaps, sources
        case bucketsWithData = "buckets_with_data", emptyBuckets = "empty_buckets"
    }
}

/// One bucket of a ``CoverageResult``.
public struct CoverageBucket: Codable, Sendable, Hashable {
    public var start: String
    public var end: String
    /// The bucket's day, `YYYY-MM-DD` (day interval).
    public var date: String?
    /// Samples overlapping the bucket, every source.
    public var count: Int
    /// True when nothing was recorded.
    public var noData: Bool
    /// The sources with samples in the bucket and their counts, highest priority first.
    public var sources: [CoverageSourceCount]

    public init(start: String, end: String, date: String? = nil, count: Int, noData: Bool,
                sources: [CoverageSourceCount]) {
        self.start = start; self.end = end; self.date = date; self.count = count; self.noData = noData
        self.sources = sources
    }

    enum CodingKeys: String, CodingKey { case start, end, date, count, noData = "no_data", sources }
}

/// A source's sample count in a bucket.
public struct CoverageSourceCount: Codable, Sendable, Hashable {
    public var source: String
    public var count: Int

    public init(source: String, count: Int) {
        self.source = source; self.count = count
    }
}

/// Consecutive buckets without data.
public struct CoverageGap: Codable, Sendable, Hashable {
    public var start: String
    public var end: String
    /// How many buckets the gap spans.
    public var buckets: Int

    public init(start: String, end: String, buckets: Int) {
        self.start = start; self.end = end; self.buckets = buckets
    }
}

/// A source over the whole range.
public struct CoverageSource: Codable, Sendable, Hashable {
    public var source: String
    /// Samples of the source overlapping the range's buckets (summed over buckets).
    public var count: Int
    public var bucketsWithData: Int
    /// The first and last bucket the source recorded in.
    public var first: String?
    public var last: String?

    public init(source: String, count: Int, bucketsWithData: Int, first: String? = nil, last: String? = nil) {
        self.source = source; self.count = count; self.bucketsWithData = bucketsWithData; self.first = first
        self.last = last
    }

    enum CodingKeys: String, CodingKey { case source, count, bucketsWithData = "buckets_with_data", first, last }
}

// MARK: - Schemas

extension CoverageRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A type identifier."),
        "start": .string("Start of the range: a date expression (DateRange). Default 30d."),
        "end": .string("End of the range (exclusive). Default now."),
        "interval": .string("day (default) or hour.", oneOf: ["day", "hour"]),
        "timeZone": .string("IANA zone of the buckets; default the home zone."),
    ])
}

extension CoverageResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string(),
        "interval": .string(),
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "buckets": .array(CoverageBucket.jsonSchema),
        "gaps": .array(CoverageGap.jsonSchema, "Runs of buckets without any sample."),
        "sources": .array(CoverageSource.jsonSchema, "Per source over the range, highest priority first."),
        "buckets_with_data": .integer(),
        "empty_buckets": .integer(),
    ], required: ["type", "interval", "time_zone", "start", "end", "buckets", "gaps", "sources", "buckets_with_data",
                  "empty_buckets"])
}

extension CoverageBucket: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "start": .instant(),
        "end": .instant(),
        "date": .string("The day, YYYY-MM-DD (day interval)."),
        "count": .integer("Samples overlapping the bucket, every source."),
        "no_data": .boolean("True when nothing was recorded: missing, not 0."),
        "sources": .array(CoverageSourceCount.jsonSchema, "Sources with samples in the bucket, highest priority first."),
    ], required: ["start", "end", "count", "no_data", "sources"])
}

extension CoverageSourceCount: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "source": .string(), "count": .integer("Samples of this source overlapping the bucket."),
    ], required: ["source", "count"])
}

extension CoverageGap: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "start": .instant(), "end": .instant(),
        "buckets": .integer("Days (hours) the gap spans."),
    ], required: ["start", "end", "buckets"])
}

extension CoverageSource: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "source": .string(), "count": .integer(),
        "buckets_with_data": .integer(), "first": .instant(), "last": .instant(),
    ], required: ["source", "count", "buckets_with_data"])
}
