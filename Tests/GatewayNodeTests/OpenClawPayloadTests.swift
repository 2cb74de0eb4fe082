import Foundation
import HealthBridgeTesting
import Testing
import HealthModel
import HealthStore
import HealthService
import GatewayNode

/// The OpenClaw wire payloads the node maps from the service's results: field names, defaults and errors as in the
/// plan.
@Suite struct OpenClawPayloadTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let now = ISO8601.date("2024-06-30T15:30:00Z")!

    static func demoService() async throws -> HealthService {
        try await DemoWorld(days: 10, seed: 3, end: now, zone: utc).service()
    }

    @Test func queryDefaultsToTodayNewestFirstWithLimit100() async throws {
        let service = try await Self.demoService()
        let payload = try await service.query(OpenClawHealthQueryParams(type: "heartRate"))
        #expect(payload.startISO == "2024-06-30T00:00:00Z")
        #expect(payload.endISO == "2024-06-30T15:30:00Z")
        #expect(payload.samples.count == 100)
        #expect(payload.hasMore == true)
        let dates = payload.samples.map(\.dateISO)
        #expect(dates == dates.sorted(by: >))
        #expect(payload.samples.allSatisfy { $0.unit == "bpm" && $0.value != nil && $0.source == "Alex’s Apple Watch" })
        #expect(dates.allSatisfy { $0 >= payload.startISO && $0 < payload.endISO })
    }

    @Test(arguments: [1, 3, 500])
    func limitIsHonouredFrom1Through500(limit: Int) async throws {
        let service = try await Self.demoService()
        let payload = try await service.query(OpenClawHealthQueryParams(
            type: "heartRate", startISO: "2024-06-21T00:00:00Z", limit: limit, ascending: true))
        #expect(payload.samples.count == limit)
        #expect(payload.samples.map(\.dateISO) == payload.samples.map(\.dateISO).sorted())
    }

    /// Out of range is refused, as on every interface (one rule, one code), never silently clamped.
    @Test(arguments: [0, -1, 501, 10_000])
    func limitOutOfRangeIsAnArgumentError(limit: Int) async throws {
        let service = try await Self.demoService()
        await #expect(throws: HealthError.self) {
            _ = try await service.query(OpenClawHealthQueryParams(type: "heartRate", limit: limit))
        }
        do {
            _ = try await service.query(OpenClawHealthQueryParams(type: "heartRate", limit: limit))
        } catch let error as HealthError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("1 to 500"))
        }
    }

    @Test func sleepSamplesCarryThePlansCategoryNames() async throws {
        let service = try await Self.demoService()
        let payload = try await service.query(OpenClawHealthQueryParams(
            type: "HKCategoryTypeIdentifierSleepAnalysis", startISO: "2024-06-28T00:00:00Z", limit: 500))
        let categories = Set(payload.samples.compactMap(\.category))
        #expect(categories.isSubset(of: ["inBed", "asleep", "awake", "core", "deep", "rem"]))
        #expect(categories.contains("inBed") && categories.contains("deep"))
        #expect(payload.samples.allSatisfy { $0.value == nil && $0.unit == nil })
    }

    @Test func summaryListsEveryBucketMergedWithThePlansShape() async throws {
        let service = try await Self.demoService()
        let payload = try await service.summary(OpenClawHealthSummaryParams(
            type: "stepCount", startISO: "2024-06-25T00:00:00Z", endISO: "2024-06-30T00:00:00Z"))
        #expect(payload.interval == "day")
        #expect(payload.statistics.count == 5)
        #expect(payload.statistics.first?.startISO == "2024-06-25T00:00:00Z")
        #expect(payload.statistics.allSatisfy { $0.unit == "count" && $0.average == nil })
        #expect(payload.merged == true)
        #expect(payload.sourcePriority?.first == "Alex’s Apple Watch")
        let json = String(decoding: try JSONEncoder.wire.encode(payload), as: UTF8.self)
        #expect(json.contains("\"statistics\":[{\"endISO\":\"2024-06-26T00:00:00Z\""))
        #expect(!json.contains("null"))
    }

    @Test func summaryOfHeartRateIsDiscrete() async throws {
        let service = try await Self.demoService()
        let payload = try await service.summary(OpenClawHealthSummaryParams(
            type: "heartRate", startISO: "2024-06-29T00:00:00Z", endISO: "2024-06-30T00:00:00Z", interval: "hour"))
        #expect(payload.statistics.count == 24)
        let filled = payload.statistics.filter { $0.average != nil }
        #expect(!filled.isEmpty)
        #expect(filled.allSatisfy { ($0.min ?? 0) <= ($0.average ?? 0) && ($0.average ?? 0) <= ($0.max ?? 0) && $0.sum == nil })
        #expect(payload.statistics.first?.unit == "bpm")
    }

    @Test func errorsUseThePlansCodes() async throws {
        let service = try await Self.demoService()
        do {
            _ = try await service.summary(OpenClawHealthSummaryParams(type: "sleepAnalysis"))
            Issue.record("expected an error")
        } catch let error as HealthError {
            #expect(error.code == .noSummary)
            #expect(error.message.contains("sleep nights"))
        }
        do {
            _ = try await service.query(OpenClawHealthQueryParams(type: "stepz"))
            Issue.record("expected an error")
        } catch let error as HealthError {
            #expect(error.code == .invalidType)
            #expect(error.description.hasPrefix("HEALTH_INVALID_TYPE: "))
        }
        do {
            _ = try await service.summary(OpenClawHealthSummaryParams(type: "stepCount", interval: "fortnight"))
            Issue.record("expected an error")
        } catch let error as HealthError {
            #expect(error.code == .invalidArgument)
        }
        do {
            _ = try await service.query(OpenClawHealthQueryParams(type: "stepCount", startISO: "2024-06-30T10:00:00Z",
                                                                  endISO: "2024-06-30T09:00:00Z"))
            Issue.record("expected an error")
        } catch let error as HealthError {
            #expect(error.code == .invalidRange)
        }
        do {
            _ = try await service.query(OpenClawHealthQueryParams(type: "stepCount", startISO: "last tuesday"))
            Issue.record("expected an error")
        } catch let error as HealthError {
            #expect(error.code == .invalidRange)
        }
    }

    @Test func upstreamTodaySummary() async throws {
        let service = try await Self.demoService()
        let payload = try await service.upstreamSummary(OpenClawUpstreamSummaryParams(period: "today"))
        #expect(payload.period == "today")
        #expect(payload.timeZoneIdentifier == Self.utc.identifier)
        #expect(payload.startISO == "2024-06-30T00:00:00Z")
        #expect((payload.stepCount ?? 0) > 0)
        #expect((payload.sleepDurationMinutes ?? 0) > 180)
        await #expect(throws: HealthError.self) {
            try await service.upstreamSummary(OpenClawUpstreamSummaryParams(period: "week"))
        }
    }
}
