import Foundation
import Testing
@testable import HealthModel

@Suite("SampleTypeRegistry")
struct SampleTypeRegistryTests {
    // MARK: Catalog

    @Test func catalogHasAtLeastSixtyQuantityTypes() {
        #expect(SampleTypeRegistry.types(of: .quantity).count >= 60)
        #expect(SampleTypeRegistry.all.filter { $0.kind == .quantity }.count >= 60)
    }

    @Test func identifiersAreUnique() {
        let short = SampleTypeRegistry.all.map(\.identifier)
        #expect(Set(short).count == short.count)
        let folded = short.map { $0.lowercased() }
        #expect(Set(folded).count == folded.count)
        let prefixed = SampleTypeRegistry.all.map(\.healthKitIdentifier)
        #expect(Set(prefixed).count == prefixed.count)
    }

    @Test func everyTypeIsWellFormed() {
        for type in SampleTypeRegistry.all {
            #expect(type.isRegistered)
            #expect(!type.displayName.isEmpty)
            switch type.kind {
            case .quantity:
                #expect(type.aggregation != nil, "\(type) has no aggregation")
                #expect(type.canonicalUnit?.isEmpty == false, "\(type) has no unit")
                #expect(type.categoryValues.isEmpty)
            case .category:
                #expect(type.aggregation == nil && type.canonicalUnit == nil)
                let raws = type.categoryValues.map(\.rawValue)
                #expect(Set(raws).count == raws.count, "\(type) repeats a raw value")
                for value in type.categoryValues {
                    #expect(value.exportName.hasPrefix("HKCategoryValue"), "\(type).\(value.name)")
                }
            case .correlation, .workout:
                #expect(type.aggregation == nil && type.canonicalUnit == nil && type.categoryValues.isEmpty)
            }
        }
    }

    @Test func requiredTypesArePresent() {
        let required = [
            "stepCount", "distanceWalkingRunning", "distanceCycling", "distanceSwimming", "distanceWheelchair",
            "distanceDownhillSnowSports", "pushCount", "swimmingStrokeCount", "flightsClimbed", "nikeFuel",
            "activeEnergyBurned", "basalEnergyBurned", "appleExerciseTime", "appleStandTime", "appleMoveTime",
            "timeInDaylight", "numberOfTimesFallen", "numberOfAlcoholicBeverages", "uvExposure",
            "dietaryEnergyConsumed", "dietaryVitaminA", "dietaryVitaminB6", "dietaryVitaminB12", "dietaryVitaminK",
            "dietaryChloride", "dietaryMolybdenum", "dietaryWater", "dietaryCaffeine",
            "heartRate", "heartRateVariabilitySDNN", "heartRateRecoveryOneMinute", "oxygenSaturation",
            "appleSleepingWristTemperature", "bloodAlcoholContent", "forcedExpiratoryVolume1", "inhalerUsage",
            "insulinDelivery", "electrodermalActivity", "vo2Max", "appleWalkingSteadiness", "runningGroundContactTime",
            "cyclingFunctionalThresholdPower", "physicalEffort", "environmentalSoundReduction", "underwaterDepth",
            "waterTemperature", "atrialFibrillationBurden", "appleSleepingBreathingDisturbances",
            "sleepAnalysis", "appleStandHour", "mindfulSession", "highHeartRateEvent", "audioExposureEvent",
            "handwashingEvent", "menstrualFlow", "cervicalMucusQuality", "headache", "sleepApneaEvent",
            "bloodPressure", "food", "workout",
        ]
        for identifier in required {
            #expect(SampleTypeRegistry.registered(identifier)?.identifier == identifier, "missing \(identifier)")
        }
    }

    @Test func dietaryMassesAreInGrams() {
        let dietary = SampleTypeRegistry.types(of: .quantity).filter { $0.identifier.hasPrefix("dietary") }
        #expect(dietary.count >= 39)
        for type in dietary {
            #expect(type.aggregation == .cumulative, "\(type)")
            let expected = switch type.identifier {
            case "dietaryEnergyConsumed": "kcal"
            case "dietaryWater": "mL"
            default: "g"
            }
            #expect(type.canonicalUnit == expected, "\(type)")
        }
    }

    // MARK: Lookup

    @Test(arguments: [
        ("stepCount", "stepCount"),
        ("HKQuantityTypeIdentifierStepCount", "stepCount"),
        ("HKCategoryTypeIdentifierSleepAnalysis", "sleepAnalysis"),
        ("HKCorrelationTypeIdentifierBloodPressure", "bloodPressure"),
        ("HKCorrelationTypeIdentifierFood", "food"),
        ("HKWorkoutTypeIdentifier", "workout"),
        ("HKDataTypeSleepDurationGoal", "sleepDurationGoal"),
        ("HKQuantityTypeIdentifierUVExposure", "uvExposure"),
        ("HKQuantityTypeIdentifierVO2Max", "vo2Max"),
        ("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "heartRateVariabilitySDNN"),
        ("HKCategoryTypeIdentifierAudioExposureEvent", "audioExposureEvent"),
    ])
    func prefixedAndShortLookups(input: String, expected: String) {
        #expect(SampleTypeRegistry.registered(input)?.identifier == expected)
        #expect(SampleTypeRegistry.shortIdentifier(input) == expected)
    }

    @Test func caseInsensitiveLookup() {
        #expect(SampleTypeRegistry.registered("STEPCOUNT")?.identifier == "stepCount")
        #expect(SampleTypeRegistry.registered("heartrate")?.identifier == "heartRate")
        #expect(SampleTypeRegistry.registered("hkquantitytypeidentifierstepcount")?.identifier == "stepCount")
        #expect(SampleTypeRegistry.registered("HKCategoryTypeIdentifierSLEEPANALYSIS")?.identifier == "sleepAnalysis")
        #expect(SampleTypeRegistry.registered("hkquantitytypeidentifieruvexposure")?.identifier == "uvExposure")
        #expect(SampleTypeRegistry.registered("stepcont") == nil)
        #expect(SampleTypeRegistry.registered("") == nil)
    }

    @Test func prefixMustMatchTheKind() {
        #expect(SampleTypeRegistry.registered("HKCategoryTypeIdentifierStepCount") == nil)
        #expect(SampleTypeRegistry.registered("HKQuantityTypeIdentifierSleepAnalysis") == nil)
    }

    @Test func hkIdentifierRoundTripsForEveryType() {
        for type in SampleTypeRegistry.all {
            #expect(SampleTypeRegistry.registered(type.hkIdentifier) == type, "\(type.hkIdentifier)")
            #expect(SampleTypeRegistry.registered(type.healthKitIdentifier) == type, "\(type.healthKitIdentifier)")
            #expect(SampleTypeRegistry.registered(type.identifier) == type, "\(type.identifier)")
            #expect(SampleTypeRegistry.shortIdentifier(type.healthKitIdentifier) == type.identifier)
        }
    }

    @Test func healthKitIdentifierKeepsIrregularSpellings() throws {
        #expect(try SampleTypeRegistry.resolve("uvExposure").healthKitIdentifier == "HKQuantityTypeIdentifierUVExposure")
        #expect(try SampleTypeRegistry.resolve("vo2Max").healthKitIdentifier == "HKQuantityTypeIdentifierVO2Max")
        #expect(try SampleTypeRegistry.resolve("sleepDurationGoal").healthKitIdentifier == "HKDataTypeSleepDurationGoal")
        #expect(try SampleTypeRegistry.resolve("stepCount").healthKitIdentifier == "HKQuantityTypeIdentifierStepCount")
        #expect(try SampleTypeRegistry.resolve("workout").healthKitIdentifier == "HKWorkoutTypeIdentifier")
    }

    @Test func shortIdentifierOfUnknownNames() {
        #expect(SampleTypeRegistry.shortIdentifier("HKQuantityTypeIdentifierFutureThing") == "futureThing")
        #expect(SampleTypeRegistry.shortIdentifier("HKCategoryTypeIdentifierABCEvent") == "abcEvent")
        #expect(SampleTypeRegistry.shortIdentifier("HKDataTypeIdentifierHeartbeatSeries") == "heartbeatSeries")
        #expect(SampleTypeRegistry.shortIdentifier("notAType") == "notAType")
    }

    // MARK: Aggregation and units

    @Test(arguments: [
        "stepCount", "distanceWalkingRunning", "activeEnergyBurned", "appleExerciseTime", "dietaryWater",
        "flightsClimbed", "inhalerUsage", "insulinDelivery", "numberOfTimesFallen", "timeInDaylight",
    ])
    func cumulativeTypes(identifier: String) {
        #expect(SampleTypeRegistry.registered(identifier)?.aggregation == .cumulative)
    }

    @Test(arguments: [
        "heartRate", "bodyMass", "heartRateVariabilitySDNN", "oxygenSaturation", "bloodPressureSystolic",
        "vo2Max", "walkingSpeed", "environmentalAudioExposure", "uvExposure", "bloodGlucose",
    ])
    func discreteTypes(identifier: String) {
        #expect(SampleTypeRegistry.registered(identifier)?.aggregation == .discrete)
    }

    @Test func canonicalUnits() {
        let expected: [String: String] = [
            "stepCount": "count", "distanceCycling": "m", "activeEnergyBurned": "kcal", "appleStandTime": "min",
            "heartRate": "count/min", "heartRateVariabilitySDNN": "ms", "oxygenSaturation": "%", "bodyMass": "kg",
            "bodyTemperature": "degC", "bloodPressureDiastolic": "mmHg", "bloodGlucose": "mg/dL",
            "vo2Max": "mL/min·kg", "walkingSpeed": "m/s", "headphoneAudioExposure": "dBASPL", "insulinDelivery": "IU",
            "sleepDurationGoal": "hr", "dietaryCholesterol": "g",
        ]
        for (identifier, unit) in expected {
            #expect(SampleTypeRegistry.registered(identifier)?.canonicalUnit == unit, "\(identifier)")
        }
    }

    // MARK: Category values

    @Test func sleepValues() throws {
        let sleep = try SampleTypeRegistry.resolve("HKCategoryTypeIdentifierSleepAnalysis")
        let expected = [(0, "inBed"), (1, "asleepUnspecified"), (2, "awake"), (3, "asleepCore"), (4, "asleepDeep"),
                        (5, "asleepREM")]
        #expect(sleep.categoryValues.map(\.rawValue) == expected.map(\.0))
        #expect(sleep.categoryValues.map(\.name) == expected.map(\.1))
        #expect(sleep.categoryValue(raw: 3)?.exportName == "HKCategoryValueSleepAnalysisAsleepCore")
        #expect(sleep.categoryValue(named: "HKCategoryValueSleepAnalysisAsleepREM")?.rawValue == 5)
        #expect(sleep.categoryValue(named: "HKCategoryValueSleepAnalysisInBed")?.rawValue == 0)

        let old = SampleTypeRegistry.categoryValue(for: sleep, exportValue: "HKCategoryValueSleepAnalysisAsleep")
        #expect(old?.rawValue == 1)
        #expect(old?.name == "asleepUnspecified")
        #expect(SampleTypeRegistry.categoryValue(for: sleep, exportValue: "HKCategoryValueSleepAnalysisAsleepDeep")?
            .rawValue == 4)
        #expect(SampleTypeRegistry.categoryValue(for: sleep, exportValue: "HKCategoryValueSleepAnalysisDreaming") == nil)
    }

    @Test func otherCategoryValues() throws {
        let stand = try SampleTypeRegistry.resolve("appleStandHour")
        #expect(stand.categoryValue(named: "HKCategoryValueAppleStandHourStood")?.rawValue == 0)
        #expect(stand.categoryValue(named: "idle")?.rawValue == 1)

        let flow = try SampleTypeRegistry.resolve("menstrualFlow")
        #expect(flow.categoryValues.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(flow.categoryValue(named: "HKCategoryValueMenstrualFlowHeavy")?.rawValue == 4)

        let headache = try SampleTypeRegistry.resolve("HKCategoryTypeIdentifierHeadache")
        #expect(headache.categoryValue(named: "HKCategoryValueSeverityModerate")?.rawValue == 3)
        #expect(headache.categoryValue(raw: 0)?.name == "unspecified")
        #expect(headache.categoryValue(raw: 1)?.name == "notPresent")
        let symptoms = SampleTypeRegistry.types(of: .category).filter {
            $0.categoryValue(named: "HKCategoryValueSeveritySevere")?.rawValue == 4
        }
        #expect(symptoms.count >= 10)

        let event = try SampleTypeRegistry.resolve("highHeartRateEvent")
        #expect(event.categoryValue(named: "HKCategoryValueNotApplicable")?.rawValue == 0)

        let mindful = try SampleTypeRegistry.resolve("mindfulSession")
        #expect(mindful.categoryValues.isEmpty)
        #expect(SampleTypeRegistry.categoryValue(for: mindful, exportValue: "HKCategoryValueNotApplicable")?
            .rawValue == 0)

        let ovulation = try SampleTypeRegistry.resolve("ovulationTestResult")
        #expect(SampleTypeRegistry.categoryValue(for: ovulation, exportValue: "HKCategoryValueOvulationTestResultPositive")?
            .name == "luteinizingHormoneSurge")
    }

    @Test func correlationMembers() throws {
        let bp = try SampleTypeRegistry.resolve("HKCorrelationTypeIdentifierBloodPressure")
        #expect(SampleTypeRegistry.correlationMembers(of: bp).map(\.identifier)
            == ["bloodPressureSystolic", "bloodPressureDiastolic"])
        let food = try SampleTypeRegistry.resolve("food")
        let members = SampleTypeRegistry.correlationMembers(of: food)
        #expect(members.count >= 39)
        #expect(members.allSatisfy { $0.identifier.hasPrefix("dietary") })
        #expect(SampleTypeRegistry.correlationMembers(of: try SampleTypeRegistry.resolve("stepCount")).isEmpty)
    }

    @Test func workoutType() throws {
        let workout = try SampleTypeRegistry.resolve("HKWorkoutTypeIdentifier")
        #expect(workout.identifier == "workout")
        #expect(workout.kind == .workout)
        #expect(workout.hkIdentifier == "HKWorkoutTypeIdentifier")
    }

    // MARK: Unknown types

    @Test(arguments: [
        ("HKQuantityTypeIdentifierFutureThing", SampleKind.quantity),
        ("HKCategoryTypeIdentifierFutureEvent", SampleKind.category),
        ("HKCorrelationTypeIdentifierFutureCombo", SampleKind.correlation),
    ])
    func unregisteredFutureIdentifier(identifier: String, kind: SampleKind) throws {
        let type = try #require(SampleTypeRegistry.unregistered(identifier))
        #expect(type.identifier == identifier)
        #expect(type.kind == kind)
        #expect(!type.isRegistered)
        #expect(type.aggregation == nil)
        #expect(type.canonicalUnit == nil)
        #expect(type.hkIdentifier == identifier)
        #expect(type.healthKitIdentifier == identifier)

        let resolved = try SampleTypeRegistry.resolve(identifier)
        #expect(resolved == type)
    }

    @Test(arguments: [
        "futureThing", "HKQuantityTypeIdentifier", "HKQuantityTypeIdentifierfutureThing",
        "HKQuantityTypeIdentifierFuture Thing", "HKQuantityTypeIdentifierFuture-Thing", "HKDataTypeFuture",
        "hkquantitytypeidentifierFutureThing", "HKQuantityTypeIdentifierStepCount", "",
    ])
    func unregisteredRejectsAnythingElse(identifier: String) {
        #expect(SampleTypeRegistry.unregistered(identifier) == nil)
    }

    @Test func garbageThrowsInvalidType() {
        for garbage in ["stepcont", "foo", "", "HKQuantityTypeIdentifier", "💥"] {
            #expect(throws: HealthError.self) { try SampleTypeRegistry.resolve(garbage) }
            do {
                _ = try SampleTypeRegistry.resolve(garbage)
                Issue.record("'\(garbage)' resolved")
            } catch {
                #expect(error.code == .invalidType)
                #expect(error.message.hasPrefix("unknown type '\(garbage)'"))
            }
        }
    }

    @Test func stepcontSuggestsStepCount() {
        #expect(SampleTypeRegistry.suggestions(for: "stepcont").first == "stepCount")
        #expect(SampleTypeRegistry.suggestions(for: "stepcont").count <= 3)
        do {
            _ = try SampleTypeRegistry.resolve("stepcont")
            Issue.record("stepcont resolved")
        } catch {
            #expect(error.code == .invalidType)
            #expect(error.message.hasPrefix("unknown type 'stepcont'; did you mean stepCount"))
            #expect(error.message.hasSuffix("?"))
        }
    }

    @Test func suggestionsRankings() {
        #expect(SampleTypeRegistry.suggestions(for: "hartRate").first == "heartRate")
        #expect(SampleTypeRegistry.suggestions(for: "steps").first == "stepCount")
        #expect(SampleTypeRegistry.suggestions(for: "heart").first == "heartRate")
        #expect(SampleTypeRegistry.suggestions(for: "step_count").first == "stepCount")
        #expect(SampleTypeRegistry.suggestions(for: "bodymas", limit: 1) == ["bodyMass"])
        #expect(SampleTypeRegistry.suggestions(for: "stepcont", limit: 0).isEmpty)
        let heart = SampleTypeRegistry.suggestions(for: "heart", limit: 10)
        #expect(heart.count == 10)
        #expect(heart.allSatisfy { $0.lowercased().contains("heart") })
        #expect(SampleTypeRegistry.suggestions(for: "qqqqqqqqqqqq").isEmpty)
    }

    @Test func nothingCloseHintsAtTypesCommand() {
        do {
            _ = try SampleTypeRegistry.resolve("qqqqqqqqqqqq")
            Issue.record("resolved")
        } catch {
            #expect(error.code == .invalidType)
            #expect(error.hint == .listTypes)
            #expect(!error.message.contains("did you mean"))
        }
    }

    @Test func longGarbageIsQuotedShort() {
        let long = String(repeating: "x", count: 10_000)
        do {
            _ = try SampleTypeRegistry.resolve(long)
            Issue.record("resolved")
        } catch {
            #expect(error.message.count < 300)
        }
    }

    // MARK: Workout activity types

    @Test func workoutActivityCatalog() {
        let all = WorkoutActivityType.all
        #expect(all.count == 84)
        #expect(Set(all.map(\.rawValue)).count == all.count)
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(all.map(\.rawValue) == all.map(\.rawValue).sorted())
        let expected = [
            1: "americanFootball", 13: "cycling", 20: "functionalStrengthTraining", 24: "hiking", 37: "running",
            46: "swimming", 50: "traditionalStrengthTraining", 52: "walking", 57: "yoga",
            63: "highIntensityIntervalTraining", 79: "pickleball", 80: "cooldown", 82: "swimBikeRun",
            84: "underwaterDiving", 3000: "other",
        ]
        for (raw, name) in expected {
            #expect(WorkoutActivityType.named(String(raw))?.name == name, "\(raw)")
        }
        #expect(WorkoutActivityType.named("81") == nil)
    }

    @Test func workoutActivityLookupsByEverySpelling() {
        for type in WorkoutActivityType.all {
            let spellings = [
                type.name, type.name.capitalizingFirst, type.exportName, String(type.rawValue),
                type.name.uppercased(), type.exportName.lowercased(), " \(type.name) ",
            ]
            for spelling in spellings {
                #expect(WorkoutActivityType.named(spelling) == type, "'\(spelling)'")
            }
        }
        #expect(WorkoutActivityType.named("running")?.rawValue == 37)
        #expect(WorkoutActivityType.named("Running")?.rawValue == 37)
        #expect(WorkoutActivityType.named("HKWorkoutActivityTypeRunning")?.rawValue == 37)
        #expect(WorkoutActivityType.named("37")?.name == "running")
        #expect(WorkoutActivityType.named("hiit")?.rawValue == 63)
        #expect(WorkoutActivityType.named("HKWorkoutActivityTypeCycling")?.exportName == "HKWorkoutActivityTypeCycling")
        #expect(WorkoutActivityType.named("HKWorkoutActivityTypeFutureSport") == nil)
        #expect(WorkoutActivityType.named("spelunking") == nil)
        // The short names people use (the agent bridge plan's run, walk, cycle).
        for (alias, name) in [("run", "running"), ("jogging", "running"), ("walk", "walking"), ("cycle", "cycling"),
                              ("swim", "swimming"), ("strength", "traditionalStrengthTraining")] {
            #expect(WorkoutActivityType.named(alias)?.name == name, "\(alias)")
        }
        #expect(WorkoutActivityType.named("") == nil)
        #expect(WorkoutActivityType.named("-1") == nil)
    }

    @Test func workoutActivityCodableRoundTrip() throws {
        let run = try #require(WorkoutActivityType.named("running"))
        let decoded = try JSONDecoder().decode(WorkoutActivityType.self, from: JSONEncoder().encode(run))
        #expect(decoded == run)
        #expect(run.description == "running")
    }
}
