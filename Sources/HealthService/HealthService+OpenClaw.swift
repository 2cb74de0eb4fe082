import Foundation
import HealthEngine
import HealthModel

/// The OpenClaw node's commands, with the plan's wire types, built on the use cases: `health.query` on
/// ``HealthService/samples(_:)``, `health.summary` on ``HealthService/summary(_:)``, upstream's
/// `health.summary {"period":"today"}` on ``HealthService/today()``, and `health.sleep` on
/// ``HealthService/sleep(_:)``.
extension HealthService {
    /// `health.query`: defaults today 00:00 → now, limit 100 (1…500), newest first.
    ///
    /// ```swift
    /// let payload = try await service.query(OpenClawHealthQueryParams(type: "heartRate", limit: 10))
    /// ```
    public func query(_ params: OpenClawHealthQueryParams) async throws -> OpenClawHealthQueryPayload {
        let limit = try Self.limit(params.limit, default: 100, range: 1...500)
        let page = try await samples(SamplesRequest(type: params.type, start: params.startISO ?? "today",
                                                    end: params.endISO, limit: limit, ascending: params.ascending))
        return OpenClawHealthQueryPayload(
            type: params.type, startISO: page.start, endISO: page.end,
            samples: page.samples.map {
                OpenClawHealthSample(dateISO: $0.start, endDateISO: $0.end, value: $0.value, unit: $0.unit,
                                     category: $0.category, source: $0.source)
            },
            hasMore: page.hasMore ? true : nil)
    }

    /// `health.summary`: interval `hour` | `day` | `week` (default `day`), range default today 00:00 → now, every
    /// bucket of the range.
    public func summary(_ params: OpenClawHealthSummaryParams) async throws -> OpenClawHealthSummaryPayload {
        let interval = params.interval ?? "day"
        guard ["hour", "day", "week"].contains(interval) else {
            throw HealthError(.invalidArgument, "interval must be hour, day or week, got '\(interval)'")
        }
        let result = try await summaryPages(SummaryRequest(type: params.type, start: params.startISO ?? "today",
                                                           end: params.endISO, interval: interval,
                                                           contributions: params.contributions))
        var payload = Self.openClawSummary(result)
        payload.type = params.type
        payload.interval = interval
        return payload
    }

    /// Every page of a summary, as one result.
    public func summaryPages(_ request: SummaryRequest) async throws -> SummaryResult {
        var result = try await summary(request)
        var cursor = result.nextCursor
        while let next = cursor {
            let page = try await summary(SummaryRequest(cursor: next))
            result.buckets += page.buckets
            if let series = page.bySource, var all = result.bySource {
                for index in all.indices {
                    all[index].buckets += series.first { $0.source == all[index].source }?.buckets ?? []
                }
                result.bySource = all
            }
            if let parts = page.contributions, var all = result.contributions {
                for part in parts {
                    if let index = all.firstIndex(where: { $0.source == part.source }) {
                        all[index].contribution += part.contribution
                        all[index].ownTotal += part.ownTotal
                    } else {
                        all.append(part)
                    }
                }
                result.contributions = all
            }
            result.end = page.end
            cursor = page.nextCursor
        }
        result.hasMore = false
        result.nextCursor = nil
        let sums = result.buckets.compactMap(\.sum)
        result.totalSum = result.totalSum == nil || sums.isEmpty ? result.totalSum : sums.reduce(0, +)
        return result
    }

    /// A summary in the OpenClaw wire form (`startISO`, `endISO`, `sum`, `average`, …; `durationsMinutes` for
    /// category types as an extension).
    public static func openClawSummary(_ result: SummaryResult) -> OpenClawHealthSummaryPayload {
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
        return OpenClawHealthSummaryPayload(
            type: result.type, interval: result.interval, statistics: wire(result.buckets), timeZone: result.timeZone,
            merged: result.merged, sourcePriority: result.sourcePriority,
            bySource: result.bySource?.map { OpenClawHealthSourceSeries(source: $0.source, statistics: wire($0.buckets)) },
            contributions: result.contributions?.map {
                OpenClawHealthContribution(source: $0.source, contribution: $0.contribution, ownTotal: $0.ownTotal)
            })
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
}
