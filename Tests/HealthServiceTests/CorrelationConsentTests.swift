import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// HealthKit's consent for correlations: a meal (food correlation) or a blood pressure reading is authorized through
/// its member types, for every principal; a correlation type is never asked for, and reads show it through readable
/// members.
@Suite struct CorrelationConsentTests {
    static let app = Principal(kind: .app, name: "com.example.diet")
    /// The diet app's HealthKit permission set (the seed's `typesToShare`), correct for HealthKit: no food type.
    static let seedWrites = ["dietaryEnergyConsumed", "dietaryProtein", "dietaryCarbohydrates", "dietaryFatTotal",
                             "dietaryFiber", "dietarySugar", "dietarySodium", "dietaryCholesterol", "dietaryFatSaturated",
                             "dietaryWater", "bodyMass"]
    static let meal = FoodLog(logId: "meal-1", loggedAt: "2024-06-30T12:00:00Z", name: "Porridge", meal: "breakfast",
                              calories: 320, protein: 11, carbs: 54, fat: 6, fiber: 8, sugar: 12, sodium: 150,
                              cholesterol: 20, saturatedFat: 1.5)

    static func expectRefused(_ body: () async throws -> Void, naming type: String,
                              sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await body()
            Issue.record("not refused", sourceLocation: sourceLocation)
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized, sourceLocation: sourceLocation)
            #expect(error.message.contains(type), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [app, .device("phone-1"), .mcp(), .gateway()])
    func theSeedsPermissionSetWritesAndDeletesAMeal(_ principal: Principal) async throws {
        let owner = try await WriteTests.owner()
        try await owner.updateGrants(GrantsUpdate(principal: principal.id, allowRead: Self.seedWrites,
                                                  allowWrite: Self.seedWrites))
        #expect(try await !owner.grants(for: principal).write.allows("food"), "no food grant anywhere")
        let writer = owner.acting(as: principal)
        let written = try await writer.logFood(Self.meal)
        #expect(written.inserted == 10, "nine nutrients and the food correlation")
        #expect(written.objects.last?.type == "food")
        #expect(try await owner.store.correlations(type: "food", start: nil, end: nil, limit: nil).count == 1)
        #expect(try await writer.logFood(Self.meal).unchanged == 10, "a retry changes nothing")

        let deleted = try await writer.delete(DeleteRequest(logId: "meal-1"))
        #expect(deleted.deleted == 10)
        #expect(try await owner.store.correlations(type: "food", start: nil, end: nil, limit: nil).isEmpty)
        #expect(try await owner.samples(SamplesRequest(type: "dietaryFiber", start: "2024-06-30")).samples.isEmpty)
    }

    @Test func aMissingNutrientGrantRefusesAMealThatHoldsIt() async throws {
        let owner = try await WriteTests.owner()
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: Self.seedWrites.filter { $0 != "dietaryFiber" }))
        let app = owner.acting(as: Self.app)
        await Self.expectRefused({ _ = try await app.logFood(Self.meal) }, naming: "dietaryFiber")
        #expect(try await owner.store.typeSummaries().isEmpty, "a refused meal writes nothing")
        // A meal without fiber needs no fiber grant.
        var noFiber = Self.meal
        noFiber.fiber = nil
        #expect(try await app.logFood(noFiber).inserted == 9)

        // A food grant alone gives nothing: the nutrients are what is authorized.
        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.other", allowWrite: ["food"]))
        let other = owner.acting(as: Principal(kind: .app, name: "com.example.other"))
        var second = Self.meal
        second.logId = "meal-2"
        await Self.expectRefused({ _ = try await other.logFood(second) }, naming: "dietaryEnergyConsumed")
    }

    @Test func deletingAMealNeedsTheNutrientsItHolds() async throws {
        let owner = try await WriteTests.owner()
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: Self.seedWrites))
        let app = owner.acting(as: Self.app)
        let written = try await app.logFood(Self.meal)
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, deny: ["dietaryFiber"]))
        await Self.expectRefused({ _ = try await app.delete(DeleteRequest(logId: "meal-1")) }, naming: "dietaryFiber")
        let correlation = try #require(written.objects.last?.uuid)
        await Self.expectRefused({ _ = try await app.delete(DeleteRequest(uuid: correlation)) }, naming: "dietaryFiber")
        #expect(try await owner.store.correlations(type: "food", start: nil, end: nil, limit: nil).count == 1)

        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: ["dietaryFiber"]))
        let deleted = try await app.delete(DeleteRequest(uuids: [correlation]))
        #expect(deleted.deleted == 1, "the correlation alone, authorized through its members")
        #expect(try await owner.store.correlations(type: "food", start: nil, end: nil, limit: nil).isEmpty)
    }

    @Test func bloodPressureIsWrittenThroughSystolicAndDiastolic() async throws {
        let owner = try await WriteTests.owner()
        let app = owner.acting(as: Self.app)
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: ["bloodPressureSystolic"]))
        await Self.expectRefused({ try await app.authorizeWrite("bloodPressure") }, naming: "bloodPressureDiastolic")
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: ["bloodPressureDiastolic"]))
        try await app.authorizeWrite("bloodPressure")
        #expect(try await !owner.grants(for: Self.app).write.allows("bloodPressure"))

        // A pushed reading (an ingest token) alike: the members' grants write it, a bloodPressure grant alone does not.
        func reading() -> IngestBatch {
            var batch = IngestBatch(format: "test", label: "cuff", writerTotals: .init(name: "Cuff totals", key: "cuff-totals"))
            batch.sources = [HealthSource(name: "Cuff", bundleIdentifier: "com.example.cuff")]
            let at = ISO8601.date("2024-06-30T08:00:00Z")!
            batch.samples = [IngestBatch.Sample(label: "blood_pressure", type: "bloodPressure",
                                                value: .bloodPressure(systolic: 121, diastolic: 79), unit: "mmHg",
                                                start: at, end: at, utcOffset: 0, attribution: .source(0), metadata: [:],
                                                syncIdentifier: "cuff-1")]
            return batch
        }
        try await owner.updateGrants(GrantsUpdate(principal: "ingest:old", allowWrite: ["bloodPressure"]))
        await Self.expectRefused({ _ = try await owner.acting(as: Principal(kind: .ingest, name: "old")).ingest(reading()) },
                                 naming: "bloodPressureSystolic")
        try await owner.updateGrants(GrantsUpdate(principal: "ingest:cuff",
                                                  allowWrite: ["bloodPressureSystolic", "bloodPressureDiastolic"]))
        _ = try await owner.acting(as: Principal(kind: .ingest, name: "cuff")).ingest(reading())
        #expect(try await owner.store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil).count == 1)
    }

    @Test func accessRequestsDropCorrelationTypesAndKeepTheRest() async throws {
        let owner = try await AccessUseCaseTests.owner()
        let app = owner.acting(as: Self.app)
        let filed = try await app.requestAccess(AccessRequestInput(
            read: ["HKCorrelationTypeIdentifierFood", "bodyMass"], write: ["food", "dietaryProtein", "bloodPressure"],
            reasons: ["food": "Meals", "dietaryProtein": "Protein"]))
        let request = try #require(filed.request)
        #expect(request.read == ["bodyMass"] && request.write == ["dietaryProtein"])
        #expect(request.reasons == ["dietaryProtein": "Protein"])
        #expect(filed.write == ["food": .notDetermined, "dietaryProtein": .notDetermined, "bloodPressure": .notDetermined])

        // Only a correlation type: nothing to file, no error.
        let only = try await app.requestAccess(AccessRequestInput(write: ["food"]))
        #expect(only.request == nil && only.write == ["food": .notDetermined])
        let pending = try await owner.accessRequests(status: .pending).requests
        #expect(pending.map(\.write) == [["dietaryProtein"]], "food is never added to the pending request")
    }

    @Test func theStatusOfACorrelationFollowsItsMembers() async throws {
        let owner = try await AccessUseCaseTests.owner()
        let app = owner.acting(as: Self.app)
        let filed = try await app.requestAccess(AccessRequestInput(write: ["bloodPressureSystolic", "bloodPressureDiastolic"]))
        #expect(try await app.authorizationStatus(types: ["bloodPressure"]).write["bloodPressure"] == .notDetermined)
        // The owner approves systolic only: diastolic was decided, so the correlation is denied.
        try await owner.decideAccessRequest(AccessDecision(id: try #require(filed.request?.id), approve: true,
                                                           write: ["bloodPressureSystolic"]))
        let status = try await app.authorizationStatus(types: ["bloodPressure", "bloodPressureSystolic", "food"])
        #expect(status.write == ["bloodPressure": .sharingDenied, "bloodPressureSystolic": .sharingAuthorized,
                                 "food": .notDetermined])
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: ["bloodPressureDiastolic"]))
        #expect(try await app.authorizationStatus(types: ["bloodPressure"]).write["bloodPressure"] == .sharingAuthorized)
        // Food: a meal holds whichever nutrients it has, so one writable nutrient makes meals writable.
        let food = try SampleTypeRegistry.resolve("food").correlationMemberTypes
        #expect(food.contains("dietaryFiber") && food.contains("dietaryEnergyConsumed") && !food.contains("bodyMass"))
        #expect(try await app.authorizationStatus(types: ["food"]).write["food"] == .notDetermined)
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: ["dietaryEnergyConsumed"]))
        #expect(try await app.authorizationStatus(types: ["food"]).write["food"] == .sharingAuthorized)
        #expect(try await owner.authorizationStatus(types: ["food"]).write["food"] == .sharingAuthorized)
    }

    @Test func aMealIsReadThroughItsNutrients() async throws {
        let owner = try await WriteTests.owner()
        _ = try await owner.logFood(Self.meal)
        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.reader", allowRead: ["dietaryProtein"]))
        let reader = owner.acting(as: Principal(kind: .app, name: "com.example.reader"))
        #expect(try await reader.types().types.map(\.type) == ["dietaryProtein", "food"],
                "the meals are listed through the readable nutrient, the other nutrients are not")
        let start = try await owner.changesAnchor()
        _ = try await owner.delete(DeleteRequest(logId: "meal-1"))

        let feed = try await reader.changes(ChangesRequest(anchor: start.anchor))
        #expect(Set(feed.deleted.map(\.type)) == ["dietaryProtein", "food"], "the meal and its readable member only")
        let asked = try await reader.changes(ChangesRequest(types: ["food"], anchor: start.anchor))
        #expect(asked.deleted.map(\.type) == ["food"])
        #expect(try await reader.mayRead("food"))

        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.weights", allowRead: ["bodyMass", "food"]))
        let weights = owner.acting(as: Principal(kind: .app, name: "com.example.weights"))
        #expect(try await weights.changes(ChangesRequest(anchor: start.anchor)).deleted.isEmpty,
                "no readable member: the meal is not seen, whatever a food grant says")
        #expect(try await !weights.mayRead("food"))
        _ = try await owner.logFood(Self.meal)
        #expect(try await weights.types().types.map(\.type).isEmpty, "no readable member, no meals")
    }
}
