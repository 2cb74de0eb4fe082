import HealthModel

/// Health Auto Export's metric names (snake_case, as the app writes them) and the HealthKit types they stand for.
///
/// ```swift
/// HAEMetricCatalog.type(for: "walking_running_distance")   // "distanceWalkingRunning"
/// HAEMetricCatalog.type(for: "weight_body_mass")           // "bodyMass"
/// ```
public enum HAEMetricCatalog {
    /// The metric holding sleep (aggregated nights or per-stage intervals).
    public static let sleep = "sleep_analysis"
    /// The metric holding systolic/diastolic pairs, stored as `bloodPressure` correlations.
    public static let bloodPressure = "blood_pressure"

    /// Names whose HealthKit identifier is not the camelCase of the name.
    static let names: [String: String] = [
        "active_energy": "activeEnergyBurned", "active_energy_burned": "activeEnergyBurned",
        "basal_energy_burned": "basalEnergyBurned", "resting_energy": "basalEnergyBurned",
        "walking_running_distance": "distanceWalkingRunning", "distance_walking_running": "distanceWalkingRunning",
        "cycling_distance": "distanceCycling", "swimming_distance": "distanceSwimming",
        "wheelchair_distance": "distanceWheelchair", "downhill_snow_sports_distance": "distanceDownhillSnowSports",
        "apple_exercise_time": "appleExerciseTime", "apple_stand_time": "appleStandTime",
        "apple_move_time": "appleMoveTime", "heart_rate": "heartRate", "resting_heart_rate": "restingHeartRate",
        "walking_heart_rate_average": "walkingHeartRateAverage", "heart_rate_variability": "heartRateVariabilitySDNN",
        "heart_rate_variability_sdnn": "heartRateVariabilitySDNN",
        "cardio_recovery": "heartRateRecoveryOneMinute",
        "blood_oxygen_saturation": "oxygenSaturation", "oxygen_saturation": "oxygenSaturation",
        "weight_body_mass": "bodyMass", "body_mass": "bodyMass", "body_mass_index": "bodyMassIndex",
        "vo2_max": "vo2Max", "six_minute_walking_test_distance": "sixMinuteWalkTestDistance",
        "stair_speed_up": "stairAscentSpeed", "stair_speed_down": "stairDescentSpeed",
        "walking_asymmetry_percentage": "walkingAsymmetryPercentage",
        "walking_double_support_percentage": "walkingDoubleSupportPercentage",
        "apple_walking_steadiness": "appleWalkingSteadiness",
        "breathing_disturbances": "appleSleepingBreathingDisturbances",
        "apple_sleeping_wrist_temperature": "appleSleepingWristTemperature",
        "dietary_energy": "dietaryEnergyConsumed", "dietary_water": "dietaryWater", "water": "dietaryWater",
        "protein": "dietaryProtein", "carbohydrates": "dietaryCarbohydrates", "total_fat": "dietaryFatTotal",
        "fiber": "dietaryFiber", "dietary_sugar": "dietarySugar", "sodium": "dietarySodium",
        "cholesterol": "dietaryCholesterol", "saturated_fat": "dietaryFatSaturated",
        "dietary_caffeine": "dietaryCaffeine", "caffeine": "dietaryCaffeine",
        "blood_pressure_systolic": "bloodPressureSystolic", "blood_pressure_diastolic": "bloodPressureDiastolic",
        "number_of_times_fallen": "numberOfTimesFallen", "uv_exposure": "uvExposure",
        // Nutrients whose HealthKit name orders its words differently; the others are `dietary` + the camelCase of
        // the name (calcium → dietaryCalcium, vitamin_b12 → dietaryVitaminB12): see ``type(for:)``.
        "monounsaturated_fat": "dietaryFatMonounsaturated", "polyunsaturated_fat": "dietaryFatPolyunsaturated",
        "dietary_fat_monounsaturated": "dietaryFatMonounsaturated",
        "dietary_fat_polyunsaturated": "dietaryFatPolyunsaturated", "fat_total": "dietaryFatTotal",
        "carbs": "dietaryCarbohydrates", "sugar": "dietarySugar", "dietary_fiber": "dietaryFiber",
        "energy_consumed": "dietaryEnergyConsumed", "dietary_energy_consumed": "dietaryEnergyConsumed",
        "vitamin_b_6": "dietaryVitaminB6", "vitamin_b_12": "dietaryVitaminB12", "folic_acid": "dietaryFolate",
        "pantothenic_acid": "dietaryPantothenicAcid",
        // Vitals and body measurements under HAE's spellings.
        "body_fat": "bodyFatPercentage", "weight": "bodyMass", "bmi": "bodyMassIndex",
        "blood_oxygen": "oxygenSaturation",
        "spo2": "oxygenSaturation", "forced_expiratory_volume": "forcedExpiratoryVolume1",
        "walking_step_length": "walkingStepLength", "walking_speed": "walkingSpeed",
        "physical_effort": "physicalEffort", "wrist_temperature": "appleSleepingWristTemperature",
        "sleeping_wrist_temperature": "appleSleepingWristTemperature",
        "atrial_fibrillation_burden": "atrialFibrillationBurden",
    ]

    /// The quantity type of a metric name, or nil when the name is not one HealthBridge knows (sleep and blood
    /// pressure have their own shapes: see ``sleep`` and ``bloodPressure``).
    public static func type(for name: String) -> String? {
        let lowered = name.lowercased()
        if let known = names[lowered] { return known }
        // Most names are the camelCase of the identifier: step_count → stepCount, flights_climbed → flightsClimbed.
        let parts = lowered.split(separator: "_")
        guard let head = parts.first else { return nil }
        let camel = String(head) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if let type = quantityType(camel) { return type }
        // Nutrients are sent without HealthKit's `dietary` prefix: calcium, iron, vitamin_c, zinc…
        return quantityType("dietary" + camel.prefix(1).uppercased() + camel.dropFirst())
            .flatMap { $0.hasPrefix("dietary") ? $0 : nil }
    }

    /// The registered quantity type named exactly `camel` (any case), or nil.
    static func quantityType(_ camel: String) -> String? {
        guard let type = try? SampleTypeRegistry.resolve(camel), type.kind == .quantity,
              type.identifier.lowercased() == camel.lowercased() else { return nil }
        return type.identifier
    }

    /// Every type an HAE payload can write: what an ingest token is granted by default.
    public static var writableTypes: [String] {
        var types = Set(names.values)
        for type in SampleTypeRegistry.all where type.kind == .quantity { types.insert(type.identifier) }
        types.formUnion(["sleepAnalysis", "bloodPressure", "bloodPressureSystolic", "bloodPressureDiastolic", "workout"])
        return types.sorted()
    }

    /// HAE's unit spellings as HealthBridge unit strings.
    static func unit(_ text: String) -> String {
        let trimmed = text.trimmingSpacesAndNewlines
        switch trimmed {
        case "bpm", "BPM", "count/min", "beats/min": return "count/min"
        case "°F", "ºF", "F", "degF": return "degF"
        case "°C", "ºC", "C", "degC": return "degC"
        case "hours", "hr", "h": return "hr"
        case "ml/(kg·min)", "ml/(kg*min)", "mL/(kg·min)", "ml/kg/min", "mL/min·kg": return "mL/min·kg"
        case "mi/hr", "mph": return "mi/hr"
        case "km/hr", "kmh", "km/h": return "km/hr"
        case "µg", "μg", "ug": return "mcg"
        case "ml", "mL", "millilitres", "milliliters": return "mL"
        case "l", "L", "litres", "liters": return "L"
        case "%", "percent": return "%"
        case "": return ""
        default: return HAELocalizedNames.unit(trimmed) ?? trimmed
        }
    }
}

extension String {
    var trimmingSpacesAndNewlines: String {
        // Fast path (every point's source): starting and ending with a visible ASCII byte, the first and last
        // characters are not whitespace — no character can begin with one and join what comes before or after.
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return self
        }
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
