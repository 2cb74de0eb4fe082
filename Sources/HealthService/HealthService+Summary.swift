import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

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
        type.summaryStyle.statistics
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
        if type.summaryStyle == .nights {
            throw HealthError(.noSummary, "\(type.identifier) is summarized per night: use sleep nights for bedtime, wake time, asleep, deep, REM, core and awake",
                              argument: "type", hint: .sleepNights)
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
            type: type, start: pageStart, end: pageEnd, interval: interval,
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
