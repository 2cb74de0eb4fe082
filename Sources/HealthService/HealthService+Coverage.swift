import Foundation
import HealthAPI
import HealthEngine
import HealthModel

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
            type: type, start: range.start, end: range.end, interval: interval, timeZone: zone,
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
