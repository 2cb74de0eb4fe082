import Foundation
import HealthAPI
import HealthDemo
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Issue 21, findings 5 and 7: a type a principal may not read looks exactly like a type with no data on every
/// channel (sources, errors, paging, the change feed, access requests), and workout routes are a type of their own.
@Suite struct ReadOracleTests {
    /// An app that may read steps and nothing else (heart rate has data and is denied).
    static func stepsOnlyApp() async throws -> (owner: HealthService, app: HealthService) {
        let owner = try await HealthServiceTests.demoService()
        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.steps", allowRead: ["stepCount"]))
        return (owner, owner.acting(as: try Principal(parsing: "app:com.example.steps")))
    }

    @Test func sourcesListOnlyWhatThePrincipalMayRead() async throws {
        let (owner, app) = try await Self.stepsOnlyApp()
        let steps = try await owner.sources(SourcesRequest(type: "stepCount")).sources
        let listed = try await app.sources(SourcesRequest()).sources
        // Each source with its count of readable samples; nothing a denied type alone would show.
        #expect(Set(listed.map(\.name)) == Set(steps.filter { $0.count > 0 }.map(\.name)))
        #expect(listed.map(\.count).reduce(0, +) == steps.map(\.count).reduce(0, +))
        // The owner still sees every source.
        #expect(try await owner.sources(SourcesRequest()).sources.count >= listed.count)
    }

    @Test func errorsNeverNameDeniedTypesOrTheirSources() async throws {
        let (owner, app) = try await Self.stepsOnlyApp()
        let heartSources = try await owner.sources(SourcesRequest(type: "heartRate")).sources.map(\.name)
        #expect(!heartSources.isEmpty)
        do {
            _ = try await app.samples(SamplesRequest(type: "zzzNoSuchTypeQ", start: "7d"))
            Issue.record("expected HEALTH_INVALID_TYPE")
        } catch let error as HealthError {
            #expect(error.code == .invalidType)
            #expect(!error.message.contains("heartRate"), "\(error.message)")
        }
        do {
            _ = try await app.samples(SamplesRequest(type: "heartRate", start: "7d", sources: ["No Such Source"]))
            Issue.record("expected HEALTH_INVALID_ARGUMENT")
        } catch let error as HealthError {
            #expect(error.code == .invalidArgument)
            for name in heartSources { #expect(!error.message.contains(name), "\(error.message)") }
        }
    }

    @Test func latestWithASourceOfADeniedTypeLooksLikeNoData() async throws {
        let (owner, app) = try await Self.stepsOnlyApp()
        let heartSource = try #require(try await owner.sources(SourcesRequest(type: "heartRate")).sources.first?.name)
        // A type without data has no sources: naming one is an error. A denied type answers the same.
        await #expect(throws: HealthError.self) {
            try await app.latest(LatestRequest(type: "heartRate", sources: [heartSource]))
        }
        await #expect(throws: HealthError.self) {
            try await app.latest(LatestRequest(type: "bodyTemperature", sources: [heartSource]))
        }
    }

    @Test func summaryPagingDoesNotDependOnDeniedData() async throws {
        let (owner, app) = try await Self.stepsOnlyApp()
        #expect(try await !owner.sources(SourcesRequest(type: "heartRate")).sources.isEmpty)
        #expect(try await owner.sources(SourcesRequest(type: "bodyTemperature")).sources.isEmpty)
        func page(_ type: String) async throws -> Int {
            try await app.summary(SummaryRequest(type: type, start: "2024-06-01", end: "2024-06-30", interval: "minute",
                                                 bySource: true)).buckets.count
        }
        // A denied type with data pages exactly as a type without data.
        #expect(try await page("heartRate") == page("bodyTemperature"))
    }

    @Test func theChangeFeedPagesOnlyOverReadableTypes() async throws {
        let (owner, app) = try await Self.stepsOnlyApp()
        let total = try await owner.samples(SamplesRequest(type: "stepCount", start: "2020-01-01", limit: 5_000)).count
        let changes = try await app.changes(ChangesRequest(limit: 5_000))
        #expect(changes.added.allSatisfy { $0.type == "stepCount" })
        // The page is full of readable changes: neither its size nor hasMore betrays the denied types' data.
        #expect(changes.added.count == min(total, 5_000))
        #expect(changes.hasMore == (total > 5_000))
    }

    @Test func accessRequestsRecordEveryReadWhateverIsGranted() async throws {
        let (_, app) = try await Self.stepsOnlyApp()
        let filed = try await app.requestAccess(AccessRequestInput(read: ["stepCount", "heartRate"]))
        let request = try #require(filed.request)
        #expect(Set(request.read) == ["stepCount", "heartRate"], "the request must not reveal which reads are granted")
    }

    @Test func workoutRoutesNeedTheirOwnReadGrant() async throws {
        let owner = try await HealthServiceTests.demoService()
        let all = try await owner.workouts(WorkoutsRequest(start: "2020-01-01", limit: 500))
        let routed = try #require(all.workouts.first { $0.routePointCount > 0 })
        let ownerDetail = try await owner.workout(WorkoutRequest(uuid: routed.uuid))
        #expect(ownerDetail.route != nil && !ownerDetail.routePoints.isEmpty, "the owner sees the route")

        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.run", allowRead: ["workout"]))
        let app = owner.acting(as: try Principal(parsing: "app:com.example.run"))
        let hidden = try await app.workout(WorkoutRequest(uuid: routed.uuid))
        #expect(hidden.route == nil && hidden.routePoints.isEmpty && hidden.nextRouteOffset == nil)
        #expect(hidden.workout.routePointCount == 0)
        #expect(try await app.workouts(WorkoutsRequest(start: "2020-01-01", limit: 500)).workouts.allSatisfy { $0.routePointCount == 0 })
        #expect(try await app.changes(ChangesRequest(limit: 5_000)).added.compactMap(\.workout).allSatisfy { $0.routePointCount == 0 })

        // `workoutRoute` is a type grants can name (HealthKit's identifier too); with it the route is there.
        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.run", allowRead: ["HKWorkoutRouteTypeIdentifier"]))
        let shown = try await app.workout(WorkoutRequest(uuid: routed.uuid))
        #expect(shown.route == ownerDetail.route && shown.routePoints == ownerDetail.routePoints)
        #expect(shown.workout.routePointCount == routed.routePointCount)
    }
}
