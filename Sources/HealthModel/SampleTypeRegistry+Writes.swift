// The write facts of the sample type registry: which quantity types a person may log, in which units, with which
// metadata, and the diet app's verbs (`water`, `weight`) as shortcuts onto them. A new writable type is an entry
// here: every interface's generic log (CLI `healthbridge log <type>`, MCP `log_quantity`, `POST /api/v1/log/{type}`,
// HealthBridgeKit's `save(quantity:)`) takes it from there.

extension SampleTypeRegistry {
    /// The units each writable quantity type is logged in, the default first. The names are what people type; each
    /// stands for an HKUnit string the unit machinery converts to the type's canonical unit.
    static let entryUnits: [String: [EntryUnit]] = [
        // Body
        "bodyMass": [.init("kg"), .init("lb"), .init("st"), .init("g")],
        "leanBodyMass": [.init("kg"), .init("lb")],
        "height": [.init("cm"), .init("m"), .init("in"), .init("ft")],
        "waistCircumference": [.init("cm"), .init("m"), .init("in")],
        // Vitals
        "heartRate": [.init("bpm", unit: "count/min"), .init("count/min")],
        "restingHeartRate": [.init("bpm", unit: "count/min"), .init("count/min")],
        "respiratoryRate": [.init("count/min"), .init("breaths/min", unit: "count/min")],
        "bodyTemperature": [.init("degC"), .init("degF")],
        // 1 mmol/L of glucose (180.15588 g/mol) is 18.015588 mg/dL.
        "bloodGlucose": [.init("mg/dL"), .init("mmol/L", unit: "mmol<180.1558800000541>/L")],
        // Nutrition
        "dietaryWater": [.init("mL"), .init("L"), .init("fl_oz_us"), .init("fl_oz_imp"), .init("cup_us")],
        "dietaryEnergyConsumed": [.init("kcal"), .init("kJ")],
        "dietaryCaffeine": [.init("mg"), .init("g")],
    ]

    /// The metadata a write of a type may carry by name.
    static let writeMetadata: [String: [MetadataFact]] = ["bloodGlucose": [bloodGlucoseMealTime]]

    /// HealthKit's `HKMetadataKeyBloodGlucoseMealTime` (`HKBloodGlucoseMealTime`): before or after a meal.
    static let bloodGlucoseMealTime = MetadataFact(key: "HKMetadataKeyBloodGlucoseMealTime", name: "meal_time", values: [
        CategoryValue(1, "preprandial", exportName: "HKBloodGlucoseMealTimePreprandial"),
        CategoryValue(2, "postprandial", exportName: "HKBloodGlucoseMealTimePostprandial"),
    ])

    /// How category types are merged; a category type not listed here is merged as time per value.
    static let categoryHandling: [String: CategoryHandling] = ["sleepAnalysis": .sleepStages]

    /// The diet app's verbs: `healthbridge log water 250`, `POST /api/v1/log/weight`, `log_water`.
    ///
    /// ```swift
    /// SampleTypeRegistry.logShortcuts["water"]   // "dietaryWater"
    /// ```
    public static let logShortcuts: [String: String] = ["water": "dietaryWater", "weight": "bodyMass", "glucose": "bloodGlucose"]

    /// Every type the generic quantity log takes, in registry order.
    public static let writableTypes: [SampleType] = quantityCatalog.filter(\.isWritable)

    /// The writable quantity type a log names: a shortcut (`water`, `weight`) or any spelling of a writable type's
    /// identifier.
    /// - Throws: ``HealthError`` `.invalidType` for an unknown type (with suggestions) or one the log does not write.
    ///
    /// ```swift
    /// try SampleTypeRegistry.loggable("weight").identifier                           // "bodyMass"
    /// try SampleTypeRegistry.loggable("HKQuantityTypeIdentifierDietaryWater").identifier   // "dietaryWater"
    /// ```
    public static func loggable(_ name: String) throws(HealthError) -> SampleType {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        let shortcut = logShortcuts[trimmed.lowercased()].flatMap { registered($0) }
        let type: SampleType
        if let shortcut { type = shortcut } else { type = try resolve(trimmed) }
        guard type.isWritable else {
            throw HealthError(.invalidType, "\(type.identifier) is not a type the quantity log writes; writable: \(writableTypes.map(\.identifier).joined(separator: ", "))")
        }
        return type
    }
}
