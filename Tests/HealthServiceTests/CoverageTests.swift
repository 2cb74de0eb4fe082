import Foundation
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Every number explained: coverage tells missing from zero, a summary never reports a missing day as 0, and a
/// merged total says which source won.
@Suite struct CoverageTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let now = ISO8601.date("2024-06-30T15:30:00Z")!

    static func demoService() async throws -> HealthService {
        try await DemoWorld(days: 10, seed: 3, end: now, zone: utc).service()
    }

    @Test func coverageShowsSourcesPerDayAndTheDaysWithoutData() async throws {
        let service = try await Self.demoService()
        // Five days before the demo's first day, then its days: the gap is visible.
        let result = try await service.coverage(CoverageRequest(type: "stepCount", start: "2024-06-15", end: "2024-06-30"))
        #expect(result.buckets.count == 15)
        #expect(result.interval == "day")
        let empty = result.buckets.filter(\.noData)
        #expect(!empty.isEmpty && empty.count < 15, "\(result.buckets.map(\.count))")
        #expect(result.gaps.first?.start == result.buckets.first?.start, "the days before the demo are a gap")
        #expect(result.gaps.reduce(0) { $0 + $1.buckets } == result.emptyBuckets)
        #expect(result.bucketsWithData + result.emptyBuckets == 15)
        for bucket in result.buckets {
            #expect(bucket.noData == (bucket.count == 0))
            #expect(bucket.noData == bucket.sources.isEmpty)
        }
        let names = Set(result.sources.map(\.source))
        #expect(names.contains { $0.contains("Watch") } && names.contains { $0.contains("iPhone") }, "\(names)")

        let hours = try await service.coverage(CoverageRequest(type: "stepCount", start: "2024-06-29", end: "2024-06-30",
                                                               interval: "hour"))
        #expect(hours.buckets.count == 24)
        #expect(hours.buckets.allSatisfy { $0.date == nil })
        #expect(hours.emptyBuckets > 0, "nights have no steps")
    }

    @Test func coverageRefusesWhatItCannotAnswer() async throws {
        let service = try await Self.demoService()
        await #expect(throws: HealthError.self) { try await service.coverage(CoverageRequest(type: "stepz")) }
        do {
            _ = try await service.coverage(CoverageRequest(type: "stepCount", interval: "week"))
            Issue.record("week is not a coverage interval")
        } catch let error as HealthError { #expect(error.code == .invalidArgument) }
        do {
            _ = try await service.coverage(CoverageRequest(type: "stepCount", start: "2000-01-01", interval: "hour"))
            Issue.record("too many buckets")
        } catch let error as HealthError { #expect(error.code == .invalidRange) }
    }

    @Test func aTypeThatMayNotBeReadLooksLikeNoData() async throws {
        let owner = try await Self.demoService()
        try await owner.updateGrants(GrantsUpdate(principal: "mcp", deny: ["stepCount"]))
        let agent = owner.acting(as: .mcp())
        let denied = try await agent.coverage(CoverageRequest(type: "stepCount", start: "2024-06-25", end: "2024-06-30"))
        let missing = try await owner.coverage(CoverageRequest(type: "flightsClimbed", start: "2024-06-25", end: "2024-06-30"))
        #expect(denied.buckets.allSatisfy { $0.noData && $0.sources.isEmpty })
        #expect(denied.sources.isEmpty)
        #expect(denied.gaps.count == 1 && denied.gaps.first?.buckets == 5)
        #expect(denied.buckets.map(\.count) == missing.buckets.map(\.count))
        #expect(denied.gaps.map(\.buckets) == missing.gaps.map(\.buckets))
        let summary = try await agent.summary(SummaryRequest(type: "stepCount", start: "2024-06-25", end: "2024-06-30",
                                                             contributions: true))
        #expect(summary.contributions == [])
        #expect(summary.totalSum == nil)
        #expect(summary.buckets.allSatisfy { $0.noData == true && $0.contributions == nil })
    }

    @Test func anEmptyDayIsNoDataNeverZero() async throws {
        let service = try await Self.demoService()
        let result = try await service.summary(SummaryRequest(type: "stepCount", start: "2024-06-15", end: "2024-06-30"))
        let empty = result.buckets.filter { $0.count == 0 }
        #expect(!empty.isEmpty)
        for bucket in empty {
            #expect(bucket.sum == nil)
            #expect(bucket.noData == true)
        }
        #expect(result.buckets.filter { $0.count > 0 }.allSatisfy { $0.noData == nil })
        let json = String(decoding: try JSONEncoder().encode(empty[0]), as: UTF8.self)
        #expect(json.contains("\"no_data\":true") && !json.contains("\"sum\""))
        let nothing = try await service.summary(SummaryRequest(type: "stepCount", start: "2024-06-10", end: "2024-06-12",
                                                               interval: "total"))
        #expect(nothing.totalSum == nil)
        #expect(nothing.buckets.first?.noData == true)
    }

    @Test func contributionsSayWhichSourceWon() async throws {
        let service = try await Self.demoService()
        let result = try await service.summaryPages(SummaryRequest(type: "stepCount", start: "2024-06-20", end: "2024-06-30",
                                                                   limit: 3, contributions: true))
        let total = try #require(result.totalSum)
        let parts = try #require(result.contributions)
        #expect(parts.count >= 2)
        #expect(abs(parts.reduce(0) { $0 + $1.contribution } - total) <= 1e-9 * total)
        for part in parts { #expect(part.ownTotal >= part.contribution * (1 - 1e-9), "\(part)") }
        #expect(parts.reduce(0) { $0 + $1.ownTotal } > total, "the sources' own totals over-count")
        #expect(result.bySource == nil, "contributions alone do not add the unmerged series")
        for bucket in result.buckets where bucket.sum != nil {
            let sum = try #require(bucket.sum)
            #expect(abs((bucket.contributions ?? [:]).values.reduce(0, +) - sum) <= 1e-9 * max(1, sum))
        }
        do {
            _ = try await service.summary(SummaryRequest(type: "heartRate", contributions: true))
            Issue.record("heart rate is not merged")
        } catch let error as HealthError { #expect(error.code == .invalidArgument) }
    }
}
