import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// The generic quantity write: any writable type, in one of its entry units, with the metadata the registry allows;
/// the diet app's verbs are shortcuts onto it.
@Suite struct QuantityLogTests {
    static let now = ISO8601.date("2024-06-30T15:30:00Z") ?? Date(timeIntervalSince1970: 0)

    static func owner() throws -> HealthService {
        HealthService(store: try SQLiteHealthStore.inMemory(), homeTimeZone: TimeZone(identifier: "UTC") ?? .current,
                      clock: { now })
    }

    static func code(_ call: () async throws -> Void) async -> HealthError.Code? {
        do {
            try await call()
            return nil
        } catch let error as HealthError {
            return error.code
        } catch {
            return .internalError
        }
    }

    @Test func anyWritableTypeInItsEntryUnitsConvertedToTheCanonicalUnit() async throws {
        let service = try Self.owner()
        _ = try await service.log(QuantityLog(type: "heartRate", value: 62, unit: "bpm", at: "2024-06-30T07:00:00Z"))
        _ = try await service.log(QuantityLog(type: "HKQuantityTypeIdentifierHeight", value: 180, unit: "cm",
                                              at: "2024-06-30T07:00:00Z"))
        _ = try await service.log(QuantityLog(type: "bodyMass", value: 160, unit: "LB", at: "2024-06-30T07:00:00Z"))
        let heart = try await service.samples(SamplesRequest(type: "heartRate", start: "2024-06-30"))
        #expect(heart.samples.first?.value == 62)
        let height = try await service.samples(SamplesRequest(type: "height", start: "2024-06-30"))
        #expect(height.samples.first?.value == 1.8 && height.samples.first?.unit == "m")
        let weight = try await service.samples(SamplesRequest(type: "bodyMass", start: "2024-06-30"))
        #expect(abs((weight.samples.first?.value ?? 0) - 72.5748) < 0.001, "lb, any case, to kg")
    }

    @Test func theDietAppsVerbsAreShortcutsWithTheirDefaultUnits() async throws {
        let service = try Self.owner()
        let water = try await service.log(QuantityLog(type: "water", value: 0.5, unit: "L", at: "2024-06-30T10:00:00Z"))
        #expect(water.objects.map(\.type) == ["dietaryWater"])
        _ = try await service.logWater(250, at: "2024-06-30T11:00:00Z")
        _ = try await service.logWeight(70, at: "2024-06-30T07:00:00Z")
        let glasses = try await service.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30"))
        #expect(glasses.samples.compactMap(\.value).sorted() == [250, 500])
        #expect(try await service.samples(SamplesRequest(type: "bodyMass", start: "2024-06-30")).samples.first?.value == 70)
        #expect(SampleTypeRegistry.logShortcuts["water"] == "dietaryWater")
    }

    /// A unit that is not one of the type's entry units but of its dimension converts, as any HKUnit string does.
    @Test func anyUnitOfTheTypesDimensionConverts() async throws {
        let service = try Self.owner()
        _ = try await service.log(QuantityLog(type: "water", value: 1, unit: "pt_us", at: "2024-06-30T08:00:00Z"))
        _ = try await service.log(QuantityLog(type: "bloodGlucose", value: 1, unit: "g/L", at: "2024-06-30T08:00:00Z"))
        let water = try await service.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30")).samples
        #expect(abs((water.first?.value ?? 0) - 473.176473) < 0.001, "a US pint is 473.176473 mL")
        let glucose = try await service.samples(SamplesRequest(type: "bloodGlucose", start: "2024-06-30")).samples
        #expect(abs((glucose.first?.value ?? 0) - 100) < 1e-9, "1 g/L is 100 mg/dL")
    }

    @Test func wrongUnitsTypesValuesAndMetadataAreRefusedWithTheWriteErrorCodes() async throws {
        let service = try Self.owner()
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "water", value: 250, unit: "kg")) } == .invalidUnit)
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "stepCount", value: 100)) } == .invalidType,
                "not writable through the quantity log")
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "sleepAnalysis", value: 1)) } == .invalidType)
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "stepcont", value: 1)) } == .invalidType)
        #expect(await Self.code { _ = try await service.log(QuantityLog(value: 1)) } == .invalidArgument)
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "weight", value: 900)) } == .invalidArgument)
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "weight", value: .nan)) } == .invalidArgument)
        #expect(await Self.code { _ = try await service.log(QuantityLog(type: "weight", value: 70, at: "2030-01-01")) } == .invalidRange)
        #expect(await Self.code {
            _ = try await service.log(QuantityLog(type: "weight", value: 70, metadata: ["note": "after the gym"]))
        } == .invalidArgument, "metadata the registry does not declare for the type")
        #expect(try await service.store.typeSummaries().isEmpty)
    }

    @Test func aPrincipalWritesOnlyWhatItWasGrantedAndARetryChangesNothing() async throws {
        let service = try Self.owner()
        let agent = service.acting(as: .mcp())
        #expect(await Self.code { _ = try await agent.log(QuantityLog(type: "heartRate", value: 62)) } == .notAuthorized)
        #expect(await Self.code { _ = try await agent.log(QuantityLog(type: "heartRate", value: 62, unit: "kg")) } == .notAuthorized,
                "the grant is checked before the unit")
        try await service.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["heartRate"]))
        let written = try await agent.log(QuantityLog(type: "heartRate", value: 62, at: "2024-06-30T07:00:00Z", logId: "hr-1"))
        #expect(written.inserted == 1)
        let again = try await agent.log(QuantityLog(type: "heartRate", value: 62, at: "2024-06-30T07:00:00Z", logId: "hr-1"))
        #expect(again.inserted == 0 && again.unchanged == 1, "a retry with its log id changes nothing")
    }

    @Test func typeFactsReplaceTheSleepSpecialCases() throws {
        let sleep = try SampleTypeRegistry.resolve("sleepAnalysis")
        #expect(sleep.categoryHandling == .sleepStages && sleep.summaryStyle == .nights)
        #expect(HealthService.statisticNames(for: sleep).isEmpty)
        let stand = try SampleTypeRegistry.resolve("appleStandHour")
        #expect(stand.categoryHandling == .duration && stand.summaryStyle.statistics == ["duration"])
        #expect(try SampleTypeRegistry.resolve("stepCount").summaryStyle == .total)
        #expect(try SampleTypeRegistry.resolve("bodyMass").summaryStyle.statistics == ["average", "min", "max", "most_recent"])
        #expect(try SampleTypeRegistry.resolve("food").summaryStyle == .none)
        #expect(try SampleTypeRegistry.resolve("heartRate").entryUnit("bpm").unit == "count/min")
    }
}
