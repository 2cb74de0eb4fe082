import Foundation
import HealthModel
import HealthAPI
import HealthService

/// The OpenClaw node's dialect over the service's neutral use cases: the plan's params become the service's requests
/// with the plan's defaults (limit 100, at most 500, newest first, today 00:00 → now), and the service's results
/// become the plan's payloads. `health.query` runs on ``HealthService/samples(_:)``, `health.summary` on
/// ``HealthService/summaryPages(_:)``, upstream's `health.summary {"period":"today"}` on ``HealthService/today()``,
/// `health.sleep` on ``HealthService/sleep(_:)`` and `health.coverage` on ``HealthService/coverage(_:)``.
extension HealthService {
    /// `health.query`'s default and largest `limit`.
    static let openClawQueryLimit = (default: 100, range: 1...500)

    /// `health.query`: defaults today 00:00 → now, limit 100 (1…500), newest first.
    ///
    /// ```swift
    /// let payload = try await service.query(OpenClawHealthQueryParams(type: "heartRate", limit: 10))
    /// ```
    public func query(_ params: OpenClawHealthQueryParams) async throws -> OpenClawHealthQueryPayload {
        let bounds = Self.openClawQueryLimit
        if let limit = params.limit, !bounds.range.contains(limit) {
            throw HealthError(.invalidArgument, "limit must be a whole number from \(bounds.range.lowerBound) to \(bounds.range.upperBound), got \(limit)")
        }
        let page = try await samples(SamplesRequest(type: params.type, start: params.startISO ?? "today",
                                                    end: params.endISO, limit: params.limit ?? bounds.default,
                                                    ascending: params.ascending))
        return OpenClawHealthQueryPayload(type: params.type, startISO: page.start, endISO: page.end,
                                          samples: page.samples.map(OpenClawHealthSample.init),
                                          hasMore: page.hasMore ? true : nil)
    }

    /// `health.summary`: interval `hour` | `day` | `week` (default `day`), range default today 00:00 → now, every
    /// bucket of the range.
    ///
    /// ```swift
    /// let payload = try await service.summary(OpenClawHealthSummaryParams(type: "stepCount", interval: "hour"))
    /// ```
    public func summary(_ params: OpenClawHealthSummaryParams) async throws -> OpenClawHealthSummaryPayload {
        let interval = params.interval ?? "day"
        guard ["hour", "day", "week"].contains(interval) else {
            throw HealthError(.invalidArgument, "interval must be hour, day or week, got '\(interval)'")
        }
        let result = try await summaryPages(SummaryRequest(type: params.type, start: params.startISO ?? "today",
                                                           end: params.endISO, interval: interval,
                                                           contributions: params.contributions))
        var payload = OpenClawHealthSummaryPayload(result)
        payload.type = params.type
        payload.interval = interval
        return payload
    }

    /// `health.coverage` (an extension of the plan): ``coverage(_:)`` in the node's wire names.
    ///
    /// ```swift
    /// let payload = try await service.coverage(OpenClawHealthCoverageParams(type: "stepCount", startISO: "30d"))
    /// ```
    public func coverage(_ params: OpenClawHealthCoverageParams) async throws -> OpenClawHealthCoveragePayload {
        let result = try await coverage(CoverageRequest(type: params.type, start: params.startISO, end: params.endISO,
                                                        interval: params.interval))
        return OpenClawHealthCoveragePayload(
            type: result.type, interval: result.interval, timeZone: result.timeZone, startISO: result.start,
            endISO: result.end,
            buckets: result.buckets.map {
                .init(startISO: $0.start, endISO: $0.end, date: $0.date, count: $0.count, noData: $0.noData,
                      sources: $0.sources)
            },
            gaps: result.gaps.map { .init(startISO: $0.start, endISO: $0.end, buckets: $0.buckets) },
            sources: result.sources)
    }

    /// Upstream OpenClaw's `health.summary {"period":"today"}`.
    ///
    /// ```swift
    /// let today = try await service.upstreamSummary(OpenClawUpstreamSummaryParams(period: "today"))
    /// ```
    public func upstreamSummary(_ params: OpenClawUpstreamSummaryParams) async throws -> OpenClawUpstreamSummaryPayload {
        guard params.period == "today" else {
            throw HealthError(.invalidArgument, "period must be \"today\", got \"\(params.period)\"")
        }
        let today = try await self.today()
        return OpenClawUpstreamSummaryPayload(
            period: "today", startISO: today.start, endISO: today.now, timeZoneIdentifier: today.timeZone,
            stepCount: today.steps, sleepDurationMinutes: today.sleep?.asleepMinutes,
            restingHeartRateBpm: today.restingHeartRateBpm, workoutCount: today.workoutCount,
            workoutDurationMinutes: today.workoutMinutes)
    }

    /// `health.sleep` (an extension of the plan): nights by wake-up day, default the last seven.
    ///
    /// ```swift
    /// let week = try await service.sleep(OpenClawHealthSleepParams(startISO: "7d"))
    /// ```
    public func sleep(_ params: OpenClawHealthSleepParams) async throws -> OpenClawHealthSleepPayload {
        var result = try await sleep(SleepRequest(start: params.startISO, end: params.endISO))
        let startISO = result.start
        var nights = result.nights
        while let next = result.nextCursor {
            result = try await sleep(SleepRequest(cursor: next))
            nights += result.nights
        }
        return OpenClawHealthSleepPayload(
            startISO: startISO, endISO: result.end, timeZone: result.timeZone,
            nights: nights.map {
                OpenClawHealthSleepNight(date: $0.date, bedtimeISO: $0.bedtime, wakeTimeISO: $0.wakeTime,
                                         inBedMinutes: $0.inBedMinutes, asleepMinutes: $0.asleepMinutes,
                                         coreMinutes: $0.coreMinutes, deepMinutes: $0.deepMinutes,
                                         remMinutes: $0.remMinutes, awakeMinutes: $0.awakeMinutes, sources: $0.sources)
            })
    }

    /// A stored sample as `health.update` sends it: ``record(_:type:unit:)`` in the plan's names.
    func wireSample(_ sample: HealthSample, type: SampleType) throws -> OpenClawHealthSample {
        OpenClawHealthSample(try record(sample, type: type))
    }
}

extension OpenClawHealthSample {
    /// A sample of a result in the plan's names: quantities in the type's unit (`bpm` for heart rates), categories
    /// by name.
    ///
    /// ```swift
    /// let wire = OpenClawHealthSample(page.samples[0])   // {"dateISO": "…", "value": 72, "unit": "bpm", …}
    /// ```
    public init(_ record: SampleRecord) {
        self.init(dateISO: record.start, endDateISO: record.end, value: record.value, unit: record.unit,
                  category: record.category, source: record.source)
    }
}

extension OpenClawHealthSummaryPayload {
    /// A summary in the OpenClaw wire form (`startISO`, `endISO`, `sum`, `average`, …; `durationsMinutes` for
    /// category types as an extension).
    ///
    /// ```swift
    /// let payload = OpenClawHealthSummaryPayload(try await service.summaryPages(request))
    /// ```
    public init(_ result: SummaryResult) {
        func wire(_ buckets: [SummaryBucket]) -> [OpenClawHealthStatistic] {
            buckets.map { bucket in
                var statistic = OpenClawHealthStatistic(
                    startISO: bucket.start, endISO: bucket.end, sum: bucket.sum, average: bucket.average, min: bucket.min,
                    max: bucket.max, unit: result.unit, mostRecent: bucket.mostRecent,
                    sources: bucket.sources.isEmpty ? nil : bucket.sources)
                statistic.durationsMinutes = bucket.durationsMinutes
                return statistic
            }
        }
        self.init(type: result.type, interval: result.interval, statistics: wire(result.buckets), timeZone: result.timeZone,
                  merged: result.merged, sourcePriority: result.sourcePriority,
                  bySource: result.bySource?.map { OpenClawHealthSourceSeries(source: $0.source, statistics: wire($0.buckets)) },
                  contributions: result.contributions?.map {
                      OpenClawHealthContribution(source: $0.source, contribution: $0.contribution, ownTotal: $0.ownTotal)
                  })
    }
}
