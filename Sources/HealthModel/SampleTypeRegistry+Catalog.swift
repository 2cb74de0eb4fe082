// The data of the sample type registry: every HealthKit type HealthBridge knows, with its aggregation style, canonical
// unit and allowed category values. Identifiers, raw values and export names are HealthKit's own (from the HealthKit
// SDK headers).
// The lookup logic lives in SampleTypeRegistry.swift.

extension SampleTypeRegistry {
    // MARK: Quantity types

    /// Every registered quantity type. Canonical units are HKUnit strings; dietary masses are in grams.
    static let quantityCatalog: [SampleType] = activityQuantities + bodyQuantities + vitalQuantities
        + mobilityQuantities + labQuantities + hearingAndEnvironmentQuantities + dietaryQuantities + otherQuantities

    /// Activity and fitness.
    private static let activityQuantities: [SampleType] = [
        quantity("stepCount", .cumulative, "count"),
        quantity("distanceWalkingRunning", .cumulative, "m", "Walking + Running Distance"),
        quantity("distanceCycling", .cumulative, "m", "Cycling Distance"),
        quantity("distanceSwimming", .cumulative, "m", "Swimming Distance"),
        quantity("distanceWheelchair", .cumulative, "m", "Wheelchair Distance"),
        quantity("distanceDownhillSnowSports", .cumulative, "m", "Downhill Snow Sports Distance"),
        quantity("distanceCrossCountrySkiing", .cumulative, "m", "Cross Country Skiing Distance"),
        quantity("distancePaddleSports", .cumulative, "m", "Paddle Sports Distance"),
        quantity("distanceRowing", .cumulative, "m", "Rowing Distance"),
        quantity("distanceSkatingSports", .cumulative, "m", "Skating Sports Distance"),
        quantity("pushCount", .cumulative, "count"),
        quantity("swimmingStrokeCount", .cumulative, "count"),
        quantity("flightsClimbed", .cumulative, "count"),
        quantity("nikeFuel", .cumulative, "count", "NikeFuel"),
        quantity("activeEnergyBurned", .cumulative, "kcal", "Active Energy"),
        quantity("basalEnergyBurned", .cumulative, "kcal", "Resting Energy"),
        quantity("appleExerciseTime", .cumulative, "min", "Exercise Minutes"),
        quantity("appleStandTime", .cumulative, "min", "Stand Time"),
        quantity("appleMoveTime", .cumulative, "min", "Move Time"),
        quantity("vo2Max", .discrete, "mL/min·kg", "VO2 Max"),
        quantity("physicalEffort", .discrete, "kcal/hr·kg"),
        quantity("workoutEffortScore", .discrete, "appleEffortScore"),
        quantity("estimatedWorkoutEffortScore", .discrete, "appleEffortScore"),
        quantity("runningSpeed", .discrete, "m/s"),
        quantity("runningPower", .discrete, "W"),
        quantity("runningStrideLength", .discrete, "m"),
        quantity("runningVerticalOscillation", .discrete, "cm"),
        quantity("runningGroundContactTime", .discrete, "ms"),
        quantity("cyclingSpeed", .discrete, "m/s"),
        quantity("cyclingPower", .discrete, "W"),
        quantity("cyclingCadence", .discrete, "count/min"),
        quantity("cyclingFunctionalThresholdPower", .discrete, "W"),
        quantity("crossCountrySkiingSpeed", .discrete, "m/s"),
        quantity("paddleSportsSpeed", .discrete, "m/s"),
        quantity("rowingSpeed", .discrete, "m/s"),
        quantity("underwaterDepth", .discrete, "m"),
        quantity("waterTemperature", .discrete, "degC"),
    ]

    /// Body measurements.
    private static let bodyQuantities: [SampleType] = [
        quantity("bodyMass", .discrete, "kg", "Weight"),
        quantity("bodyMassIndex", .discrete, "count", "Body Mass Index"),
        quantity("bodyFatPercentage", .discrete, "%"),
        quantity("leanBodyMass", .discrete, "kg"),
        quantity("height", .discrete, "m"),
        quantity("waistCircumference", .discrete, "m"),
        quantity("appleSleepingWristTemperature", .discrete, "degC", "Sleeping Wrist Temperature"),
    ]

    /// Vital signs and heart.
    private static let vitalQuantities: [SampleType] = [
        quantity("heartRate", .discrete, "count/min"),
        quantity("restingHeartRate", .discrete, "count/min"),
        quantity("walkingHeartRateAverage", .discrete, "count/min"),
        quantity("heartRateVariabilitySDNN", .discrete, "ms", "Heart Rate Variability (SDNN)"),
        quantity("heartRateRecoveryOneMinute", .discrete, "count/min", "Cardio Recovery"),
        quantity("atrialFibrillationBurden", .discrete, "%", "AFib History"),
        quantity("oxygenSaturation", .discrete, "%", "Blood Oxygen"),
        quantity("respiratoryRate", .discrete, "count/min"),
        quantity("bodyTemperature", .discrete, "degC"),
        quantity("basalBodyTemperature", .discrete, "degC"),
        quantity("bloodPressureSystolic", .discrete, "mmHg", "Systolic Blood Pressure"),
        quantity("bloodPressureDiastolic", .discrete, "mmHg", "Diastolic Blood Pressure"),
        quantity("peripheralPerfusionIndex", .discrete, "%"),
        quantity("appleSleepingBreathingDisturbances", .discrete, "count", "Breathing Disturbances"),
    ]

    /// Mobility.
    private static let mobilityQuantities: [SampleType] = [
        quantity("walkingSpeed", .discrete, "m/s"),
        quantity("walkingStepLength", .discrete, "m"),
        quantity("walkingAsymmetryPercentage", .discrete, "%", "Walking Asymmetry"),
        quantity("walkingDoubleSupportPercentage", .discrete, "%", "Double Support Time"),
        quantity("sixMinuteWalkTestDistance", .discrete, "m", "Six-Minute Walk"),
        quantity("stairAscentSpeed", .discrete, "m/s", "Stair Speed: Up"),
        quantity("stairDescentSpeed", .discrete, "m/s", "Stair Speed: Down"),
        quantity("appleWalkingSteadiness", .discrete, "%", "Walking Steadiness"),
    ]

    /// Lab results, respiratory function and medication.
    private static let labQuantities: [SampleType] = [
        quantity("bloodGlucose", .discrete, "mg/dL"),
        quantity("bloodAlcoholContent", .discrete, "%"),
        quantity("numberOfAlcoholicBeverages", .cumulative, "count", "Alcoholic Beverages"),
        quantity("forcedVitalCapacity", .discrete, "L"),
        quantity("forcedExpiratoryVolume1", .discrete, "L", "Forced Expiratory Volume, 1 sec"),
        quantity("peakExpiratoryFlowRate", .discrete, "L/min"),
        quantity("inhalerUsage", .cumulative, "count"),
        quantity("insulinDelivery", .cumulative, "IU"),
        quantity("electrodermalActivity", .discrete, "mcS"),
        quantity("numberOfTimesFallen", .cumulative, "count", "Number of Times Fallen"),
    ]

    /// Hearing, daylight and UV.
    private static let hearingAndEnvironmentQuantities: [SampleType] = [
        quantity("environmentalAudioExposure", .discrete, "dBASPL", "Environmental Sound Levels"),
        quantity("headphoneAudioExposure", .discrete, "dBASPL", "Headphone Audio Levels"),
        quantity("environmentalSoundReduction", .discrete, "dBASPL"),
        quantity("timeInDaylight", .cumulative, "min"),
        quantity("uvExposure", .discrete, "count", "UV Index"),
    ]

    /// Nutrition: every `HKQuantityTypeIdentifierDietary…` type, all cumulative.
    private static let dietaryQuantities: [SampleType] = [
        dietary("dietaryEnergyConsumed", "kcal", "Dietary Energy"),
        dietary("dietaryProtein", "g", "Protein"),
        dietary("dietaryCarbohydrates", "g", "Carbohydrates"),
        dietary("dietaryFatTotal", "g", "Total Fat"),
        dietary("dietaryFatSaturated", "g", "Saturated Fat"),
        dietary("dietaryFatMonounsaturated", "g", "Monounsaturated Fat"),
        dietary("dietaryFatPolyunsaturated", "g", "Polyunsaturated Fat"),
        dietary("dietaryCholesterol", "g", "Dietary Cholesterol"),
        dietary("dietarySodium", "g", "Sodium"),
        dietary("dietaryFiber", "g", "Fiber"),
        dietary("dietarySugar", "g", "Dietary Sugar"),
        dietary("dietaryWater", "mL", "Water"),
        dietary("dietaryCaffeine", "g", "Caffeine"),
        dietary("dietaryVitaminA", "g", "Vitamin A"),
        dietary("dietaryVitaminB6", "g", "Vitamin B6"),
        dietary("dietaryVitaminB12", "g", "Vitamin B12"),
        dietary("dietaryVitaminC", "g", "Vitamin C"),
        dietary("dietaryVitaminD", "g", "Vitamin D"),
        dietary("dietaryVitaminE", "g", "Vitamin E"),
        dietary("dietaryVitaminK", "g", "Vitamin K"),
        dietary("dietaryThiamin", "g", "Thiamin"),
        dietary("dietaryRiboflavin", "g", "Riboflavin"),
        dietary("dietaryNiacin", "g", "Niacin"),
        dietary("dietaryFolate", "g", "Folate"),
        dietary("dietaryBiotin", "g", "Biotin"),
        dietary("dietaryPantothenicAcid", "g", "Pantothenic Acid"),
        dietary("dietaryCalcium", "g", "Calcium"),
        dietary("dietaryIron", "g", "Iron"),
        dietary("dietaryPotassium", "g", "Potassium"),
        dietary("dietaryMagnesium", "g", "Magnesium"),
        dietary("dietaryZinc", "g", "Zinc"),
        dietary("dietaryPhosphorus", "g", "Phosphorus"),
        dietary("dietaryIodine", "g", "Iodine"),
        dietary("dietarySelenium", "g", "Selenium"),
        dietary("dietaryCopper", "g", "Copper"),
        dietary("dietaryManganese", "g", "Manganese"),
        dietary("dietaryChromium", "g", "Chromium"),
        dietary("dietaryMolybdenum", "g", "Molybdenum"),
        dietary("dietaryChloride", "g", "Chloride"),
    ]

    /// Types found in exports under a prefix of their own (see ``healthKitIdentifierOverrides``).
    private static let otherQuantities: [SampleType] = [
        quantity("sleepDurationGoal", .discrete, "hr"),
    ]

    // MARK: Category types

    /// Every registered category type with its allowed values.
    static let categoryCatalog: [SampleType] = [
        // Sleep, mindfulness, activity.
        category("sleepAnalysis", values(
            "SleepAnalysis",
            [(0, "inBed"), (1, "asleepUnspecified"), (2, "awake"),
             (3, "asleepCore"), (4, "asleepDeep"), (5, "asleepREM")]
        ), "Sleep"),
        category("sleepApneaEvent", notApplicable, "Sleep Apnea Notification"),
        category("appleStandHour", values("AppleStandHour", [(0, "stood"), (1, "idle")]), "Stand Hour"),
        category("mindfulSession", [], "Mindful Minutes"),
        category("handwashingEvent", notApplicable, "Handwashing"),
        category("toothbrushingEvent", notApplicable, "Toothbrushing"),
        // Heart notifications.
        category("highHeartRateEvent", notApplicable, "High Heart Rate Notification"),
        category("lowHeartRateEvent", notApplicable, "Low Heart Rate Notification"),
        category("irregularHeartRhythmEvent", notApplicable, "Irregular Rhythm Notification"),
        category("lowCardioFitnessEvent", values("LowCardioFitnessEvent", [(1, "lowFitness")]),
                 "Low Cardio Fitness Notification"),
        // Hearing and mobility notifications.
        category("audioExposureEvent", values("AudioExposureEvent", [(1, "loudEnvironment")]),
                 "Audio Exposure Notification"),
        category("environmentalAudioExposureEvent",
                 values("EnvironmentalAudioExposureEvent", [(1, "momentaryLimit")]),
                 "Environmental Sound Levels Notification"),
        category("headphoneAudioExposureEvent", values("HeadphoneAudioExposureEvent", [(1, "sevenDayLimit")]),
                 "Headphone Notification"),
        category("appleWalkingSteadinessEvent", values(
            "AppleWalkingSteadinessEvent",
            [(1, "initialLow"), (2, "initialVeryLow"), (3, "repeatLow"), (4, "repeatVeryLow")]
        ), "Walking Steadiness Notification"),
        // Cycle tracking and reproductive health.
        category("menstrualFlow", values(
            "MenstrualFlow", [(1, "unspecified"), (2, "light"), (3, "medium"), (4, "heavy"), (5, "none")]
        ), "Menstruation"),
        category("intermenstrualBleeding", notApplicable, "Spotting"),
        category("ovulationTestResult", values(
            "OvulationTestResult",
            [(1, "negative"), (2, "luteinizingHormoneSurge"), (3, "indeterminate"), (4, "estrogenSurge")]
        )),
        category("cervicalMucusQuality", values(
            "CervicalMucusQuality", [(1, "dry"), (2, "sticky"), (3, "creamy"), (4, "watery"), (5, "eggWhite")]
        )),
        category("sexualActivity", notApplicable),
        category("pregnancy", notApplicable),
        category("lactation", notApplicable),
        category("contraceptive", values(
            "Contraceptive",
            [(1, "unspecified"), (2, "implant"), (3, "injection"), (4, "intrauterineDevice"),
             (5, "intravaginalRing"), (6, "oral"), (7, "patch")]
        ), "Contraceptives"),
        category("pregnancyTestResult", values(
            "PregnancyTestResult", [(1, "negative"), (2, "positive"), (3, "indeterminate")]
        )),
        category("progesteroneTestResult", values(
            "ProgesteroneTestResult", [(1, "negative"), (2, "positive"), (3, "indeterminate")]
        )),
        category("persistentIntermenstrualBleeding", notApplicable),
        category("prolongedMenstrualPeriods", notApplicable),
        category("irregularMenstrualCycles", notApplicable),
        category("infrequentMenstrualCycles", notApplicable),
        category("bleedingDuringPregnancy", vaginalBleeding),
        category("bleedingAfterPregnancy", vaginalBleeding),
    ] + symptomCatalog

    /// Symptoms. Most take `HKCategoryValueSeverity`; a few have a value set of their own.
    private static let symptomCatalog: [SampleType] = [
        "abdominalCramps", "acne", "bladderIncontinence", "bloating", "breastPain", "chestTightnessOrPain", "chills",
        "constipation", "coughing", "diarrhea", "dizziness", "drySkin", "fainting", "fatigue", "fever",
        "generalizedBodyAche", "hairLoss", "headache", "heartburn", "hotFlashes", "lossOfSmell", "lossOfTaste",
        "lowerBackPain", "memoryLapse", "nausea", "nightSweats", "pelvicPain", "rapidPoundingOrFlutteringHeartbeat",
        "runnyNose", "shortnessOfBreath", "sinusCongestion", "skippedHeartbeat", "soreThroat", "vaginalDryness",
        "vomiting", "wheezing",
    ].map { category($0, severity) } + [
        category("appetiteChanges", values(
            "AppetiteChanges", [(0, "unspecified"), (1, "noChange"), (2, "decreased"), (3, "increased")]
        )),
        category("moodChanges", presence),
        category("sleepChanges", presence),
    ]

    // MARK: Correlations and workouts

    /// The correlation types; their members are in ``correlationMemberIdentifiers``.
    static let correlationCatalog: [SampleType] = [
        SampleType(identifier: "bloodPressure", kind: .correlation, displayName: "Blood Pressure"),
        SampleType(identifier: "food", kind: .correlation, displayName: "Food"),
    ]

    /// The short identifiers of the quantity types a correlation may contain.
    static let correlationMemberIdentifiers: [String: [String]] = [
        "bloodPressure": ["bloodPressureSystolic", "bloodPressureDiastolic"],
        "food": dietaryQuantities.map(\.identifier),
    ]

    static let workoutCatalog: [SampleType] = [
        SampleType(identifier: "workout", kind: .workout, displayName: "Workout"),
    ]

    // MARK: Spellings

    /// HealthKit identifiers whose exact spelling is not the prefix plus the capitalized short identifier.
    static let healthKitIdentifierOverrides: [String: String] = [
        "uvExposure": "HKQuantityTypeIdentifierUVExposure",
        "vo2Max": "HKQuantityTypeIdentifierVO2Max",
        "sleepDurationGoal": "HKDataTypeSleepDurationGoal",
        "workout": "HKWorkoutTypeIdentifier",
    ]

    /// Category value spellings found in exports besides the canonical ones: (type, lowercased spelling) → raw value.
    /// Older exports write `HKCategoryValueSleepAnalysisAsleep` (renamed asleepUnspecified in iOS 16) and
    /// `HKCategoryValueOvulationTestResultPositive` (renamed luteinizingHormoneSurge in iOS 13). Sleep stages are
    /// also accepted under the names the Health app shows in French, German, Spanish and Italian, as apps and
    /// re-exported files sometimes write them (`"Au lit"`, `"Tief"`, `"Despierto"` → in bed, deep, awake).
    ///
    /// ```swift
    /// SampleTypeRegistry.categoryValue(for: sleep, exportValue: "Profond")?.name   // "asleepDeep"
    /// ```
    static let categoryValueAliases: [String: [String: Int]] = [
        "sleepAnalysis": [
            "hkcategoryvaluesleepanalysisasleep": 1, "asleep": 1,
            // French
            "au lit": 0, "endormi": 1, "sommeil": 1, "éveillé": 2, "eveille": 2, "cœur": 3, "coeur": 3,
            "profond": 4, "sommeil profond": 4, "paradoxal": 5, "sommeil paradoxal": 5,
            // German
            "im bett": 0, "schlafend": 1, "schlaf": 1, "wach": 2, "kern": 3, "kernschlaf": 3, "tief": 4,
            "tiefschlaf": 4, "rem": 5, "rem-schlaf": 5,
            // Spanish
            "en cama": 0, "dormido": 1, "despierto": 2, "esencial": 3, "núcleo": 3, "sueño esencial": 3, "profundo": 4,
            "sueño profundo": 4, "sueño rem": 5,
            // Italian
            "a letto": 0, "addormentato": 1, "sveglio": 2, "essenziale": 3, "sonno essenziale": 3, "profondo": 4,
            "sonno profondo": 4, "sonno rem": 5,
        ],
        "ovulationTestResult": ["hkcategoryvalueovulationtestresultpositive": 2, "positive": 2],
    ]

    /// Everyday words mapped to the type they most likely mean, for ``suggestions(for:limit:)`` only.
    static let suggestionAliases: [String: String] = [
        "steps": "stepCount", "step": "stepCount", "walking": "distanceWalkingRunning",
        "distance": "distanceWalkingRunning", "running": "distanceWalkingRunning", "cycling": "distanceCycling",
        "floors": "flightsClimbed", "stairs": "flightsClimbed", "calories": "activeEnergyBurned",
        "energy": "activeEnergyBurned", "exercise": "appleExerciseTime", "stand": "appleStandTime",
        "weight": "bodyMass", "mass": "bodyMass", "bmi": "bodyMassIndex", "bodyfat": "bodyFatPercentage",
        "fat": "bodyFatPercentage", "hr": "heartRate", "pulse": "heartRate", "bpm": "heartRate",
        "hrv": "heartRateVariabilitySDNN", "rhr": "restingHeartRate", "spo2": "oxygenSaturation",
        "oxygen": "oxygenSaturation", "bloodoxygen": "oxygenSaturation", "temperature": "bodyTemperature",
        "temp": "bodyTemperature", "bp": "bloodPressure", "glucose": "bloodGlucose", "sugar": "bloodGlucose",
        "sleep": "sleepAnalysis", "mindful": "mindfulSession", "meditation": "mindfulSession",
        "workouts": "workout", "water": "dietaryWater", "caffeine": "dietaryCaffeine", "vo2": "vo2Max",
        "breathing": "respiratoryRate", "respiration": "respiratoryRate", "noise": "environmentalAudioExposure",
        "daylight": "timeInDaylight", "uv": "uvExposure", "period": "menstrualFlow", "menstruation": "menstrualFlow",
        "falls": "numberOfTimesFallen", "alcohol": "numberOfAlcoholicBeverages", "insulin": "insulinDelivery",
    ]
}

// MARK: - Builders

extension SampleTypeRegistry {
    private static func quantity(
        _ identifier: String, _ aggregation: AggregationStyle, _ unit: String, _ displayName: String? = nil
    ) -> SampleType {
        SampleType(
            identifier: identifier, kind: .quantity, aggregation: aggregation, canonicalUnit: unit,
            displayName: displayName ?? SampleTypeRegistry.displayName(forShortIdentifier: identifier)
        )
    }

    private static func dietary(_ identifier: String, _ unit: String, _ displayName: String) -> SampleType {
        quantity(identifier, .cumulative, unit, displayName)
    }

    private static func category(
        _ identifier: String, _ values: [CategoryValue], _ displayName: String? = nil
    ) -> SampleType {
        SampleType(
            identifier: identifier, kind: .category, categoryValues: values,
            displayName: displayName ?? SampleTypeRegistry.displayName(forShortIdentifier: identifier)
        )
    }

    /// Values exported as `HKCategoryValue<group><Name>`, e.g. `HKCategoryValueSleepAnalysisAsleepCore`.
    private static func values(_ group: String, _ pairs: [(Int, String)]) -> [CategoryValue] {
        pairs.map { CategoryValue($0.0, $0.1, exportName: "HKCategoryValue" + group + $0.1.capitalizingFirst) }
    }

    /// The single value of a type whose samples carry no information in their value (events, spotting, pregnancy…).
    private static let notApplicable = [CategoryValue(0, "notApplicable", exportName: "HKCategoryValueNotApplicable")]

    /// `HKCategoryValueSeverity`, shared by most symptom types.
    private static let severity = values(
        "Severity", [(0, "unspecified"), (1, "notPresent"), (2, "mild"), (3, "moderate"), (4, "severe")]
    )

    /// `HKCategoryValuePresence` (moodChanges, sleepChanges).
    private static let presence = values("Presence", [(0, "present"), (1, "notPresent")])

    /// `HKCategoryValueVaginalBleeding` (bleedingDuringPregnancy, bleedingAfterPregnancy).
    private static let vaginalBleeding = values(
        "VaginalBleeding", [(1, "unspecified"), (2, "light"), (3, "medium"), (4, "heavy"), (5, "none")]
    )
}
