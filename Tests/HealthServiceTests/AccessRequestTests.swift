import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// HealthKit-style authorization: an app asks, the owner decides, the app learns its write status only.
@Suite struct AccessRequestTests {
    static let app = Principal(kind: .app, name: "com.example.diet")

    @Test func anAppAsksTheOwnerDecidesAndTheAppIsNotAskedAgain() async throws {
        let owner = try await CoverageTests.demoService()
        let app = owner.acting(as: Self.app)

        let before = try await app.authorizationStatus(types: ["dietaryWater", "bodyMass"])
        #expect(before.write == ["dietaryWater": .notDetermined, "bodyMass": .notDetermined])
        #expect(!before.requestPending)

        let filed = try await app.requestAccess(AccessRequestInput(
            read: ["bodyMass", "HKQuantityTypeIdentifierActiveEnergyBurned"], write: ["dietaryWater", "bodyMass"],
            reasons: ["bodyMass": "Track weight trends", "dietaryWater": "Log hydration"]))
        let request = try #require(filed.request)
        #expect(request.status == .pending)
        #expect(request.read == ["bodyMass", "activeEnergyBurned"])
        #expect(request.reasons["bodyMass"] == "Track weight trends")
        #expect(filed.write["dietaryWater"] == .notDetermined)
        #expect(try await app.authorizationStatus(types: ["dietaryWater"]).requestPending)

        // Asking again while pending adds to the same request.
        let again = try await app.requestAccess(AccessRequestInput(write: ["dietaryEnergyConsumed"]))
        #expect(again.request?.id == request.id)
        #expect(again.request?.write == ["dietaryWater", "bodyMass", "dietaryEnergyConsumed"])

        // Nobody but the owner sees or decides requests.
        await #expect(throws: HealthError.self) { try await app.accessRequests() }
        await #expect(throws: HealthError.self) { try await app.decideAccessRequest(AccessDecision(id: request.id, approve: true)) }

        let pending = try await owner.accessRequests(status: .pending)
        #expect(pending.requests.map(\.id) == [request.id])
        // The owner grants reading both types, and writing water only.
        let decided = try await owner.decideAccessRequest(AccessDecision(id: request.id, approve: true,
                                                                         write: ["dietaryWater"]))
        #expect(decided.status == .approved)
        #expect(decided.grantedWrite == ["dietaryWater"])
        #expect(decided.grantedRead == ["bodyMass", "activeEnergyBurned"])

        let after = try await app.authorizationStatus(types: ["dietaryWater", "bodyMass", "dietaryEnergyConsumed", "stepCount"])
        #expect(after.write == ["dietaryWater": .sharingAuthorized, "bodyMass": .sharingDenied,
                                "dietaryEnergyConsumed": .sharingDenied, "stepCount": .notDetermined])
        #expect(!after.requestPending)
        #expect(try await owner.grants(for: Self.app).read.allows("activeEnergyBurned"))
        #expect(try await app.logWater(250).inserted == 1)

        // Decided types are not asked again; a new type is.
        #expect(try await app.requestAccess(AccessRequestInput(write: ["bodyMass"])).request == nil)
        let newer = try await app.requestAccess(AccessRequestInput(write: ["bodyMass", "dietaryProtein"]))
        #expect(newer.request?.write == ["dietaryProtein"])
        let denied = try await owner.decideAccessRequest(AccessDecision(id: try #require(newer.request?.id), approve: false))
        #expect(denied.status == .denied && denied.grantedWrite.isEmpty)
        #expect(try await app.authorizationStatus(types: ["dietaryProtein"]).write["dietaryProtein"] == .sharingDenied)

        // A decided request cannot be decided again; an unknown one is not found.
        await #expect { try await owner.decideAccessRequest(AccessDecision(id: request.id, approve: false)) }
            throws: { ($0 as? HealthError)?.code == .conflict }
        await #expect { try await owner.decideAccessRequest(AccessDecision(id: "req-nope", approve: true)) }
            throws: { ($0 as? HealthError)?.code == .notFound }
    }

    /// Every consent change by the owner reaches the auditor: grants, approvals, denials — never a value.
    @Test func consentChangesAreAudited() async throws {
        let auditor = RecordingAuditor()
        let owner = try await CoverageTests.demoService().auditing(to: auditor)
        let app = owner.acting(as: Self.app)
        try await owner.updateGrants(GrantsUpdate(principal: "mcp", deny: ["heartRate"]))
        let first = try #require(try await app.requestAccess(AccessRequestInput(write: ["dietaryWater"])).request)
        try await owner.decideAccessRequest(AccessDecision(id: first.id, approve: true))
        let second = try #require(try await app.requestAccess(AccessRequestInput(read: ["bodyMass"])).request)
        try await owner.decideAccessRequest(AccessDecision(id: second.id, approve: false))
        let recorded = await auditor.consent
        #expect(recorded.map(\.action) == ["grants.update", "access.approve", "access.deny"])
        #expect(recorded.map(\.target) == ["mcp:default", "app:com.example.diet", "app:com.example.diet"])
        #expect(recorded.map(\.types) == [["heartRate"], ["dietaryWater"], ["bodyMass"]])
        #expect(recorded.allSatisfy { $0.actor == .owner })
        #expect(await auditor.entries.isEmpty, "filing and deciding requests writes no sample")
    }

    @Test func badRequestsAreRefusedWithTheirReason() async throws {
        let owner = try await CoverageTests.demoService()
        let app = owner.acting(as: Self.app)
        await #expect { try await app.requestAccess(AccessRequestInput()) }
            throws: { ($0 as? HealthError)?.code == .invalidArgument }
        await #expect { try await app.requestAccess(AccessRequestInput(read: ["stepz"])) }
            throws: { ($0 as? HealthError)?.code == .invalidType }
        await #expect { try await app.requestAccess(AccessRequestInput(write: ["*"])) }
            throws: { ($0 as? HealthError)?.code == .invalidArgument }
        await #expect { try await app.requestAccess(AccessRequestInput(write: ["dietaryWater"], reasons: ["dietaryWater": "a\nb"])) }
            throws: { ($0 as? HealthError)?.code == .invalidArgument }
        await #expect { try await owner.requestAccess(AccessRequestInput(read: ["stepCount"])) }
            throws: { ($0 as? HealthError)?.code == .invalidArgument }
        #expect(try await owner.accessRequests().requests.isEmpty, "nothing was filed")
    }

    /// Concurrent grant changes for different principals all land (the index is updated in one transaction each).
    @Test func concurrentGrantChangesAreAllKept() async throws {
        let owner = try await CoverageTests.demoService()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask { try await owner.updateGrants(GrantsUpdate(principal: "app:a\(i)", allowWrite: ["dietaryWater"])) }
            }
            try await group.waitForAll()
        }
        let ids = Set(try await owner.listGrants().principals.map(\.principal))
        #expect((0..<20).allSatisfy { ids.contains("app:a\($0)") })
    }
}

/// Energy in and out: the service's own sums, added only when both parts exist.
@Suite struct EnergyTests {
    @Test func burnedIsActivePlusRestingAndTheBalanceIsEatenMinusBurned() async throws {
        let service = try await CoverageTests.demoService()
        let energy = try await service.energy(EnergyRequest(start: "7d"))
        #expect(energy.unit == "kcal")
        #expect(energy.days.count == 7 || energy.days.count == 8)
        func sums(_ type: String) async throws -> [String: Double?] {
            let result = try await service.summaryPages(SummaryRequest(type: type, start: "7d", interval: "day",
                                                                       statistics: ["sum"], unit: "kcal"))
            return Dictionary(result.buckets.map { ($0.start, $0.sum) }, uniquingKeysWith: { a, _ in a })
        }
        let active = try await sums("activeEnergyBurned"), basal = try await sums("basalEnergyBurned")
        let eaten = try await sums("dietaryEnergyConsumed")
        #expect(energy.days.contains { $0.burnedKcal != nil }, "the demo records both kinds of energy")
        for day in energy.days {
            #expect(day.activeKcal == active[day.start] ?? nil)
            #expect(day.basalKcal == basal[day.start] ?? nil)
            #expect(day.eatenKcal == eaten[day.start] ?? nil)
            if let a = day.activeKcal, let b = day.basalKcal {
                #expect(day.burnedKcal == a + b)
            } else {
                #expect(day.burnedKcal == nil, "a missing part is not counted as zero")
            }
            if let e = day.eatenKcal, let burned = day.burnedKcal {
                #expect(day.balanceKcal == e - burned)
            } else {
                #expect(day.balanceKcal == nil)
            }
        }
        // What the agent may not read stays out, like everywhere else.
        try await service.updateGrants(GrantsUpdate(principal: "mcp", deny: ["basalEnergyBurned"]))
        let agent = try await service.acting(as: .mcp()).energy(EnergyRequest(start: "7d"))
        #expect(agent.days.allSatisfy { $0.basalKcal == nil && $0.burnedKcal == nil })
    }
}

/// A workout's pace is the service's number; adapters only print it.
@Suite struct WorkoutPaceTests {
    @Test func paceIsActiveSecondsPerKilometre() {
        func record(_ minutes: Double, _ km: Double?) -> WorkoutRecord {
            WorkoutRecord(uuid: "u", activityType: "running", start: "s", end: "e", durationMinutes: minutes,
                          distanceKm: km, energyKcal: nil, source: "Watch", routePointCount: 0)
        }
        #expect(record(50, 10).paceSecondsPerKm == 300)          // 5:00 /km
        #expect(record(45.5, 8.2).paceSecondsPerKm == 333)       // 2,730 s / 8.2 km
        #expect(record(30, nil).paceSecondsPerKm == nil)
        #expect(record(30, 0.005).paceSecondsPerKm == nil, "under 10 m is no distance")
        #expect(record(0, 5).paceSecondsPerKm == nil)
        #expect(record(6_001 * 60, 1).paceSecondsPerKm == nil, "slower than 100 h/km is not shown")
    }
}
