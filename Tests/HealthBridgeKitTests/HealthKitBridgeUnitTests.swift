import Foundation
@testable import HealthKitBridge
import Testing

/// HealthKitBridge's values without a server: types, units, quantities, predicates, sort descriptors, anchors and
/// errors behave as HealthKit's.
struct HealthKitBridgeUnitTests {
    @Test func typesAreEqualByIdentifierAndMapToTheServersNames() {
        let read: Set<HKObjectType> = [HKQuantityType(.bodyMass), HKQuantityType(.bodyMass), HKWorkoutType.workoutType()]
        #expect(read.count == 2)
        #expect(HKQuantityType(.bodyMass).identifier == "HKQuantityTypeIdentifierBodyMass")
        #expect(HKQuantityType(.bodyMass).serverName == "bodyMass")
        #expect(HKQuantityType(.vo2Max).identifier == "HKQuantityTypeIdentifierVO2Max")
        #expect(HKWorkoutType.workoutType().serverName == "workout")
        #expect(HKCategoryType(.sleepAnalysis).serverName == "sleepAnalysis")
        #expect(HKCorrelationType(.food).serverName == "food")
        #expect(HKQuantityType(.stepCount).aggregationStyle == .cumulative)
        #expect(HKQuantityType(.bodyMass).aggregationStyle == .discreteArithmetic)
        #expect(HKObjectType.quantityType(forIdentifier: .dietaryWater) == HKQuantityType(.dietaryWater))
        #expect(HKObjectType.correlationType(forIdentifier: HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierNope")) == nil)
        #expect(HKObjectType.of(serverName: "sleepAnalysis") is HKCategoryType)
        #expect(HKObjectType.of(serverName: "bodyMass") is HKQuantityType)
    }

    @Test func quantitiesConvertBetweenCompatibleUnitsOnly() {
        let weight = HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 72.4)
        #expect(abs(weight.doubleValue(for: .pound()) - 159.614) < 0.001)
        #expect(weight.doubleValue(for: .gramUnit(with: .kilo)) == 72.4)
        #expect(weight.is(compatibleWith: .gram()))
        #expect(!weight.is(compatibleWith: .kilocalorie()))
        #expect(weight.doubleValue(for: .kilocalorie()).isNaN)   // HealthKit raises; the kit never crashes
        #expect(HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250).doubleValue(for: .liter()) == 0.25)
        #expect(HKUnit.gramUnit(with: .kilo).unitString == "kg")
        #expect(HKUnit.literUnit(with: .milli).unitString == "mL")
        #expect(HKUnit(from: "mg/dL").isCompatible(with: HKUnit(from: "g/L")))
        #expect(!HKUnit(from: "furlongs").isCompatible(with: .meter()))
        #expect(HKQuantityType(.bodyMass).is(compatibleWith: .pound()))
        #expect(!HKQuantityType(.bodyMass).is(compatibleWith: .count()))
        #expect(HKQuantity(unit: .gram(), doubleValue: 1_000) == HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 1))
    }

    @Test func predicatesFollowHealthKitsRangeRules() {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        func sample(_ start: TimeInterval, _ end: TimeInterval, metadata: [String: Any]? = nil) -> HKQuantitySample {
            HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 10),
                             start: t0 + start, end: t0 + end, metadata: metadata)
        }
        let overlapping = HKQuery.predicateForSamples(withStart: t0, end: t0 + 3_600)
        let strictStart = HKQuery.predicateForSamples(withStart: t0, end: t0 + 3_600, options: .strictStartDate)
        let strictBoth = HKQuery.predicateForSamples(withStart: t0, end: t0 + 3_600, options: [.strictStartDate, .strictEndDate])
        let straddling = sample(-600, 600), inside = sample(60, 120), crossingEnd = sample(3_000, 4_000), after = sample(4_000, 4_100)
        #expect(overlapping.evaluate(with: straddling) && overlapping.evaluate(with: inside) && overlapping.evaluate(with: crossingEnd))
        #expect(!overlapping.evaluate(with: after))
        #expect(!strictStart.evaluate(with: straddling) && strictStart.evaluate(with: crossingEnd))
        #expect(strictBoth.evaluate(with: inside) && !strictBoth.evaluate(with: crossingEnd))
        let meal = HKQuery.predicateForObjects(withMetadataKey: "DietAppLogId", allowedValues: ["meal-1", 7])
        #expect(meal.evaluate(with: sample(0, 0, metadata: ["DietAppLogId": "meal-1"])))
        #expect(meal.evaluate(with: sample(0, 0, metadata: ["DietAppLogId": 7])))
        #expect(!meal.evaluate(with: sample(0, 0, metadata: ["DietAppLogId": "meal-2"])))
        #expect(!meal.evaluate(with: sample(0, 0)))
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [strictStart, meal])
        let spec = HKPredicateSpec(both)
        #expect(spec.metadataCondition?.key == "DietAppLogId" && spec.metadataCondition?.values == ["meal-1", "7"])
        #expect(spec.range?.start == t0)
        #expect(spec.matches(sample(60, 60, metadata: ["DietAppLogId": "meal-1"])))
        #expect(!spec.matches(sample(-60, 60, metadata: ["DietAppLogId": "meal-1"])))
        let one = sample(0, 0)
        #expect(HKQuery.predicateForObject(with: one.uuid).evaluate(with: one))
    }

    @Test func sortDescriptorsAnchorsAndErrorsAreHealthKits() throws {
        #expect(NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false).healthKitKey == "startDate")
        #expect(NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: true).healthKitKey == "endDate")
        let anchor = HKQueryAnchor(fromValue: 42)
        let coded = try JSONDecoder().decode(HKQueryAnchor.self, from: JSONEncoder().encode(anchor))
        #expect(coded == anchor && coded.value == "42")
        let archived = try NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true)
        let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: archived)
        #expect(unarchived == anchor)
        let error = HKError(.errorNoData, "No data available for the specified predicate.")
        #expect(HKError.errorDomain == "com.apple.healthkit" && error.errorCode == 11)
        #expect((error as NSError).domain == "com.apple.healthkit" && (error as NSError).code == 11)
        #expect(HKWorkoutActivityType.running.rawValue == 37 && HKWorkoutActivityType(serverName: "yoga") == .yoga)
        #expect(HKWorkoutActivityType(serverName: "no such sport") == .other)
    }

    @Test func aStoreWithoutAPairedServerSaysHealthDataIsUnavailable() async throws {
        let store = HKHealthStore()
        if !HKHealthStore.isHealthDataAvailable() {
            await #expect { try await store.save(HKQuantitySample(type: HKQuantityType(.dietaryWater),
                                                                  quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 1),
                                                                  start: Date(), end: Date())) } throws: { error in
                (error as? HKError)?.code == .errorHealthDataUnavailable
            }
            #expect(store.authorizationStatus(for: HKQuantityType(.bodyMass)) == .notDetermined)
        }
    }
}
