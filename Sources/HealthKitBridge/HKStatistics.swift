import Foundation
import HealthAPI
import HealthModel

/// What a statistics query computes (HealthKit's `HKStatisticsOptions`).
public struct HKStatisticsOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)
    public static let discreteAverage = HKStatisticsOptions(rawValue: 1 << 1)
    public static let discreteMin = HKStatisticsOptions(rawValue: 1 << 2)
    public static let discreteMax = HKStatisticsOptions(rawValue: 1 << 3)
    public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)
    public static let mostRecent = HKStatisticsOptions(rawValue: 1 << 5)
    public static let duration = HKStatisticsOptions(rawValue: 1 << 6)

    /// The server's names of the statistics.
    var serverNames: [String] {
        var names: [String] = []
        if contains(.cumulativeSum) { names.append("sum") }
        if contains(.discreteAverage) { names.append("average") }
        if contains(.discreteMin) { names.append("min") }
        if contains(.discreteMax) { names.append("max") }
        if contains(.mostRecent) { names.append("most_recent") }
        return names
    }
}

/// Statistics of one quantity type over one interval, merged across sources by the server's priority order exactly
/// as HealthKit merges them: HealthKit's `HKStatistics`.
///
/// ```swift
/// let kcal = statistics.sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0
/// ```
public final class HKStatistics: Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    let unit: HKUnit
    let bucket: SummaryBucket
    let perSource: [String: SummaryBucket]

    init(type: HKQuantityType, unit: HKUnit, bucket: SummaryBucket, perSource: [String: SummaryBucket]) {
        quantityType = type
        self.unit = unit
        self.bucket = bucket
        self.perSource = perSource
        startDate = HealthKitConnection.date(bucket.start) ?? .distantPast
        endDate = HealthKitConnection.date(bucket.end) ?? .distantPast
    }

    private func quantity(_ value: Double?) -> HKQuantity? { value.map { HKQuantity(unit: unit, doubleValue: $0) } }

    /// The sources that contributed (with ``HKStatisticsOptions/separateBySource``, those with a series of their own).
    public var sources: [HKSource]? {
        let names = perSource.isEmpty ? bucket.sources : perSource.keys.sorted()
        return names.isEmpty ? nil : names.map { HKSource(name: $0) }
    }

    public func sumQuantity() -> HKQuantity? { quantity(bucket.sum) }
    public func averageQuantity() -> HKQuantity? { quantity(bucket.average) }
    public func minimumQuantity() -> HKQuantity? { quantity(bucket.min) }
    public func maximumQuantity() -> HKQuantity? { quantity(bucket.max) }
    public func mostRecentQuantity() -> HKQuantity? { quantity(bucket.mostRecent) }
    public func mostRecentQuantityDateInterval() -> DateInterval? {
        guard let at = bucket.mostRecentAt.flatMap(HealthKitConnection.date) else { return nil }
        return DateInterval(start: at, duration: 0)
    }

    public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(perSource[source.name]?.sum) }
    public func averageQuantity(for source: HKSource) -> HKQuantity? { quantity(perSource[source.name]?.average) }
    public func minimumQuantity(for source: HKSource) -> HKQuantity? { quantity(perSource[source.name]?.min) }
    public func maximumQuantity(for source: HKSource) -> HKQuantity? { quantity(perSource[source.name]?.max) }
    public func mostRecentQuantity(for source: HKSource) -> HKQuantity? { quantity(perSource[source.name]?.mostRecent) }
}

extension HealthKitConnection {
    /// The server's statistics of `type` over `filter`'s range in buckets of `interval` ("total": one bucket).
    func statistics(_ type: HKQuantityType, _ filter: HKPredicateSpec, options: HKStatisticsOptions, interval: String,
                    start: Date? = nil, end: Date? = nil) async throws(HKError) -> (HKUnit, [HKStatistics]) {
        if let unsupported = Self.unsupported(filter) {
            throw HKError(.errorInvalidArgument, "statistics take a date predicate only, not \(unsupported)")
        }
        let range = filter.range
        let lower = start ?? range?.start, upper = end ?? range?.end
        var names = options.serverNames
        if names.isEmpty {
            names = type.aggregationStyle == .cumulative ? ["sum"] : ["average", "min", "max", "most_recent"]
        }
        var query: [(String, String)] = [
            ("type", type.serverName), ("start", lower.map { ISO8601.string($0) } ?? Self.allTimeStart),
            ("end", upper.map { ISO8601.string($0) } ?? ISO8601.string(Date())), ("interval", interval),
            ("statistics", names.joined(separator: ",")), ("time_zone", TimeZone.current.identifier),
        ]
        if options.contains(.separateBySource) { query.append(("by_source", "true")) }
        var buckets: [SummaryBucket] = []
        var series: [SummaryResult.SourceSeries] = []
        var unit = "count"
        while true {
            let page = try await get("health/statistics", query, as: SummaryResult.self)
            unit = page.unit
            buckets += page.buckets
            series += page.bySource ?? []
            guard let next = page.nextCursor, page.hasMore else { break }
            query = [("cursor", next)]
        }
        let hkUnit = HKUnit(from: unit)
        let statistics = buckets.map { bucket in
            var perSource: [String: SummaryBucket] = [:]
            for source in series { if let own = source.buckets.first(where: { $0.start == bucket.start }) { perSource[source.source] = own } }
            return HKStatistics(type: type, unit: hkUnit, bucket: bucket, perSource: perSource)
        }
        return (hkUnit, statistics)
    }

    /// A part of a predicate statistics cannot take (they are computed on the server over a time range).
    static func unsupported(_ filter: HKPredicateSpec) -> String? {
        switch filter {
        case .all, .dateRange: return nil
        case .and(let parts): return parts.lazy.compactMap(unsupported).first
        case .metadata: return "a metadata predicate"
        case .uuids: return "a UUID predicate"
        default: return "this predicate"
        }
    }
}

