import Foundation
import HealthModel

/// HealthKit-accurate statistics of one type per interval.
///
/// ```swift
/// let week = try await service.summary(SummaryRequest(type: "stepCount", start: "2024-05-06", end: "2024-05-13"))
/// ```
public struct SummaryRequest: Codable, Sendable, Hashable {
    /// Required unless `cursor` is given.
    public var type: String?
    /// Default `7d`. See ``DateRange``.
    public var start: String?
    public var end: String?
    /// `minute`, `hour`, `day` (default), `week` (from Monday), `month`, `year`, with an optional count (`15minute`,
    /// `2week`), or `total` for one bucket over the whole range.
    public var interval: String?
    /// `sum` (cumulative types), `average`, `min`, `max`, `most_recent` (discrete), `duration` (category); default
    /// all that apply.
    public var statistics: [String]?
    public var timeZone: String?
    /// Also each source's own series, unmerged.
    public var bySource: Bool?
    /// Only these sources.
    public var sources: [String]?
    /// Leave out buckets without data.
    public var skipEmpty: Bool?
    /// Values in this unit instead of the type's own (`kcal`, `kJ`, `lb`, `mi`, …).
    public var unit: String?
    /// Buckets per page, 1…100,000; default about 1,000 values per page.
    public var limit: Int?
    public var cursor: String?
    /// Cumulative types: which source won — each source's part of the merged sum (per bucket and over the
    /// result) beside its own unmerged total. See ``SummaryResult/contributions``.
    public var contributions: Bool?

    public init(type: String? = nil, start: String? = nil, end: String? = nil, interval: String? = nil,
                statistics: [String]? = nil, timeZone: String? = nil, bySource: Bool? = nil, sources: [String]? = nil,
                skipEmpty: Bool? = nil, unit: String? = nil, limit: Int? = nil, cursor: String? = nil,
                contributions: Bool? = nil) {
        self.type = type; self.start = start; self.end = end; self.interval = interval; self.statistics = statistics
        self.timeZone = timeZone; self.bySource = bySource; self.sources = sources; self.skipEmpty = skipEmpty
        self.unit = unit; self.limit = limit; self.cursor = cursor; self.contributions = contributions
    }

    public static let maxLimit = 100_000
}

/// Statistics per bucket.
public struct SummaryResult: Codable, Sendable, Hashable {
    public var type: String
    /// The unit of every value; `min` for the durations of category types.
    public var unit: String
    public var interval: String
    public var timeZone: String
    public var start: String
    public var end: String
    public var statistics: [String]
    /// True when overlapping sources were merged by priority (cumulative and category types).
    public var merged: Bool
    /// The priority order in force, highest first.
    public var sourcePriority: [String]
    /// How the values were combined across sources.
    public var mergeNote: String
    public var buckets: [SummaryBucket]
    /// Cumulative types: the sum over the buckets of this page.
    public var totalSum: Double?
    public var bySource: [SourceSeries]?
    /// Which source won (with `contributions`): per source, in priority order, its part of the merged total of
    /// these buckets and its own unmerged total. The parts add up to `total_sum`; each `own_total` ≥ its part.
    ///
    /// ```json
    /// [{"source": "Apple Watch", "contribution": 61200, "own_total": 61200},
    ///  {"source": "iPhone", "contribution": 14800, "own_total": 70300}]
    /// ```
    public var contributions: [SourceContribution]?
    public var hasMore: Bool
    public var nextCursor: String?

    public init(type: String, unit: String, interval: String, timeZone: String, start: String, end: String,
                statistics: [String], merged: Bool, sourcePriority: [String], mergeNote: String,
                buckets: [SummaryBucket], totalSum: Double? = nil, bySource: [SourceSeries]? = nil,
                contributions: [SourceContribution]? = nil, hasMore: Bool, nextCursor: String? = nil) {
        self.type = type; self.unit = unit; self.interval = interval; self.timeZone = timeZone; self.start = start
        self.end = end; self.statistics = statistics; self.merged = merged; self.sourcePriority = sourcePriority
        self.mergeNote = mergeNote; self.buckets = buckets; self.totalSum = totalSum; self.bySource = bySource
        self.contributions = contributions; self.hasMore = hasMore; self.nextCursor = nextCursor
    }

    public struct SourceSeries: Codable, Sendable, Hashable {
        public var source: String
        public var buckets: [SummaryBucket]

        public init(source: String, buckets: [SummaryBucket]) {
            self.source = source; self.buckets = buckets
        }
    }

    /// One source's part of a merged total and its own total.
    public struct SourceContribution: Codable, Sendable, Hashable {
        public var source: String
        /// What counted after the merge.
        public var contribution: Double
        /// Everything the source recorded in the range, unmerged.
        public var ownTotal: Double

        public init(source: String, contribution: Double, ownTotal: Double) {
            self.source = source; self.contribution = contribution; self.ownTotal = ownTotal
        }

        enum CodingKeys: String, CodingKey { case source, contribution, ownTotal = "own_total" }
    }

    enum CodingKeys: String, CodingKey {
        case type, unit, interval, timeZone = "time_zone", start, end, statistics, merged
        case sourcePriority = "source_priority", mergeNote = "merge_note", buckets, totalSum = "total_sum"
        case bySource = "by_source", contributions, hasMore = "has_more", nextCursor = "next_cursor"
    }
}

/// One bucket.
public struct SummaryBucket: Codable, Sendable, Hashable {
    public var start: String
    public var end: String
    /// The bucket's first day, `YYYY-MM-DD` (day, week, month and year intervals).
    public var date: String?
    public var sum: Double?
    public var average: Double?
    public var min: Double?
    public var max: Double?
    public var mostRecent: Double?
    public var mostRecentAt: String?
    /// Category types: minutes per value, merged by priority.
    public var durationsMinutes: [String: Double]?
    /// Samples in the bucket, from every source, before the merge.
    public var count: Int
    /// Sources whose data counted, highest priority first.
    public var sources: [String]
    /// True when nothing was recorded in the bucket (`count` 0, no statistics): a missing day, never a 0.
    public var noData: Bool?
    /// With `contributions`: each source's part of `sum` after the merge, by source name.
    public var contributions: [String: Double]?

    public init(start: String, end: String, date: String? = nil, sum: Double? = nil, average: Double? = nil,
                min: Double? = nil, max: Double? = nil, mostRecent: Double? = nil, mostRecentAt: String? = nil,
                durationsMinutes: [String: Double]? = nil, count: Int, sources: [String], noData: Bool? = nil,
                contributions: [String: Double]? = nil) {
        self.start = start; self.end = end; self.date = date; self.sum = sum; self.average = average; self.min = min
        self.max = max; self.mostRecent = mostRecent; self.mostRecentAt = mostRecentAt
        self.durationsMinutes = durationsMinutes; self.count = count; self.sources = sources; self.noData = noData
        self.contributions = contributions
    }

    enum CodingKeys: String, CodingKey {
        case start, end, date, sum, average, min, max, mostRecent = "most_recent", mostRecentAt = "most_recent_at"
        case durationsMinutes = "durations_minutes", count, sources, noData = "no_data", contributions
    }
}

// MARK: - Schemas

extension SummaryRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A type identifier. Required unless cursor is given."),
        "start": .string("Start of the range: a date expression (DateRange). Default 7d."),
        "end": .string("End of the range (exclusive). Default now."),
        "interval": .string("minute, hour, day (default), week (from Monday), month, year, with an optional count (15minute, 2week), or total."),
        "statistics": .array(.string(oneOf: ["sum", "average", "min", "max", "most_recent", "duration"]),
                             "Default: all that apply."),
        "timeZone": .string("IANA zone for the buckets; default the home zone."),
        "bySource": .boolean("Also each source's own series, unmerged."),
        "sources": .array(.string(), "Only these sources."),
        "skipEmpty": .boolean("Leave out buckets without data."),
        "unit": .string("Values in this unit instead of the type's own (kcal, kJ, lb, mi, …)."),
        "limit": .integer("Buckets per page.", minimum: 1, maximum: maxLimit),
        "cursor": .string("next_cursor of the previous page."),
        "contributions": .boolean("Cumulative types: each source's part of the merged sum beside its own total."),
    ])
}

extension SummaryResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string(),
        "unit": .string("The unit of every value."),
        "interval": .string(),
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "statistics": .array(.string()),
        "merged": .boolean("True when overlapping sources were merged by priority (cumulative and category types)."),
        "source_priority": .array(.string(), "The priority order in force, highest first."),
        "merge_note": .string("How the values were combined across sources."),
        "buckets": .array(SummaryBucket.jsonSchema),
        "total_sum": .number("Cumulative types: the sum over the buckets of this reply."),
        "by_source": .array(.object([
            "source": .string(),
            "buckets": .array(SummaryBucket.jsonSchema),
        ], required: ["source", "buckets"]), "Each source's own series, unmerged (by_source)."),
        "contributions": .array(.object([
            "source": .string(),
            "contribution": .number("The source's part of the merged total of this reply."),
            "own_total": .number("Everything the source recorded, unmerged."),
        ], required: ["source", "contribution", "own_total"]), "With contributions: per source, in priority order."),
    ].adding(JSONSchema.paging),
    required: ["type", "unit", "interval", "time_zone", "start", "end", "statistics", "merged", "source_priority",
               "merge_note", "buckets", "has_more"])
}

extension SummaryBucket: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "start": .instant(),
        "end": .instant(),
        "date": .string("The bucket's first day, YYYY-MM-DD (day, week, month and year intervals)."),
        "sum": .number("Cumulative types: the total, merged across sources by priority."),
        "average": .number(),
        "min": .number(),
        "max": .number(),
        "most_recent": .number(),
        "most_recent_at": .instant(),
        "durations_minutes": .map(.number(), "Category types: minutes per value, merged by priority."),
        "count": .integer("Samples in the bucket, from every source, before the merge."),
        "sources": .array(.string(), "Sources whose data counted, highest priority first."),
        "no_data": .boolean("True when nothing was recorded in the bucket: missing, not 0 (its statistics are absent)."),
        "contributions": .map(.number(), "With contributions: each source's part of sum after the merge."),
    ], required: ["start", "end", "count", "sources"])
}
