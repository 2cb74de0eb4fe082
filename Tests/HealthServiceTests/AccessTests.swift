import Foundation
import HealthAPI
import HealthDemo
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Consent: principals and their grants per type and direction, decided by the service for every interface.
@Suite struct AccessTests {
    static func service() async throws -> HealthService { try await CoverageTests.demoService() }

    @Test func defaultsFollowThePrincipalsKind() async throws {
        let service = try await Self.service()
        #expect(try await service.grants(for: .owner) == AccessGrants(read: .all, write: .all))
        #expect(try await service.grants(for: .mcp()) == AccessGrants(read: .all, write: .none))
        #expect(try await service.grants(for: .gateway()) == AccessGrants(read: .all, write: .none))
        #expect(try await service.grants(for: .device("phone")) == AccessGrants(read: .none, write: .none))
        #expect(try await service.grants(for: Principal(parsing: "ingest:hae")) == AccessGrants(read: .none, write: .none))
    }

    @Test func readDenialLooksLikeNoData() async throws {
        let owner = try await Self.service()
        try await owner.updateGrants(GrantsUpdate(principal: "mcp", deny: ["heartRate"]))
        let agent = owner.acting(as: .mcp())
        let range = (start: "2024-06-25", end: "2024-06-30")

        let samples = try await agent.samples(SamplesRequest(type: "heartRate", start: range.start, end: range.end))
        #expect(samples.samples.isEmpty && !samples.hasMore)
        let summary = try await agent.summary(SummaryRequest(type: "heartRate", start: range.start, end: range.end))
        #expect(summary.buckets.count == 5)
        #expect(summary.buckets.allSatisfy { $0.count == 0 && $0.average == nil })
        #expect(try await agent.latest(LatestRequest(type: "heartRate")).found == false)
        #expect(try await !agent.types().types.contains { $0.type == "heartRate" })
        #expect(try await agent.today().steps != nil, "other types stay readable")
        // The owner still sees everything, and so does another principal.
        #expect(try await !owner.samples(SamplesRequest(type: "heartRate", start: range.start, end: range.end)).samples.isEmpty)
        #expect(try await !owner.acting(as: .gateway()).latest(LatestRequest(type: "heartRate")).found == false)
    }

    @Test func aPairedDeviceIsToldWhatIsNotShared() async throws {
        let owner = try await Self.service()
        try await owner.updateGrants(GrantsUpdate(principal: "device:*", allowRead: ["stepCount"]))
        let phone = owner.acting(as: .device("phone-1"))
        let page = try await phone.samples(ofTypes: TypedSamplesRequest(types: ["stepCount"], start: "2024-06-29", end: "2024-06-30"))
        #expect(!page.samples.isEmpty)
        do {
            _ = try await phone.samples(ofTypes: TypedSamplesRequest(types: ["stepCount", "heartRate"], start: "2024-06-29"))
            Issue.record("expected HEALTH_NOT_AUTHORIZED")
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized)
            #expect(error.deniedTypes == ["heartRate"])
        }
        // A device's own grants replace those of every device.
        try await owner.updateGrants(GrantsUpdate(principal: "device:phone-1", allowRead: ["heartRate"]))
        #expect(try await owner.grants(for: .device("phone-1")).read == .types(["stepCount", "heartRate"]))
        #expect(try await owner.grants(for: .device("phone-2")).read == .types(["stepCount"]))
    }

    @Test func onlyTheOwnerChangesGrantsAndWritesNeedAGrant() async throws {
        let owner = try await Self.service()
        let agent = owner.acting(as: .mcp())
        await #expect(throws: HealthError.self) {
            try await agent.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["bodyMass"]))
        }
        await #expect(throws: HealthError.self) { try await agent.priority(PriorityRequest(type: "stepCount", reset: true)) }
        do {
            try await agent.authorizeWrite("bodyMass")
            Issue.record("expected HEALTH_NOT_AUTHORIZED")
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized)
            #expect(error.hint == .ownerAllowsWrite(principal: "mcp:default", type: "bodyMass"))
        }
        try await owner.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["bodyMass"]))
        try await agent.authorizeWrite("bodyMass")
        try await owner.authorizeWrite("dietaryWater")
    }

    @Test func grantsArePersistedAndListed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hb-grants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("health.sqlite")
        do {
            let service = try await HealthService.open(store: try SQLiteHealthStore(location: .file(url)))
            let entry = try await service.updateGrants(GrantsUpdate(principal: "app:diet", allowRead: ["bodyMass"],
                                                                    allowWrite: ["HKQuantityTypeIdentifierDietaryWater", "bodyMass"]))
            #expect(entry.read == "bodyMass" && entry.write == "bodyMass, dietaryWater" && entry.explicit)
            _ = try await service.updateGrants(GrantsUpdate(principal: "mcp", deny: ["heartRate", "sleepAnalysis"]))
        }
        let reopened = try await HealthService.open(store: try SQLiteHealthStore(location: .file(url)))
        let list = try await reopened.listGrants().principals
        #expect(list.first?.principal == "owner")
        #expect(list.contains { $0.principal == "app:diet" && $0.write == "bodyMass, dietaryWater" })
        #expect(list.contains { $0.principal == "mcp:default" && $0.read == "all except heartRate, sleepAnalysis" })
        #expect(list.contains { $0.principal == "device:*" && $0.read == "none" && !$0.explicit })
        // Reset goes back to the defaults and forgets the principal.
        _ = try await reopened.updateGrants(GrantsUpdate(principal: "app:diet", reset: true))
        #expect(try await !reopened.listGrants().principals.contains { $0.principal == "app:diet" })
        #expect(try await reopened.grants(for: Principal(parsing: "app:diet")) == AccessGrants(read: .none, write: .none))
    }

    @Test func badGrantsAreRefused() async throws {
        let owner = try await Self.service()
        for (update, code) in [(GrantsUpdate(principal: "robot:x", allowRead: ["stepCount"]), HealthError.Code.invalidArgument),
                               (GrantsUpdate(principal: "device", allowRead: ["stepCount"]), .invalidArgument),
                               (GrantsUpdate(principal: "owner", deny: ["stepCount"]), .invalidArgument),
                               (GrantsUpdate(principal: "mcp", allowRead: ["stepz"]), .invalidType)] {
            do {
                _ = try await owner.updateGrants(update)
                Issue.record("expected \(code) for \(update)")
            } catch let error as HealthError {
                #expect(error.code == code, "\(update)")
            }
        }
    }
}
