import Foundation
import HealthEngine
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

    enum CodingKeys: String, CodingKey { case start, end, date, count, noData = "no_data", sources }
}

/// A source's sample count in a bucket.
public struct CoverageSourceCount: Codable, Sendable, Hashable {
    public var source: String
    public var count: Int
}

/// Consecutive buckets without data.
public struct CoverageGap: Codable, Sendable, Hashable {
    public var start: String
    public var end: String
    /// How many buckets the gap spans.
    public var buckets: Int
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

    enum CodingKeys: String, CodingKey { case source, count, bucketsWithData = "buckets_with_data", first, last }
}

extension HealthService {
    /// Per day (or hour) of a range: which sources recorded `type` and how many samples, and the gaps where nothing
    /// was recorded — so a missing day reads as missing, never as 0. Quantity and category types.
    ///
    /// ```swift
    /// let days = try await service.coverage(CoverageRequest(type: "stepCount", start: "30d"))
    /// days.buckets.filter(\.noData).map(\.date)   // the days without steps
    /// ```
    /// - Throws: `HEALTH_INVALID_TYPE`, `HEALTH_INVALID_RANGE` (also over ``CoverageRequest/maxBuckets``),
    ///   `HEALTH_INVALID_ARGUMENT` (interval), `HEALTH_NO_SUMMARY` (workouts, correlations).
    public func coverage(_ request: CoverageRequest) async throws -> CoverageResult {
        guard let name = DateRange.nonEmpty(request.type) else {
            throw HealthError(.invalidArgument, "coverage needs a type, e.g. stepCount")
        }
        let service = try zoned(request.timeZone)
        let zone = service.homeTimeZone
        let range = try service.range(start: request.start, end: request.end, defaultStart: "30d")
        let intervalName = (DateRange.nonEmpty(request.interval) ?? "day").trimmingCharacters(in: .whitespaces).lowercased()
        let interval: StatisticsInterval
        switch intervalName {
        case "day", "daily", "d": interval = StatisticsInterval(1, .day)
        case "hour", "hourly", "h": interval = StatisticsInterval(1, .hour)
        default: throw HealthError(.invalidArgument, "coverage interval must be day or hour, got '\(intervalName.prefix(16))'")
        }
        let type = try await resolveType(name)
        guard type.kind == .quantity || type.kind == .category else {
            throw HealthError(.noSummary, "coverage covers quantity and category types; \(type.identifier) is a \(type.kind.rawValue) type: list its \(type.kind == .workout ? "workouts" : "samples")")
        }
        let seconds = range.end.timeIntervalSince(range.start)
        let estimate = seconds / (interval.unit == .hour ? 3_600 : 86_400)
        guard estimate <= Double(CoverageRequest.maxBuckets) else {
            throw HealthError(.invalidRange, "coverage answers at most \(CoverageRequest.maxBuckets) buckets; narrow the range\(interval.unit == .hour ? " or use the day interval" : "")")
        }
        let readable = try await authorizeRead([type.identifier])
        let statistics = try await engine.statistics(StatisticsRequest(
            type: type.identifier, start: range.start, end: range.end, interval: interval, timeZone: zone,
            separateBySource: true, includeEmpty: true))
        // Per source: its count in each bucket, by bucket start. A type it may not read has none.
        let series = readable ? statistics.bySource ?? [] : []
        var perBucket: [Date: [CoverageSourceCount]] = [:]
        for entry in series {
            for bucket in entry.buckets where bucket.count > 0 {
                perBucket[bucket.start, default: []].append(CoverageSourceCount(source: entry.source, count: bucket.count))
            }
        }
        let dated = interval.unit == .day
        var buckets: [CoverageBucket] = []
        var gaps: [CoverageGap] = []
        for bucket in statistics.buckets {
            let count = readable ? bucket.count : 0
            let item = CoverageBucket(start: service.iso(bucket.start), end: service.iso(bucket.end),
                                      date: dated ? ISO8601.dateString(bucket.start, timeZone: zone) : nil,
                                      count: count, noData: count == 0, sources: perBucket[bucket.start] ?? [])
            buckets.append(item)
            guard count == 0 else { continue }
            if let last = gaps.last, last.end == item.start {
                gaps[gaps.count - 1].end = item.end
                gaps[gaps.count - 1].buckets += 1
            } else {
                gaps.append(CoverageGap(start: item.start, end: item.end, buckets: 1))
            }
        }
        let sources = series.compactMap { entry -> CoverageSource? in
            let recorded = entry.buckets.filter { $0.count > 0 }
            guard !recorded.isEmpty else { return nil }
            return CoverageSource(source: entry.source, count: recorded.reduce(0) { $0 + $1.count },
                                  bucketsWithData: recorded.count,
                                  first: recorded.first.map { service.iso($0.start) },
                                  last: recorded.last.map { service.iso($0.start) })
        }
        let empty = buckets.filter(\.noData).count
        return CoverageResult(type: type.identifier, interval: interval.description, timeZone: zone.identifier,
                              start: service.iso(range.start), end: service.iso(range.end), buckets: buckets, gaps: gaps,
                              sources: sources, bucketsWithData: buckets.count - empty, emptyBuckets: empty)
    }
}
