import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct TypeSummaryTests {
    static let future = "HKQuantityTypeIdentifierFutureThing"
    static let futureCategory = "HKCategoryTypeIdentifierFutureCategory"

    @Test(arguments: TestStores.kinds)
    func unknownFutureTypesAreStoredQueryableAndSummarised(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let f1 = qty(Self.future, 100, 200, 1.5, unit: "mg")
            let f2 = qty(Self.future, 300, 400, 2, unit: "g")
            let f3 = qty(Self.future, 50, 60, 3, unit: "mg")
            let c1 = HealthSample(type: Self.futureCategory, start: at(10), end: at(20), value: .category(2), source: watchSource)
            let steps = qty(1000, 1060, 12)
            _ = try await store.save([f1, f2, f3, c1, steps])
            _ = try await store.save(workouts: [HealthWorkout(activityType: "walking", start: at(500), end: at(900), source: phoneSource)])
            _ = try await store.save(correlations: [HealthCorrelation(type: "bloodPressure", start: at(5), end: at(5),
                                                                  source: healthAppSource, members: [])])

            #expect(try await all(store, Self.future).map(\.uuid) == [f3.uuid, f1.uuid, f2.uuid])
            #expect(try await store.samples(SampleQuery(type: Self.future, start: at(150), end: at(350))).samples.map(\.uuid)
                    == [f1.uuid, f2.uuid])
            #expect(try await all(store, Self.futureCategory) == [c1])
            #expect(try await store.changes(since: nil, types: [Self.future], limit: 10).added.count == 3)

            let summaries = try await store.typeSummaries()
            #expect(summaries.map(\.type) == [Self.futureCategory, Self.future, "bloodPressure", "stepCount", "workout"])
            let thing = try #require(summaries.first { $0.type == Self.future })
            #expect(thing == TypeSummary(type: Self.future, kind: .quantity, count: 3, first: at(50), last: at(400),
                                         units: ["g", "mg"]))
            #expect(summaries.first { $0.type == Self.futureCategory }
                    == TypeSummary(type: Self.futureCategory, kind: .category, count: 1, first: at(10), last: at(20), units: []))
            #expect(summaries.first { $0.type == "stepCount" }
                    == TypeSummary(type: "stepCount", kind: .quantity, count: 1, first: at(1000), last: at(1060), units: ["count"]))
            #expect(summaries.first { $0.type == "workout" }
                    == TypeSummary(type: "workout", kind: .workout, count: 1, first: at(500), last: at(900), units: []))
            #expect(summaries.first { $0.type == "bloodPressure" }
                    == TypeSummary(type: "bloodPressure", kind: .correlation, count: 1, first: at(5), last: at(5), units: []))

            // Values of a future type convert like any other in a scan.
            var grams: [Double] = []
            try await store.scan(ScanRequest(type: Self.future, start: at(0), end: at(1000), unit: "g")) { grams.append($0.value) }
            #expect(approximately(grams, [0.003, 0.0015, 2], 1e-12), "\(grams)")
        }
    }

    @Test(arguments: TestStores.kinds) func anEmptyStoreHasNoSummaries(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store throws in
            #expect(try await store.typeSummaries().isEmpty)
            #expect(try await store.sources(type: nil).isEmpty)
            #expect(try await store.currentAnchor() == 0)
        }
    }
}
