import Foundation
import HealthModel

/// The statistics HealthKit computes (`HKStatisticsOptions`).
public enum StatisticsOption: String, Sendable, Hashable, Codable, CaseIterable {
    /// Cumulative types: the merged sum.
    case sum
    /// Discrete types: the average, minimum, maximum and most recent value.
    case average, min, max, mostRecent
    /// Category types: time spent in each category value (e.g. sleep stages), merged by source priority.
    case duration
}

/// A bucket length: a count of calendar components (`5 minute`, `1 day`, `1 week`).
public struct StatisticsInterval: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
        case minute, hour, day, week, month, year
    }
    public var count: Int
    public var unit: Unit

    public init(_ count: Int = 1, _ unit: Unit) {
        self.count = max(1, count)
        self.unit = unit
    }

    /// Parses `day`, `hour`, `week`, `month`, `year`, `minute`, optionally prefixed by a count (`15minute`,
    /// `15min`, `2 weeks`).
    public init(parsing text: String) throws(HealthError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = trimmed.prefix { $0.isNumber }
        var name = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        if name.hasSuffix("s") && name.count > 3 { name.removeLast() }
        let aliases: [String: Unit] = ["min": .minute, "minute": .minute, "h": .hour, "hr": .hour, "hour": .hour,
                                       "d": .day, "day": .day, "daily": .day, "w": .week, "week": .week,
                                       "weekly": .week, "month": .month, "monthly": .month, "y": .year,
                                       "year": .year, "yearly": .year, "hourly": .hour]
        guard let unit = aliases[name] else {
            throw HealthError(.invalidArgument,
                              "unknown interval '\(text)'; use minute, hour, day, week, month or year (e.g. 15minute)")
        }
        let count = digits.isEmpty ? 1 : Int(digits) ?? 0
        guard count >= 1, count <= 1000 else {
            throw HealthError(.invalidArgument, "interval count must be between 1 and 1000, got '\(text)'")
        }
        self.init(count, unit)
    }

    public var description: String { count == 1 ? unit.rawValue : "\(count)\(unit.rawValue)" }

    var component: Calendar.Component {
        switch unit {
        case .minute: .minute
        case .hour: .hour
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        case .year: .year
        }
    }
}

/// What to compute: one type over a range, optionally in buckets. A validated request: the engine trusts it. Its
/// type is resolved, `end` is not before `start`, `options` are ones the type supports (empty: its defaults), `unit`
/// is compatible with the type's and `sources` name sources of the type; `HealthService` checks each of these once.
///
/// ```swift
/// let request = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: monthAgo, end: now,
///                                 interval: StatisticsInterval(1, .day), timeZone: TimeZone(identifier: "Europe/Paris")!)
/// let result = try await engine.statistics(request)
/// ```
public struct StatisticsRequest: Sendable, Hashable {
    public var type: SampleType
    public var start: Date
    public var end: Date
    /// nil: one statistic over the whole range.
    public var interval: StatisticsInterval?
    /// The date buckets align to; default: the start of the interval unit containing `start` in `timeZone`
    /// (weeks start on Monday).
    public var anchor: Date?
    public var timeZone: TimeZone
    /// Empty: the type's defaults (sum for cumulative, average/min/max/mostRecent for discrete, duration for
    /// category types).
    public var options: Set<StatisticsOption>
    /// One series per source, without merging.
    public var separateBySource: Bool
    /// Include buckets without data (with nil values).
    public var includeEmpty: Bool
    /// Report quantities in this unit instead of the type's canonical unit.
    public var unit: String?
    /// Only these sources (names or keys).
    public var sources: [String]?
    /// Cumulative types: what each source contributed to each merged bucket (``StatisticsBucket/contributions``),
    /// computed during the merge.
    public var contributions: Bool

    public init(type: SampleType, start: Date, end: Date, interval: StatisticsInterval? = nil, anchor: Date? = nil,
                timeZone: TimeZone = .current, options: Set<StatisticsOption> = [], separateBySource: Bool = false,
                includeEmpty: Bool = false, unit: String? = nil, sources: [String]? = nil, contributions: Bool = false) {
        self.type = type; self.start = start; self.end = end; self.interval = interval; self.anchor = anchor
        self.timeZone = timeZone; self.options = options; self.separateBySource = separateBySource
        self.includeEmpty = includeEmpty; self.unit = unit; self.sources = sources; self.contributions = contributions
    }
}

/// One bucket's statistics.
public struct StatisticsBucket: Sendable, Hashable, Codable {
    public var start: Date
    public var end: Date
    public var sum: Double?
    public var average: Double?
    public var min: Double?
    public var max: Double?
    public var mostRecent: Double?
    public var mostRecentDate: Date?
    /// Seconds per category value name (duration statistics).
    public var durations: [String: Double]?
    /// Category types: the first and last moment covered by a sample in the bucket.
    public var dataStart: Date?
    public var dataEnd: Date?
    /// Samples in the bucket (from every source, before the merge).
    public var count: Int
    /// Names of the sources whose samples contributed after the merge.
    public var sources: [String]
    /// Cumulative types, when asked (``StatisticsRequest/contributions``): each source's part of the merged `sum`,
    /// by source name; the parts add up to `sum`. Only sources with a part are listed.
    ///
    /// ```swift
    /// day.contributions  // ["Apple Watch": 6_120, "iPhone": 1_480] for a sum of 7_600
    /// ```
    public var contributions: [String: Double]?

    public init(start: Date, end: Date, sum: Double? = nil, average: Double? = nil, min: Double? = nil,
                max: Double? = nil, mostRecent: Double? = nil, mostRecentDate: Date? = nil,
                durations: [String: Double]? = nil, count: Int = 0, sources: [String] = []) {
        self.start = start; self.end = end; self.sum = sum; self.average = average; self.min = min; self.max = max
        self.mostRecent = mostRecent; self.mostRecentDate = mostRecentDate; self.durations = durations
        self.count = count; self.sources = sources
    }

    public var isEmpty: Bool { count == 0 }
}

/// One source's series when statistics are separated by source.
public struct SourceSeries: Sendable, Hashable, Codable {
    public var source: String
    public var buckets: [StatisticsBucket]
    public init(source: String, buckets: [StatisticsBucket]) { self.source = source; self.buckets = buckets }
}

/// The answer to a ``StatisticsRequest``.
public struct StatisticsResult: Sendable, Hashable, Codable {
    public var type: String
    public var unit: String?
    public var interval: StatisticsInterval?
    public var timeZone: String
    public var options: [StatisticsOption]
    /// True when overlapping sources were merged by priority (cumulative and category types, not separated).
    public var merged: Bool
    /// The priority order the merge used, highest first.
    public var priority: [String]
    public var buckets: [StatisticsBucket]
    public var bySource: [SourceSeries]?

    public init(type: String, unit: String?, interval: StatisticsInterval?, timeZone: String,
                options: [StatisticsOption], merged: Bool, priority: [String], buckets: [StatisticsBucket],
                bySource: [SourceSeries]? = nil) {
        self.type = type; self.unit = unit; self.interval = interval; self.timeZone = timeZone
        self.options = options; self.merged = merged; self.priority = priority; self.buckets = buckets
        self.bySource = bySource
    }
}
