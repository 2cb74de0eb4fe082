import Foundation
import HealthAPI
import HealthModel
import Testing
@testable import HealthService

/// The service checks every request once, before the engine sees it: the engine trusts a validated request (a
/// resolved type, a range in order, statistics the type supports, a compatible unit, known sources), so each of
/// these refusals is the service's. They were the engine's own checks before.
@Suite struct ServiceValidationTests {
    static let range = (start: "2024-06-25T00:00:00Z", end: "2024-06-26T00:00:00Z")

    static func refusal(_ work: () async throws -> Void) async -> HealthError? {
        do {
            try await work()
            return nil
        } catch let error as HealthError {
            return error
        } catch {
            return HealthError(.internalError, "\(error)")
        }
    }

    static func summary(_ service: HealthService, _ type: String, start: String = range.start, end: String = range.end,
                        statistics: [String]? = nil, unit: String? = nil, sources: [String]? = nil) async -> HealthError? {
        await refusal {
            _ = try await service.summary(SummaryRequest(type: type, start: start, end: end, statistics: statistics,
                                                         sources: sources, unit: unit))
        }
    }

    @Test func aStatisticTheTypeDoesNotHaveIsRefused() async throws {
        let service = try await HealthServiceTests.demoService()
        #expect(await Self.summary(service, "stepCount", statistics: ["average"])?.code == .noSummary)
        #expect(await Self.summary(service, "heartRate", statistics: ["sum"])?.code == .noSummary)
        #expect(await Self.summary(service, "sleepAnalysis")?.code == .noSummary)
    }

    @Test func anUnknownTypeIsRefusedWithCloseMatches() async throws {
        let service = try await HealthServiceTests.demoService()
        let error = await Self.summary(service, "stepcont")
        #expect(error?.code == .invalidType)
        #expect(error?.message.contains("stepCount") == true)
        #expect(error?.argument == "type" && error?.hint == .listTypes)
    }

    @Test func aRangeEndingBeforeItStartsIsRefused() async throws {
        let service = try await HealthServiceTests.demoService()
        let reversed = await Self.summary(service, "stepCount", start: Self.range.end, end: Self.range.start)
        #expect(reversed?.code == .invalidRange && reversed?.argument == "end")
        let unreadable = await Self.summary(service, "stepCount", start: "last tuesday")
        #expect(unreadable?.code == .invalidRange && unreadable?.argument == "start")
        let samples = await Self.refusal {
            _ = try await service.samples(SamplesRequest(type: "heartRate", start: Self.range.end, end: Self.range.start))
        }
        #expect(samples?.code == .invalidRange)
        let sleep = await Self.refusal {
            _ = try await service.sleep(SleepRequest(start: Self.range.end, end: Self.range.start))
        }
        #expect(sleep?.code == .invalidRange)
    }

    @Test func anIncompatibleUnitIsRefused() async throws {
        let service = try await HealthServiceTests.demoService()
        #expect(await Self.summary(service, "bodyMass", unit: "mL")?.code == .invalidUnit)
        #expect(await Self.summary(service, "bodyMass", unit: "lb") == nil)
    }

    @Test func anUnknownSourceIsRefusedNotAnEmptyAnswer() async throws {
        let service = try await HealthServiceTests.demoService()
        let error = await Self.summary(service, "stepCount", sources: ["Nobody’s Phone"])
        #expect(error?.code == .invalidArgument)
        #expect(error?.argument == "sources" && error?.hint == .listSources)
    }

    @Test func aLimitOutOfRangeIsRefused() async throws {
        let service = try await HealthServiceTests.demoService()
        for limit in [0, -1, SamplesRequest.maxLimit + 1] {
            let error = await Self.refusal { _ = try await service.samples(SamplesRequest(type: "heartRate", limit: limit)) }
            #expect(error?.code == .invalidArgument && error?.argument == "limit", "limit \(limit)")
        }
    }
}
