import Foundation
import HealthAPI
import HealthDemo
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Writes with consent: validation, idempotency by log id and sync id, deletes with ownership, the change feed.
@Suite struct WriteTests {
    static let now = HealthServiceTests.now

    static func owner() async throws -> HealthService {
        let store = try SQLiteHealthStore.inMemory()
        return HealthService(store: store, homeTimeZone: HealthServiceTests.utc, clock: { now })
    }

    static let meal = FoodLog(logId: "meal-1", loggedAt: "2024-06-30T12:00:00Z", name: "Porridge", meal: "breakfast",
                              calories: 320, protein: 11, carbs: 54, fat: 6, fiber: 8, sodium: 150)

    @Test func aMealIsOneSamplePerNutrientAndAFoodCorrelationAndReadsBackEverywhere() async throws {
        let service = try await Self.owner()
        let result = try await service.logFood(Self.meal)
        #expect(result.inserted == 7 && result.unchanged == 0, "six nutrients and the food correlation")
        #expect(result.objects.count == 7)
        #expect(result.objects.last?.type == "food")
        let day = try await service.summary(SummaryRequest(type: "dietaryEnergyConsumed", start: "2024-06-30", interval: "total"))
        #expect(day.buckets.first?.sum == 320)
        let sodium = try await service.samples(SamplesRequest(type: "dietarySodium", start: "2024-06-30"))
        #expect(sodium.samples.first?.value == 0.15, "mg → g")
        #expect(sodium.samples.first?.metadata?["HealthBridgeLogID"] == "meal-1")
        #expect(sodium.samples.first?.metadata?["HKFoodType"] == "Porridge")
        #expect(sodium.samples.first?.source == "HealthBridge")
        let food = try await service.store.correlations(type: "food", start: nil, end: nil, limit: nil)
        #expect(food.count == 1 && food.first?.members.count == 6)
    }

    @Test func retriesLeaveExactlyOneObjectAndANewerVersionReplaces() async throws {
        let service = try await Self.owner()
        let first = try await service.logFood(Self.meal)
        for _ in 0..<3 {
            let again = try await service.logFood(Self.meal)
            #expect(again.inserted == 0 && again.unchanged == 7)
            #expect(Set(again.objects.map(\.uuid)) == Set(first.objects.map(\.uuid)))
        }
        var newer = Self.meal
        newer.calories = 400
        newer.sodium = nil
        newer.syncVersion = 2
        let replaced = try await service.logFood(newer)
        #expect(replaced.inserted == 6, "five nutrients and the correlation of version 2")
        let energy = try await service.samples(SamplesRequest(type: "dietaryEnergyConsumed", start: "2024-06-30"))
        #expect(energy.samples.map(\.value) == [400])
        #expect(try await service.samples(SamplesRequest(type: "dietarySodium", start: "2024-06-30")).samples.isEmpty)
        #expect(try await service.store.correlations(type: "food", start: nil, end: nil, limit: nil).count == 1)

        for _ in 0..<3 {
            _ = try await service.logWeight(72.4, at: "2024-06-30T07:00:00Z", syncId: "scale-7", syncVersion: 1)
        }
        _ = try await service.logWeight(160, unit: "lb", at: "2024-06-30T07:00:00Z", syncId: "scale-7", syncVersion: 3)
        _ = try await service.logWeight(80, at: "2024-06-30T07:00:00Z", syncId: "scale-7", syncVersion: 2)
        let weights = try await service.samples(SamplesRequest(type: "bodyMass", start: "2024-06-30"))
        #expect(weights.samples.count == 1)
        #expect(abs((weights.samples.first?.value ?? 0) - 72.5748) < 0.001)
    }

    @Test func deletesByLogIdUUIDAndSyncIdLeaveTombstonesInTheChangeFeed() async throws {
        let service = try await Self.owner()
        let start = try await service.changes(ChangesRequest())
        _ = try await service.logFood(Self.meal)
        let water = try await service.logWater(250, at: "2024-06-30T13:00:00Z", syncId: "glass-1")
        let added = try await service.changes(ChangesRequest(anchor: start.anchor))
        #expect(added.added.count == 7)
        #expect(added.deleted.isEmpty)

        let deleted = try await service.delete(DeleteRequest(logId: "meal-1"))
        #expect(deleted.deleted == 7)
        #expect(try await service.summary(SummaryRequest(type: "dietaryEnergyConsumed", start: "2024-06-30", interval: "total"))
            .buckets.first?.sum == nil)
        #expect(try await service.delete(DeleteRequest(logId: "meal-1")).deleted == 0, "already gone")
        let feed = try await service.changes(ChangesRequest(anchor: added.anchor))
        #expect(feed.added.isEmpty)
        #expect(feed.deleted.count == 7)
        #expect(Set(feed.deleted.map(\.type)).isSuperset(of: ["dietaryEnergyConsumed", "food"]))

        #expect(try await service.delete(DeleteRequest(syncId: "glass-1")).deleted == 1)
        _ = water
        await #expect(throws: HealthError.self) { try await service.delete(DeleteRequest()) }
        await #expect(throws: HealthError.self) { try await service.delete(DeleteRequest(uuid: "x", logId: "y")) }
    }

    @Test func consentDecidesWhoWritesAndWhoDeletes() async throws {
        let owner = try await Self.owner()
        let agent = owner.acting(as: .mcp())
        do {
            _ = try await agent.logWater(250)
            Issue.record("expected HEALTH_NOT_AUTHORIZED")
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized)
            #expect(error.hint == .ownerAllowsWrite(principal: "mcp:default", type: "dietaryWater"))
        }
        #expect(try await owner.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30")).samples.isEmpty)
        try await owner.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["dietaryWater", "bodyMass"]))
        let glass = try await agent.logWater(250, at: "2024-06-30T10:00:00Z")
        #expect(try await owner.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30")).samples.first?.source
                == "HealthBridge (mcp:default)")
        let mine = try await owner.logWeight(70, at: "2024-06-30T07:00:00Z")
        // An agent may not delete the owner's weigh-in; the owner may delete the agent's water.
        await #expect(throws: HealthError.self) {
            try await agent.delete(DeleteRequest(uuid: mine.objects[0].uuid))
        }
        #expect(try await owner.delete(DeleteRequest(uuid: glass.objects[0].uuid)).deleted == 1)
        await #expect(throws: HealthError.self) { try await agent.logFood(Self.meal) }
    }

    @Test func badValuesAreRefusedWithNothingWritten() async throws {
        let service = try await Self.owner()
        let cases: [(SampleInput, HealthError.Code)] = [
            (SampleInput(type: "bodyMass", value: 7_000, unit: "kg"), .invalidArgument),
            (SampleInput(type: "bodyMass", value: .nan), .invalidArgument),
            (SampleInput(type: "bodyMass", value: 70, unit: "kcal"), .invalidUnit),
            (SampleInput(type: "bodyMass", value: 70, start: "2030-01-01"), .invalidRange),
            (SampleInput(type: "bodyMass", value: 70, start: "2024-06-30T10:00:00Z", end: "2024-06-30T09:00:00Z"), .invalidRange),
            (SampleInput(type: "bodyMas", value: 70), .invalidType),
            (SampleInput(type: "sleepAnalysis", value: 3), .invalidArgument),
            (SampleInput(type: "sleepAnalysis", category: "dreaming"), .invalidArgument),
            (SampleInput(type: "workout"), .invalidType),
            (SampleInput(type: "dietaryWater", value: -5), .invalidArgument),
        ]
        for (input, code) in cases {
            do {
                _ = try await service.save([SampleInput(type: "dietaryWater", value: 100), input])
                Issue.record("expected \(code) for \(input)")
            } catch let error as HealthError {
                #expect(error.code == code, "\(input): \(error)")
                #expect(error.message.hasPrefix("samples[1]: "))
            }
        }
        #expect(try await service.store.typeSummaries().isEmpty, "nothing was written")
        let sleep = try await service.save([SampleInput(type: "sleepAnalysis", category: "asleepDeep",
                                                        start: "2024-06-30T01:00:00Z", end: "2024-06-30T02:00:00Z")])
        #expect(sleep.inserted == 1)
    }

    @Test func workoutsByActivityNameWithAliasesAndCloseMatches() async throws {
        let service = try await Self.owner()
        let run = try await service.logWorkout(WorkoutLog(activity: "run", start: "2024-06-30T06:00:00Z",
                                                          end: "2024-06-30T06:45:00Z", energy: 480, distance: "8km",
                                                          logId: "run-1"))
        #expect(run.inserted == 1)
        #expect(try await service.logWorkout(WorkoutLog(activity: "Running", start: "2024-06-30T06:00:00Z",
                                                        end: "2024-06-30T06:45:00Z", energy: 480, logId: "run-1")).unchanged == 1)
        let list = try await service.workouts(WorkoutsRequest(start: "2024-06-30"))
        #expect(list.workouts.count == 1)
        #expect(list.workouts.first?.activityType == "running")
        #expect(list.workouts.first?.distanceKm == 8)
        #expect(list.workouts.first?.energyKcal == 480)
        do {
            _ = try await service.logWorkout(WorkoutLog(activity: "joggin", start: "2024-06-30T06:00:00Z", end: "2024-06-30T07:00:00Z"))
            Issue.record("expected an error")
        } catch let error as HealthError {
            #expect(error.code == .invalidArgument)
        }
        #expect(try await service.delete(DeleteRequest(logId: "run-1")).deleted == 1)
    }

    @Test func aLongPollWaiterHearsOfACommitAtOnce() async throws {
        let service = try await Self.owner()
        let anchor = try await service.changes(ChangesRequest(types: ["bodyMass"])).anchor
        let waiter = Task { try await service.changes(ChangesRequest(types: ["bodyMass"], anchor: anchor, wait: 20)) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        _ = try await service.logWeight(71, at: "2024-06-30T08:00:00Z")
        let answer = try await waiter.value
        #expect(answer.added.count == 1)
        #expect(ContinuousClock.now - started < .seconds(15), "woken by the commit, not by the timeout")
        // Nothing for other types: the wait ends empty after its time.
        let empty = try await service.changes(ChangesRequest(types: ["heartRate"], anchor: answer.anchor, wait: 0.2))
        #expect(empty.added.isEmpty && empty.deleted.isEmpty)
    }

    @Test func everyWriteAndDeleteIsAuditedWithoutValues() async throws {
        let auditor = RecordingAuditor()
        let service = try await Self.owner().auditing(to: auditor)
        _ = try await service.logFood(Self.meal)
        _ = try await service.logFood(Self.meal)   // a retry writes nothing, and audits nothing
        _ = try await service.logWater(250, at: "2024-06-30T10:00:00Z")
        _ = try await service.delete(DeleteRequest(logId: "meal-1"))
        let entries = await auditor.entries
        #expect(entries.map(\.action) == [.write, .write, .delete])
        #expect(entries.map(\.count) == [7, 1, 7])
        #expect(entries[1].types == ["dietaryWater"])
        #expect(entries.allSatisfy { $0.principal == .owner })
        #expect(!"\(entries)".contains("250") && !"\(entries)".contains("320"), "never a value")
    }
}

actor RecordingAuditor: HealthAuditor {
    var entries: [WriteAuditEntry] = []
    var consent: [ConsentAuditEntry] = []
    func record(_ entry: WriteAuditEntry) async { entries.append(entry) }
    func record(_ change: ConsentAuditEntry) async { consent.append(change) }
}
