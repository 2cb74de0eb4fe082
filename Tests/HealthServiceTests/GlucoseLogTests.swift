import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Blood glucose as a first-class write: mg/dL and mmol/L, meal time, the bounds in mg/dL.
@Suite struct GlucoseLogTests {
    static func glucose(_ service: HealthService) async throws -> [SampleRecord] {
        try await service.samples(SamplesRequest(type: "bloodGlucose", start: "2024-06-30")).samples
    }

    @Test func aReadingAfterAMealIsAccepted() async throws {
        // Regression: bounds were once checked as 0.1…100 in mg/dL, refusing most readings after a meal.
        let service = try QuantityLogTests.owner()
        let result = try await service.log(QuantityLog(type: "bloodGlucose", value: 180, unit: "mg/dL", at: "2024-06-30T13:00:00Z"))
        #expect(result.inserted == 1)
        #expect(try await Self.glucose(service).first?.value == 180)
        #expect(try await Self.glucose(service).first?.unit == "mg/dL")
    }

    @Test func mmolPerLiterIsStoredInMilligramsPerDeciliterWithItsMealTime() async throws {
        let service = try QuantityLogTests.owner()
        _ = try await service.log(QuantityLog(type: "glucose", value: 7.8, unit: "mmol/L", at: "2024-06-30T13:00:00Z",
                                              metadata: ["meal_time": "postprandial"]))
        _ = try await service.log(QuantityLog(type: "HKQuantityTypeIdentifierBloodGlucose", value: 95, at: "2024-06-30T07:00:00Z",
                                              metadata: ["HKMetadataKeyBloodGlucoseMealTime": "1"]))
        let readings = try await Self.glucose(service).sorted { $0.start < $1.start }
        #expect(readings.count == 2)
        #expect(readings.first?.value == 95, "mg/dL by default")
        #expect(readings.first?.metadata?["HKMetadataKeyBloodGlucoseMealTime"] == "1")
        let afterLunch = try #require(readings.last?.value)
        #expect(abs(afterLunch - 7.8 * 18.015588) < 1e-9)
        #expect((afterLunch * 10).rounded() / 10 == 140.5)
        #expect(readings.last?.metadata?["HKMetadataKeyBloodGlucoseMealTime"] == "2")
        // Statistics read it as a discrete type, in mg/dL.
        let day = try await service.summary(SummaryRequest(type: "bloodGlucose", start: "2024-06-30", interval: "total"))
        #expect(day.buckets.first?.max.map { ($0 * 10).rounded() / 10 } == 140.5)
        // A sample write (paired API health/samples, the node's health.write, the kit's outbox) takes the same names.
        _ = try await service.save([SampleInput(type: "bloodGlucose", value: 5.5, unit: "mmol/L", start: "2024-06-30T09:00:00Z",
                                                metadata: ["meal_time": "preprandial"])])
        let sampled = try await Self.glucose(service).first { $0.start.hasPrefix("2024-06-30T09") }
        #expect(sampled?.metadata?["HKMetadataKeyBloodGlucoseMealTime"] == "1")
        #expect(abs((sampled?.value ?? 0) - 99.085734) < 1e-6)
    }

    @Test func outOfBoundsWrongUnitsAndUnknownMealTimesAreRefused() async throws {
        let service = try QuantityLogTests.owner()
        let code = QuantityLogTests.code
        #expect(await code { _ = try await service.log(QuantityLog(type: "bloodGlucose", value: 5)) } == .invalidArgument,
                "5 mg/dL: below 10")
        #expect(await code { _ = try await service.log(QuantityLog(type: "bloodGlucose", value: 200, unit: "mmol/L")) } == .invalidArgument,
                "200 mmol/L is 3,603 mg/dL: above 3,000")
        #expect(await code { _ = try await service.log(QuantityLog(type: "bloodGlucose", value: 100, unit: "kg")) } == .invalidUnit)
        #expect(await code {
            _ = try await service.log(QuantityLog(type: "bloodGlucose", value: 100, metadata: ["meal_time": "brunch"]))
        } == .invalidArgument)
        #expect(await code {
            _ = try await service.save([SampleInput(type: "bloodGlucose", value: 100, metadata: ["meal_time": "3"])])
        } == .invalidArgument, "a sample write checks the declared metadata too")
        #expect(try await service.store.typeSummaries().isEmpty)
    }

    @Test func theRegistryHoldsGlucosesFacts() throws {
        let glucose = try SampleTypeRegistry.resolve("bloodGlucose")
        #expect(glucose.isWritable && glucose.summaryStyle == .levels)
        #expect(glucose.entryUnits.map(\.name) == ["mg/dL", "mmol/L"])
        #expect(try glucose.entryUnit("mmol/L").unit == "mmol<180.1558800000541>/L")
        #expect(try glucose.normalizedMetadata(["meal_time": "Postprandial"], strict: true)
                == ["HKMetadataKeyBloodGlucoseMealTime": "2"])
        #expect(try SampleTypeRegistry.loggable("glucose").identifier == "bloodGlucose")
        let mgdl = try HealthUnit.parse("mg/dL")
        #expect(abs(try HealthUnit.parse(glucose.entryUnit("mmol/L").unit).convert(1, to: mgdl) - 18.015588) < 1e-9)
    }
}
