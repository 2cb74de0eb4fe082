import Foundation
import HealthModel
import HealthStore

/// Queries and HealthKit-accurate statistics over a ``HealthStore``.
///
/// ```swift
/// let engine = HealthEngine(store: store)
/// let days = try await engine.statistics(StatisticsRequest(
///     type: try SampleTypeRegistry.resolve("stepCount"), start: weekAgo, end: now, interval: StatisticsInterval(1, .day), timeZone: zone))
/// for day in days.buckets { print(day.start, day.sum ?? 0) }   // merged iPhone + Watch steps
/// ```
public struct HealthEngine: Sendable {
    public let store: any HealthStore

    public init(store: any HealthStore) {
        self.store = store
    }

    /// Resolves a type name given by a user: a registered type in any spelling, or a type present in the store.
    /// - Throws: `HEALTH_INVALID_TYPE` with close matches.
    public func resolveType(_ name: String) async throws -> SampleType {
        if let type = SampleTypeRegistry.registered(name) { return type }
        let present = try await store.typeSummaries()
        if let summary = present.first(where: { $0.type == name || $0.type.lowercased() == name.lowercased() }) {
            return SampleTypeRegistry.unregistered(summary.type)
                ?? SampleType(identifier: summary.type, kind: summary.kind, displayName: summary.type, isRegistered: false)
        }
        if let type = SampleTypeRegistry.unregistered(name) { return type }
        return try SampleTypeRegistry.resolve(name)
    }

    // MARK: Samples

    /// Samples of a type, with quantities converted to `unit` when given. The query is trusted: its type is a
    /// resolved identifier, its range in order and its limit positive (the service checks each request once).
    public func samples(_ query: SampleQuery, unit: String? = nil) async throws -> SamplePage {
        var page = try await store.samples(query)
        if let unit {
            let target = try HealthUnit.parse(unit)
            for index in page.samples.indices {
                guard case .quantity(let value, let from) = page.samples[index].value else { continue }
                let converted = try HealthUnit.parse(from).convert(value, to: target)
                page.samples[index].value = .quantity(converted, unit: target.description)
            }
        }
        return page
    }

    // MARK: Statistics

    /// The options a type supports, and its defaults.
    public static func defaultOptions(for type: SampleType) -> Set<StatisticsOption> {
        switch type.kind {
        case .category: return [.duration]
        case .quantity:
            switch type.aggregation {
            case .cumulative: return [.sum]
            case .discrete: return [.average, .min, .max, .mostRecent]
            case nil: return [.average, .min, .max, .mostRecent]
            }
        case .correlation, .workout: return []
        }
    }

    /// Statistics over one range, or a collection of buckets when `interval` is set. The request is trusted (see
    /// ``StatisticsRequest``): the service has resolved its type, ordered its range and checked its statistics,
    /// unit and sources against the type.
    public func statistics(_ request: StatisticsRequest) async throws -> StatisticsResult {
        let type = request.type
        let options = request.options.isEmpty ? Self.defaultOptions(for: type) : request.options

        // Unit: the requested one, else the canonical one, else what the samples were recorded in.
        var unit: String? = nil
        if type.kind == .quantity {
            if let requested = request.unit ?? type.canonicalUnit {
                unit = try HealthUnit.parse(requested).description
            } else {
                unit = try await store.typeSummaries().first { $0.type == type.identifier }?.units.first
            }
        }

        // Buckets.
        let edges: [Date]
        if let interval = request.interval {
            let calendar = BucketCalendar(timeZone: request.timeZone, interval: interval)
            edges = try calendar.edges(from: request.start, to: request.end,
                                       anchor: request.anchor ?? calendar.defaultAnchor(for: request.start))
        } else {
            edges = [request.start, max(request.end, request.start)]
        }
        let grid = BucketGrid(edges: edges.map(\.timeIntervalSince1970),
                              rangeStart: request.start.timeIntervalSince1970,
                              rangeEnd: request.end.timeIntervalSince1970)

        // Priority.
        let ordered = try await store.priority(type: type.identifier, counts: false)
        var rankOf: [Int64: Int] = [:]
        for (index, entry) in ordered.enumerated() { rankOf[entry.id] = index }
        let names = ordered.map(\.source.name)
        var sourceIDs: [Int64]? = nil
        if let wanted = request.sources {
            let lowered = Set(wanted.map { $0.lowercased() })
            // Names the service checked against the type's sources; none found scans none.
            sourceIDs = ordered.filter { lowered.contains($0.source.name.lowercased()) || lowered.contains($0.source.key.lowercased()) }
                .map(\.id)
        }
        let scan = ScanRequest(type: type.identifier, start: request.start, end: request.end,
                               unit: type.kind == .quantity ? unit : nil, sourceIDs: sourceIDs)
        let merged = !request.separateBySource && (type.kind == .category || type.isCumulative)
        let isSleep = type.categoryHandling == .sleepStages
        let series: Series
        if type.kind == .category {
            series = try await collect(scan, ordered: ordered, rankOf: rankOf, separate: request.separateBySource) {
                DurationMerge(grid: grid, rankCount: $0, layerCount: isSleep ? 2 : 1, sleepLayers: isSleep)
            }
        } else if type.isCumulative || (type.aggregation == nil && options.contains(.sum)) {
            let track = request.contributions
            series = try await collect(scan, ordered: ordered, rankOf: rankOf, separate: request.separateBySource) {
                CumulativeMerge(grid: grid, rankCount: $0, tracksContributions: track)
            }
        } else {
            series = try await collect(scan, ordered: ordered, rankOf: rankOf, separate: request.separateBySource) {
                _ in DiscreteAccumulator(grid: grid)
            }
        }
        let context = BucketContext(grid: grid, type: type, options: options, includeEmpty: request.includeEmpty)
        var buckets = context.buckets(series.merged, names: names, contributions: request.contributions)
        var bySource = series.bySource?.map { entry in
            SourceSeries(source: entry.name, buckets: context.buckets(entry.accumulator, names: [entry.name]))
        }
        if type.kind == .quantity, type.aggregation == .discrete, options.contains(.min) || options.contains(.max) {
            try await applyBucketExtremes(&buckets, &bySource, type: type.identifier, request: request, unit: unit,
                                          options: options)
        }
        return StatisticsResult(type: type.identifier, unit: unit, interval: request.interval,
                                timeZone: request.timeZone.identifier,
                                options: options.sorted { $0.rawValue < $1.rawValue }, merged: merged,
                                priority: names, buckets: buckets, bySource: bySource)
    }

    /// What summing every source, without the merge, would give: the figure other tools report.
    public func unmergedSums(type: String, start: Date, end: Date, interval: StatisticsInterval,
                             timeZone: TimeZone) async throws -> [Double] {
        let resolved = try await resolveType(type)
        let calendar = BucketCalendar(timeZone: timeZone, interval: interval)
        let edges = try calendar.edges(from: start, to: end, anchor: calendar.defaultAnchor(for: start))
        let grid = BucketGrid(edges: edges.map(\.timeIntervalSince1970), rangeStart: start.timeIntervalSince1970,
                              rangeEnd: end.timeIntervalSince1970)
        var sum = ProportionalSum(grid: grid)
        try await store.scan(ScanRequest(type: resolved.identifier, start: start, end: end, unit: resolved.canonicalUnit)) {
            sum.add(start: $0.start, end: $0.end, value: $0.value)
        }
        return sum.sums
    }
}

/// The accumulated figures of one statistics run: merged, and per source when asked.
struct Series {
    var merged: any RowAccumulator
    var bySource: [(name: String, accumulator: any RowAccumulator)]?
}

extension HealthEngine {
    /// Feeds the scan to a merged accumulator and, when `separate`, to one accumulator per source (rank 0 each).
    /// Generic so that the per-row calls are direct, not dynamic.
    func collect<A: RowAccumulator>(_ scan: ScanRequest, ordered: [SourceSummary], rankOf: [Int64: Int],
                                    separate: Bool, make: (Int) -> A) async throws -> Series {
        let rankCount = max(1, ordered.count)
        var merged = make(rankCount)
        var perSource: [Int64: A] = [:]
        var lastSource: Int64 = -1, lastRank = 0
        try await store.scan(scan) { row in
            if row.sourceID != lastSource {
                lastSource = row.sourceID
                lastRank = rankOf[row.sourceID] ?? rankCount - 1
            }
            merged.add(row, rank: lastRank)
            if separate { perSource[row.sourceID, default: make(1)].add(row, rank: 0) }
        }
        merged.finish()
        guard separate else { return Series(merged: merged, bySource: nil) }
        var bySource: [(name: String, accumulator: any RowAccumulator)] = []
        for entry in ordered {
            guard var accumulator = perSource[entry.id] else { continue }
            accumulator.finish()
            bySource.append((entry.source.name, accumulator))
        }
        return Series(merged: merged, bySource: bySource)
    }
}

/// What turns accumulated figures into buckets.
struct BucketContext {
    let grid: BucketGrid
    let type: SampleType
    let options: Set<StatisticsOption>
    let includeEmpty: Bool

    func buckets(_ accumulator: any RowAccumulator, names: [String], contributions: Bool = false) -> [StatisticsBucket] {
        var result: [StatisticsBucket] = []
        for b in 0..<grid.count {
            var bucket = StatisticsBucket(start: Date(timeIntervalSince1970: grid.edges[b]),
                                          end: Date(timeIntervalSince1970: grid.edges[b + 1]))
            accumulator.fill(&bucket, index: b, context: self)
            let mask = accumulator.contributorMask(b)
            bucket.sources = names.indices.filter { mask & (1 << UInt64(min($0, 63))) != 0 }.map { names[$0] }
            if contributions, bucket.count > 0, let parts = accumulator.contributionParts(b) {
                var named: [String: Double] = [:]
                for (rank, part) in parts.enumerated() where part != 0 && rank < names.count { named[names[rank], default: 0] += part }
                bucket.contributions = named
            }
            if includeEmpty || bucket.count > 0 { result.append(bucket) }
        }
        return result
    }
}

/// An accumulator of scan rows into buckets.
protocol RowAccumulator {
    mutating func add(_ row: ScanRow, rank: Int)
    mutating func finish()
    func fill(_ bucket: inout StatisticsBucket, index b: Int, context: BucketContext)
    func contributorMask(_ b: Int) -> UInt64
    /// Each rank's part of bucket `b` after the merge, when tracked.
    func contributionParts(_ b: Int) -> ArraySlice<Double>?
}

extension RowAccumulator {
    func contributionParts(_ b: Int) -> ArraySlice<Double>? { nil }
}

extension CumulativeMerge: RowAccumulator {
    @inline(__always)
    mutating func add(_ row: ScanRow, rank: Int) {
        add(start: row.start, end: row.end, value: row.value, rank: rank)
    }

    func fill(_ bucket: inout StatisticsBucket, index b: Int, context: BucketContext) {
        bucket.count = counts[b]
        if counts[b] > 0 { bucket.sum = sums[b] }
    }

    func contributorMask(_ b: Int) -> UInt64 { contributors[b] }

    func contributionParts(_ b: Int) -> ArraySlice<Double>? {
        contributions.isEmpty ? nil : contributions[(b * rankCount)..<((b + 1) * rankCount)]
    }
}

extension DiscreteAccumulator: RowAccumulator {
    @inline(__always)
    mutating func add(_ row: ScanRow, rank: Int) {
        add(start: row.start, end: row.end, value: row.value, rank: rank)
    }

    mutating func finish() {}

    func fill(_ bucket: inout StatisticsBucket, index b: Int, context: BucketContext) {
        bucket.count = counts[b]
        guard counts[b] > 0 else { return }
        let options = context.options
        if options.contains(.average) { bucket.average = sums[b] / Double(counts[b]) }
        if options.contains(.min) { bucket.min = mins[b] }
        if options.contains(.max) { bucket.max = maxs[b] }
        if options.contains(.sum) { bucket.sum = sums[b] }
        if options.contains(.mostRecent) {
            bucket.mostRecent = recentValue[b]
            bucket.mostRecentDate = Date(timeIntervalSince1970: recentStart[b])
        }
    }

    func contributorMask(_ b: Int) -> UInt64 { contributors[b] }
}

extension DurationMerge: RowAccumulator {
    @inline(__always)
    mutating func add(_ row: ScanRow, rank: Int) {
        let value = row.value.isFinite ? Int32(clamping: Int(row.value)) : 0
        // Sleep: "in bed" (0) is merged apart from the stages.
        let layer: Int32 = sleepLayers && value == 0 ? 1 : 0
        add(start: row.start, end: row.end, value: value, layer: layer, rank: rank)
    }

    func fill(_ bucket: inout StatisticsBucket, index b: Int, context: BucketContext) {
        bucket.count = counts[b]
        guard counts[b] > 0 else { return }
        var named: [String: Double] = [:]
        for (value, seconds) in durations[b] {
            named[context.type.categoryValue(raw: Int(value))?.name ?? String(value), default: 0] += seconds
        }
        bucket.durations = named
        if firstStart[b].isFinite { bucket.dataStart = Date(timeIntervalSince1970: firstStart[b]) }
        if lastEnd[b].isFinite { bucket.dataEnd = Date(timeIntervalSince1970: lastEnd[b]) }
    }

    func contributorMask(_ b: Int) -> UInt64 { contributors[b] }
}
