import Foundation
import HealthEngine
import HealthModel
import HealthStore

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

    public struct SourceSeries: Codable, Sendable, Hashable {
        public var source: String
        public var buckets: [SummaryBucket]
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

    enum CodingKeys: String, CodingKey {
        case start, end, date, sum, average, min, max, mostRecent = "most_recent", mostRecentAt = "most_recent_at"
        case durationsMinutes = "durations_minutes", count, sources, noData = "no_data", contributions
    }
}

extension HealthService {
    static let statisticOptions: [String: StatisticsOption] = [
        "sum": .sum, "average": .average, "avg": .average, "mean": .average, "min": .min, "minimum": .min,
        "max": .max, "maximum": .max, "most_recent": .mostRecent, "mostrecent": .mostRecent, "latest": .mostRecent,
        "duration": .duration,
    ]

    /// The wire name of a statistic.
    public static func statisticName(_ option: StatisticsOption) -> String {
        switch option {
        case .sum: "sum"
        case .average: "average"
        case .min: "min"
        case .max: "max"
        case .mostRecent: "most_recent"
        case .duration: "duration"
        }
    }

    /// The statistics a type supports, by their wire names: `sum` for cumulative types, `average`, `min`, `max`,
    /// `most_recent` for discrete ones, `duration` for category types but sleep (which has sleep nights).
    public static func statisticNames(for type: SampleType) -> [String] {
        switch type.kind {
        case .quantity:
            switch type.aggregation {
            case .cumulative: return ["sum"]
            case .discrete, nil: return ["average", "min", "max", "most_recent"]
            }
        case .category: return type.identifier == "sleepAnalysis" ? [] : ["duration"]
        case .correlation, .workout: return []
        }
    }

    struct SummaryState: Codable {
        var type: String
        var start: Date
        var end: Date
        var interval: String
        var statistics: [String]
        var bySource: Bool
        var sources: [String]?
        var skipEmpty: Bool
        var unit: String?
        var timeZone: String
        var size: Int
        /// The next page's first bucket index from `anchor`.
        var index: Int?
        var anchor: Date?
        var contributions: Bool?
    }

    /// Statistics of a type per bucket, merged across sources by priority for cumulative and category types, paged
    /// on bucket boundaries. A type this principal may not read gives empty buckets.
    ///
    /// ```swift
    /// let hr = try await service.summary(SummaryRequest(type: "heartRate", start: "30d", interval: "week"))
    /// hr.buckets.map(\.average)
    /// ```
    public func summary(_ request: SummaryRequest) async throws -> SummaryResult {
        var state: SummaryState
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: SummaryState.self, use: "summary")
            guard (1...SummaryRequest.maxLimit).contains(state.size), state.end >= state.start,
                  let index = state.index, abs(index) < 1_000_000_000 else { throw ServiceCursor.invalid("summary") }
            if let limit = request.limit {
                state.size = try Self.limit(limit, default: state.size, range: 1...SummaryRequest.maxLimit)
            }
        } else {
            let zoned = try self.zoned(request.timeZone)
            let range = try zoned.range(start: request.start, end: request.end, defaultStart: "7d")
            state = SummaryState(type: request.type ?? "", start: range.start, end: range.end,
                                 interval: DateRange.nonEmpty(request.interval)?.trimmingCharacters(in: .whitespaces) ?? "day",
                                 statistics: Self.list(request.statistics) ?? [], bySource: request.bySource ?? false,
                                 sources: Self.list(request.sources), skipEmpty: request.skipEmpty ?? false,
                                 unit: DateRange.nonEmpty(request.unit), timeZone: zoned.homeTimeZone.identifier,
                                 size: 0, index: nil, anchor: nil, contributions: request.contributions)
            if let limit = request.limit {
                state.size = try Self.limit(limit, default: 0, range: 1...SummaryRequest.maxLimit)
            }
        }
        let service = try zoned(state.timeZone)
        let zone = service.homeTimeZone
        let type = try await resolveType(state.type)
        state.type = type.identifier
        if type.identifier == "sleepAnalysis" {
            throw HealthError(.noSummary, "sleepAnalysis is summarized per night: use sleep nights (sleep_nights, `healthbridge sleep`, health.sleep, /api/v1/health/sleep) for bedtime, wake time, asleep, deep, REM, core and awake")
        }
        let allowed = Self.statisticNames(for: type)
        guard !allowed.isEmpty else {
            throw HealthError(.noSummary, "'\(type.identifier)' is a \(type.kind.rawValue) type and has no statistics; read its samples\(type.kind == .workout ? " or list its workouts" : "")")
        }
        var options: Set<StatisticsOption> = []
        for name in state.statistics {
            guard let option = Self.statisticOptions[name.lowercased()] else {
                throw HealthError(.invalidArgument, "unknown statistic '\(name)'; use \(allowed.joined(separator: ", ")) for \(type.identifier)")
            }
            guard allowed.contains(Self.statisticName(option)) else {
                let kind = type.kind == .category ? "a category type" : type.isCumulative ? "cumulative" : "discrete"
                throw HealthError(.noSummary, "\(type.identifier) is \(kind): its statistics are \(allowed.joined(separator: ", ")), not \(Self.statisticName(option))")
            }
            options.insert(option)
        }
        if options.isEmpty { options = Set(allowed.compactMap { Self.statisticOptions[$0] }) }
        state.statistics = options.map(Self.statisticName).sorted()
        let interval: StatisticsInterval?
        if ["total", "none", "all"].contains(state.interval.lowercased()) {
            interval = nil
        } else {
            interval = try StatisticsInterval(parsing: state.interval)
        }
        if let unit = state.unit {
            guard type.kind == .quantity else {
                throw HealthError(.invalidUnit, "\(type.identifier) is a \(type.kind.rawValue) type: its durations are in minutes, it takes no unit")
            }
            if let canonical = type.canonicalUnit {
                _ = try HealthUnit.parse(canonical).convert(1, to: HealthUnit.parse(unit))
            }
        }
        let contributions = state.contributions ?? false
        if contributions && !type.isCumulative {
            throw HealthError(.invalidArgument, "contributions apply to cumulative types (steps, distance, energy, …), whose sources are merged by priority; \(type.identifier) is not cumulative")
        }
        try await checkSources(state.sources, type: type)
        let readable = try await authorizeRead([type.identifier])
        if state.size == 0 {
            // A denied type pages as a type without sources: the page size never depends on data it may not read.
            let sourceCount = state.bySource && readable ? try await store.sources(type: type.identifier).count : 0
            state.size = max(25, 1_000 / (1 + sourceCount))
        }

        // The page: whole buckets from the anchor, at most `size` of them.
        let grid = interval.map { BucketCalendar(timeZone: zone, interval: $0) }
        let anchor = state.anchor ?? grid?.defaultAnchor(for: state.start) ?? state.start
        let paging = state.index != nil
        let first = try state.index ?? grid.map { grid throws(HealthError) in try grid.index(containing: state.start, anchor: anchor) } ?? 0
        let pageStart = paging ? (grid?.edge(first, anchor: anchor) ?? state.start) : state.start
        // A cursor is client data: its page must lie inside its own range.
        guard pageStart >= state.start.addingTimeInterval(-1), pageStart <= state.end else { throw ServiceCursor.invalid("summary") }
        var pageEnd = state.end
        var nextIndex: Int?
        if let grid {
            let limit = grid.edge(first + state.size, anchor: anchor)
            if limit < state.end { pageEnd = limit; nextIndex = first + state.size }
        }
        var statistics = try await engine.statistics(StatisticsRequest(
            type: type.identifier, start: pageStart, end: pageEnd, interval: interval,
            anchor: interval == nil ? nil : anchor, timeZone: zone, options: options,
            separateBySource: state.bySource || contributions, includeEmpty: !state.skipEmpty, unit: state.unit,
            sources: state.sources, contributions: contributions))
        if !readable {
            // No data, as HealthKit answers an app that may not read the type.
            statistics.buckets = state.skipEmpty ? [] : statistics.buckets.map { StatisticsBucket(start: $0.start, end: $0.end) }
            statistics.bySource = state.bySource || contributions ? [] : nil
            statistics.priority = []
        }
        var ownSeries: [SourceSeries]?
        if contributions {
            ownSeries = statistics.bySource
            if !state.bySource { statistics.bySource = nil }
        }
        var result = service.summaryResult(statistics, type: type, interval: interval, options: options,
                                           start: pageStart, end: pageEnd)
        if let ownSeries {
            result.contributions = Self.contributions(buckets: statistics.buckets, own: ownSeries,
                                                      priority: statistics.priority)
        }
        if let nextIndex {
            state.index = nextIndex
            state.anchor = anchor
            result.hasMore = true
            result.nextCursor = ServiceCursor.encode(state, use: "summary")
        }
        return result
    }

    func summaryResult(_ result: StatisticsResult, type: SampleType, interval: StatisticsInterval?,
                       options: Set<StatisticsOption>, start: Date, end: Date) -> SummaryResult {
        let zone = homeTimeZone
        let dated = interval.map { [.day, .week, .month, .year].contains($0.unit) } ?? false
        func bucket(_ bucket: StatisticsBucket) -> SummaryBucket {
            SummaryBucket(start: iso(bucket.start), end: iso(bucket.end),
                          date: dated ? ISO8601.dateString(bucket.start, timeZone: zone) : nil,
                          sum: bucket.sum, average: bucket.average, min: bucket.min, max: bucket.max,
                          mostRecent: bucket.mostRecent, mostRecentAt: bucket.mostRecentDate.map(iso),
                          durationsMinutes: bucket.durations?.mapValues { Self.minutes($0) },
                          count: bucket.count, sources: bucket.sources, noData: bucket.count == 0 ? true : nil,
                          contributions: bucket.contributions)
        }
        let merged = type.isCumulative || type.kind == .category
        let order = result.priority.joined(separator: " > ")
        let note = merged
            ? "Merged by source priority (\(order.isEmpty ? "no sources" : order)): where sources overlap in time only the highest-priority one counts, as in Apple Health; never add the sources' own figures together."
            : "Discrete values: statistics over every source's samples (no merge needed); sources by priority: \(order.isEmpty ? "none" : order)."
        let sums = result.buckets.compactMap(\.sum)
        return SummaryResult(
            type: type.identifier,
            unit: type.kind == .category ? "min" : Self.wireUnit(result.unit ?? type.canonicalUnit ?? "count"),
            interval: interval?.description ?? "total", timeZone: zone.identifier, start: iso(start), end: iso(end),
            statistics: options.map(Self.statisticName).sorted(), merged: merged, sourcePriority: result.priority,
            mergeNote: note, buckets: result.buckets.map(bucket),
            totalSum: type.isCumulative && !sums.isEmpty ? sums.reduce(0, +) : nil,
            bySource: result.bySource?.map { SummaryResult.SourceSeries(source: $0.source, buckets: $0.buckets.map(bucket)) },
            hasMore: false, nextCursor: nil)
    }

    /// Each source's part of the merged sums of `buckets` and its own total from `own`, in priority order; sources
    /// with neither are left out.
    static func contributions(buckets: [StatisticsBucket], own: [SourceSeries],
                              priority: [String]) -> [SummaryResult.SourceContribution] {
        var parts: [String: Double] = [:]
        for bucket in buckets { for (source, part) in bucket.contributions ?? [:] { parts[source, default: 0] += part } }
        var owns: [String: Double] = [:]
        for series in own { owns[series.source, default: 0] += series.buckets.reduce(0) { $0 + ($1.sum ?? 0) } }
        let names = priority + Set(parts.keys).union(owns.keys).subtracting(priority).sorted()
        return names.compactMap { name in
            guard parts[name] != nil || owns[name] != nil else { return nil }
            return SummaryResult.SourceContribution(source: name, contribution: parts[name] ?? 0, ownTotal: owns[name] ?? 0)
        }
    }

    /// Seconds as minutes, to a tenth: the precision every duration in a result has.
    static func minutes(_ seconds: Double) -> Double { (seconds / 6).rounded() / 10 }
}
