import Foundation
import HealthModel

/// Reads what the Android app "Health Connect Webhook" (HC Webhook) POSTs — the most used open-source exporter of
/// Google Health Connect with a push feature — and hands each record, mapped to HealthKit, to the caller one at a
/// time, without a document tree (the design of ``HAEPayloadReader``: memory holds the body and one record).
///
/// The payload format is the app's own, taken from its public source: repository `mcnaveen/health-connect-webhook`,
/// file `app/src/main/java/com/hcwebhook/app/SyncManager.kt` (`buildJsonPayload`, `putRecordMetadata`), and its sleep
/// stage names from `HealthConnectManager.kt` (`sleepStageToString`):
///
/// ```json
/// {"timestamp": "2024-03-05T08:00:00Z", "app_version": "2.1.0",
///  "steps": [{"count": 1200, "start_time": "2024-03-04T07:00:00Z", "end_time": "2024-03-04T08:00:00Z",
///             "metadata": {"data_origin": "com.google.android.apps.fitness", "recording_method": 1,
///                          "device": {"manufacturer": "Google", "model": "Pixel 8", "type": 2}}}],
///  "heart_rate": [{"bpm": 64, "time": "…"}, {"time": "…", "avg": 71.5, "min": 58, "max": 112}],
///  "sleep": [{"session_end_time": "…", "duration_seconds": 27000,
///             "stages": [{"stage": "deep", "start_time": "…", "end_time": "…", "duration_seconds": 3600}]}],
///  "distance": [{"meters": …}], "active_calories": [{"calories": …}], "weight": [{"kilograms": …, "time": …}],
///  "blood_pressure": [{"systolic": …, "diastolic": …, "time": …}], "exercise": [{"type": …, "start_time": …}], …}
/// ```
///
/// Sections mapped: steps, distance (walking + running), active_calories, heart_rate, resting_heart_rate,
/// respiratory_rate, oxygen_saturation, weight, height, lean_body_mass, body_fat, body_temperature,
/// basal_body_temperature, blood_glucose, blood_pressure, vo2_max, hydration, nutrition (energy, protein,
/// carbohydrates, fat, sugar, sodium, fiber), sleep (stages; a session without stages as asleep) and exercise
/// (workouts). Not mapped, counted as unknown: `total_calories` (HealthKit has no total energy type: it is active +
/// basal), `heart_rate_variability` (Health Connect's RMSSD is not HealthKit's SDNN), `bmi` (computed by the app from
/// weight and height, not a record), `basal_metabolic_rate` (a power, not energy burned), `body_water_mass`,
/// `bone_mass`, `skin_temperature` and cycle tracking. Values are in the type's canonical unit; the source of each
/// item is the record's data origin (the package name of the app that wrote it to Health Connect).
///
/// ```swift
/// let summary = try HealthConnectPayloadReader().read(body, item: { batch.append($0) }, workout: { workouts.append($0) })
/// summary.unknown   // ["total_calories": 24]
/// ```
public struct HealthConnectPayloadReader: Sendable {
    public init() {}

    /// The source name of records without a data origin.
    public static let defaultSource = "Health Connect"

    /// Whether `prefix` (the first bytes of a file) looks like an HC Webhook payload: a JSON object with
    /// `app_version` or `timestamp` and one of the record sections, and no HAE `data` object.
    ///
    /// ```swift
    /// HealthConnectPayloadReader.recognises(Array(#"{"timestamp":"…","app_version":"2.1","steps":[]}"#.utf8))   // true
    /// ```
    public static func recognises(_ prefix: [UInt8]) -> Bool {
        guard let first = prefix.first(where: { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }),
              first == UInt8(ascii: "{") else { return false }
        let text = String(decoding: prefix.prefix(4096), as: UTF8.self)
        guard !text.contains("\"data\""), text.contains("\"app_version\"") || text.contains("\"timestamp\"") else { return false }
        return sections.keys.contains { text.contains("\"\($0)\"") } || text.contains("\"sleep\"")
            || text.contains("\"exercise\"") || text.contains("\"nutrition\"") || text.contains("\"blood_pressure\"")
    }

    /// A section of single-value records: its HealthKit type, the field holding the value, the field's unit and
    /// whether the record is an instant (`time`) rather than an interval (`start_time`, `end_time`).
    struct Section {
        var type: String
        var field: String
        var unit: String
        var instant: Bool
        /// Health Connect's percentages are 0–100; HealthKit's `%` is a fraction.
        var percent = false
    }

    static let sections: [String: Section] = [
        "steps": Section(type: "stepCount", field: "count", unit: "count", instant: false),
        "distance": Section(type: "distanceWalkingRunning", field: "meters", unit: "m", instant: false),
        "active_calories": Section(type: "activeEnergyBurned", field: "calories", unit: "kcal", instant: false),
        "hydration": Section(type: "dietaryWater", field: "liters", unit: "L", instant: false),
        "heart_rate": Section(type: "heartRate", field: "bpm", unit: "count/min", instant: true),
        "resting_heart_rate": Section(type: "restingHeartRate", field: "bpm", unit: "count/min", instant: true),
        "respiratory_rate": Section(type: "respiratoryRate", field: "rate", unit: "count/min", instant: true),
        "oxygen_saturation": Section(type: "oxygenSaturation", field: "percentage", unit: "%", instant: true, percent: true),
        "body_fat": Section(type: "bodyFatPercentage", field: "percentage", unit: "%", instant: true, percent: true),
        "weight": Section(type: "bodyMass", field: "kilograms", unit: "kg", instant: true),
        "height": Section(type: "height", field: "meters", unit: "m", instant: true),
        "lean_body_mass": Section(type: "leanBodyMass", field: "kilograms", unit: "kg", instant: true),
        "body_temperature": Section(type: "bodyTemperature", field: "celsius", unit: "degC", instant: true),
        "basal_body_temperature": Section(type: "basalBodyTemperature", field: "celsius", unit: "degC", instant: true),
        "blood_glucose": Section(type: "bloodGlucose", field: "mmol_per_liter", unit: "mmol<180.15588>/L", instant: true),
        "vo2_max": Section(type: "vo2Max", field: "ml_per_kg_per_min", unit: "mL/min·kg", instant: true),
    ]

    /// The fields of a `nutrition` record and their HealthKit types (grams, kcal).
    static let nutrients: [(field: String, type: String, unit: String)] = [
        ("calories", "dietaryEnergyConsumed", "kcal"), ("protein_grams", "dietaryProtein", "g"),
        ("carbs_grams", "dietaryCarbohydrates", "g"), ("fat_grams", "dietaryFatTotal", "g"),
        ("sugar_grams", "dietarySugar", "g"), ("sodium_grams", "dietarySodium", "g"),
        ("dietary_fiber_grams", "dietaryFiber", "g"),
    ]

    /// Numeric fields a record may carry; any other field is skipped unread.
    static let numericFields: Set<String> = Set(sections.values.map(\.field)).union(nutrients.map(\.field)).union([
        "avg", "min", "max", "systolic", "diastolic", "duration_seconds", "distance_meters",
    ])

    /// Reads a payload (at most ``IngestBatch/maxBytes``) into a batch for the service's ingest: each record's
    /// source is its Health Connect data origin, its sync identifier (`hc/TYPE/START/END[/STAGE]/SOURCE`) makes a
    /// re-send store nothing new.
    ///
    /// ```swift
    /// let report = try await service.ingest(try HealthConnectPayloadReader().batch(body))
    /// report.format     // "health-connect"
    /// ```
    public func batch(_ body: consuming [UInt8]) throws -> IngestBatch {
        guard body.count <= IngestBatch.maxBytes else {
            throw HealthError(.payloadTooLarge, "a Health Connect payload is at most \(IngestBatch.maxBytes / 1_048_576) MB")
        }
        var builder = IngestBatchBuilder(format: .healthConnect, reserving: body.count)
        let summary = try read(body, item: { builder.append($0) }, workout: { builder.append($0) })
        _ = consume body
        return builder.finish(summary)
    }

    /// Reads a payload and hands each mapped item and workout to the caller, as they are read.
    public func read(_ bytes: [UInt8], item: (HAEItem) throws -> Void,
                     workout: (HAEWorkout) throws -> Void) throws -> HAEReadSummary {
        var reader = JSONPullReader(bytes)
        var summary = HAEReadSummary()
        guard try reader.peek() == .object else {
            throw HealthError(.invalidArgument, "not a Health Connect payload: the body must be a JSON object of record lists")
        }
        try reader.beginObject()
        while let key = try reader.nextKey() {
            guard try reader.peek() == .array else { try reader.skipValue(); continue }
            try reader.beginArray()
            if let section = Self.sections[key] {
                while try reader.nextElement() {
                    summary.items[key, default: 0] += 1
                    try mapQuantity(Self.readRecord(&reader), key, section, &summary, item)
                }
            } else if key == "blood_pressure" || key == "nutrition" || key == "sleep" {
                while try reader.nextElement() {
                    summary.items[key, default: 0] += 1
                    let record = try Self.readRecord(&reader)
                    switch key {
                    case "blood_pressure": try mapPressure(record, &summary, item)
                    case "nutrition": try mapNutrition(record, &summary, item)
                    default: try mapSleep(record, &summary, item)
                    }
                }
            } else if key == "exercise" {
                while try reader.nextElement() {
                    summary.items["workouts", default: 0] += 1
                    if let mapped = Self.mapExercise(try Self.readRecord(&reader), &summary) { try workout(mapped) }
                }
            } else {
                var count = 0
                while try reader.nextElement() { try reader.skipValue(); count += 1 }
                if count > 0 { summary.unknown[key, default: 0] += count }
            }
        }
        try reader.finish()
        return summary
    }

    // MARK: Records

    /// One record with the fields any section uses; absent fields are nil.
    struct Record {
        var numbers: [String: Double] = [:]
        var time: String?
        var startTime: String?
        var endTime: String?
        var sessionEndTime: String?
        /// Exercise: the type (a Health Connect constant or a name) and title.
        var type: String?
        var title: String?
        /// The package name of the app that wrote the record to Health Connect.
        var origin: String?
        /// Sleep: the reader standing before the `stages` array.
        var stages: JSONPullReader?
    }

    /// One element of a section; an element that is not an object is an empty record (rejected: no time).
    static func readRecord(_ reader: inout JSONPullReader) throws -> Record {
        var record = Record()
        guard try reader.peek() == .object else { try reader.skipValue(); return record }
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "time": record.time = try reader.optionalString()
            case "start_time": record.startTime = try reader.optionalString()
            case "end_time": record.endTime = try reader.optionalString()
            case "session_end_time": record.sessionEndTime = try reader.optionalString()
            case "title": record.title = try reader.optionalString()
            case "type":
                switch try reader.peek() {
                case .number: record.type = try reader.lenientNumber().map { String($0.clampedInt64()) }
                default: record.type = try reader.optionalString()
                }
            case "metadata":
                guard try reader.peek() == .object else { try reader.skipValue(); continue }
                try reader.beginObject()
                while let field = try reader.nextKey() {
                    if field == "data_origin" { record.origin = try reader.optionalString() } else { try reader.skipValue() }
                }
            case "stages":
                // Read once the session's dates and origin are known (they may come after the stages): nothing
                // per stage is kept.
                guard try reader.peek() == .array else { try reader.skipValue(); continue }
                record.stages = reader
                try reader.skipValue()
            default:
                if numericFields.contains(key), let value = try reader.lenientNumber() {
                    record.numbers[key] = value
                } else if !numericFields.contains(key) {
                    try reader.skipValue()
                }
            }
        }
        return record
    }

    /// The record's source: its data origin, trimmed and bounded; the default source when it has none.
    static func source(_ record: Record) -> String {
        let origin = String((record.origin ?? "").trimmingSpacesAndNewlines.unicodeScalars
            .filter { $0.properties.generalCategory != .control }.prefix(200).map(Character.init))
        return origin.isEmpty ? defaultSource : origin
    }

    /// The record's dates: `start_time`…`end_time`, or the instant `time`.
    static func dates(_ record: Record, instant: Bool) -> (start: HAEDate, end: Double)? {
        if !instant || record.time == nil, let startText = record.startTime, let start = HAEDate.parse(startText) {
            let end = record.endTime.flatMap { HAEDate.parse($0)?.seconds } ?? start.seconds
            return (start, end)
        }
        guard let text = record.time, let time = HAEDate.parse(text) else { return nil }
        return (time, time.seconds)
    }

    static func convert(_ value: Double, from unit: String, to canonical: String) -> Double? {
        guard unit != canonical else { return value }
        return try? HealthUnit.parse(unit).convert(value, to: HealthUnit.parse(canonical))
    }

    static func canonicalUnit(_ type: String) -> String? {
        (try? SampleTypeRegistry.resolve(type))?.canonicalUnit
    }

    func emit(_ section: String, _ type: String, _ value: HAEItem.Value, unit: String, _ dates: (start: HAEDate, end: Double),
              _ record: Record, metadata: [String: String] = [:], _ item: (HAEItem) throws -> Void) throws {
        try item(HAEItem(metric: section, type: type, value: value, unit: unit, start: dates.start.seconds,
                         end: dates.end, utcOffset: dates.start.offset, source: Self.source(record),
                         aggregated: false, metadata: metadata))
    }

    func mapQuantity(_ record: Record, _ name: String, _ section: Section, _ summary: inout HAEReadSummary,
                     _ item: (HAEItem) throws -> Void) throws {
        guard let dates = Self.dates(record, instant: section.instant) else {
            summary.reject(name, "a record without a readable time"); return
        }
        guard dates.end >= dates.start.seconds else { summary.reject(name, "a record that ends before it starts"); return }
        guard let canonical = Self.canonicalUnit(section.type) else { summary.reject(name, "an unknown type"); return }
        func value(_ raw: Double) -> Double? {
            Self.convert(section.percent ? raw / 100 : raw, from: section.unit, to: canonical)
        }
        // A value as recorded, or an aggregate of the app's resolution setting: average, minimum and maximum.
        guard let raw = record.numbers[section.field] ?? record.numbers["avg"], let quantity = value(raw) else {
            summary.reject(name, "a record without \(section.field)"); return
        }
        var metadata: [String: String] = [:]
        if let low = record.numbers["min"].flatMap(value), let high = record.numbers["max"].flatMap(value), low != high {
            metadata["HealthBridgeMinimum"] = String(low)
            metadata["HealthBridgeMaximum"] = String(high)
        }
        try emit(name, section.type, .quantity(quantity), unit: canonical, dates, record, metadata: metadata, item)
    }

    func mapPressure(_ record: Record, _ summary: inout HAEReadSummary, _ item: (HAEItem) throws -> Void) throws {
        let name = "blood_pressure"
        guard let dates = Self.dates(record, instant: true) else { summary.reject(name, "a record without a readable time"); return }
        guard let systolic = record.numbers["systolic"], let diastolic = record.numbers["diastolic"] else {
            summary.reject(name, "a blood pressure without systolic and diastolic"); return
        }
        try emit(name, "bloodPressure", .bloodPressure(systolic: systolic, diastolic: diastolic), unit: "mmHg", dates,
                 record, item)
    }

    func mapNutrition(_ record: Record, _ summary: inout HAEReadSummary, _ item: (HAEItem) throws -> Void) throws {
        let name = "nutrition"
        guard let dates = Self.dates(record, instant: false) else { summary.reject(name, "a record without a readable time"); return }
        guard dates.end >= dates.start.seconds else { summary.reject(name, "a record that ends before it starts"); return }
        var any = false
        for nutrient in Self.nutrients {
            guard let raw = record.numbers[nutrient.field], let canonical = Self.canonicalUnit(nutrient.type),
                  let value = Self.convert(raw, from: nutrient.unit, to: canonical) else { continue }
            any = true
            try emit(name, nutrient.type, .quantity(value), unit: canonical, dates, record, item)
        }
        if !any { summary.reject(name, "a meal without a nutrient HealthBridge knows") }
    }

    /// Health Connect's sleep stages (names as HC Webhook writes them, or the SDK's constants) as
    /// `HKCategoryValueSleepAnalysis`: light → core, sleeping → asleep, awake in bed → awake; out of bed and
    /// unknown have no HealthKit value (nil).
    static func sleepStage(_ stage: String) -> Int? {
        switch stage.lowercased() {
        case "awake", "1", "awake_in_bed", "7": 2
        case "sleeping", "2": 1
        case "light", "4": 3
        case "deep", "5": 4
        case "rem", "6": 5
        case "out_of_bed", "3", "unknown", "0": nil
        default: HAELocalizedNames.sleepStage(stage)
        }
    }

    func mapSleep(_ record: Record, _ summary: inout HAEReadSummary, _ item: (HAEItem) throws -> Void) throws {
        let name = "sleep"
        guard let endText = record.sessionEndTime ?? record.endTime, let end = HAEDate.parse(endText) else {
            summary.reject(name, "a sleep session without a readable session_end_time"); return
        }
        let start: HAEDate
        if let text = record.startTime, let parsed = HAEDate.parse(text) {
            start = parsed
        } else if let duration = record.numbers["duration_seconds"], duration >= 0, duration <= 86_400 {
            start = HAEDate(seconds: end.seconds - duration, offset: end.offset)
        } else {
            summary.reject(name, "a sleep session without a start or a duration of at most a day"); return
        }
        guard end.seconds >= start.seconds else { summary.reject(name, "a sleep session that ends before it starts"); return }
        guard var stages = record.stages else {
            try emit(name, "sleepAnalysis", .category(1), unit: "", (start, end.seconds), record, item)
            return
        }
        try stages.beginArray()
        var any = false
        while try stages.nextElement() {
            guard try stages.peek() == .object else {
                try stages.skipValue()
                summary.reject(name, "a sleep stage that is not an object"); continue
            }
            try stages.beginObject()
            var stage = "", startText: String?, endText: String?
            while let field = try stages.nextKey() {
                switch field {
                case "stage":
                    if try stages.peek() == .number {
                        stage = try stages.lenientNumber().map { String($0.clampedInt64()) } ?? ""
                    } else {
                        stage = try stages.optionalString() ?? ""
                    }
                case "start_time": startText = try stages.optionalString()
                case "end_time": endText = try stages.optionalString()
                default: try stages.skipValue()
                }
            }
            any = true
            guard let s = startText.flatMap({ HAEDate.parse($0) }), let e = endText.flatMap({ HAEDate.parse($0) }),
                  e.seconds >= s.seconds else {
                summary.reject(name, "a sleep stage without readable start_time and end_time"); continue
            }
            guard let category = Self.sleepStage(stage) else {
                let known = ["out_of_bed", "3", "unknown", "0"].contains(stage.lowercased())
                if !known { summary.reject(name, "an unknown sleep stage '\(stage.prefix(24))'") }
                continue
            }
            try emit(name, "sleepAnalysis", .category(category), unit: "", (s, e.seconds), record, item)
        }
        if !any { try emit(name, "sleepAnalysis", .category(1), unit: "", (start, end.seconds), record, item) }
    }

    // MARK: Exercise

    /// Health Connect's exercise type constants (`ExerciseSessionRecord.EXERCISE_TYPE_…`) as HealthKit activity types.
    static let exerciseTypes: [Int: String] = [
        0: "other", 2: "badminton", 4: "baseball", 5: "basketball", 8: "cycling", 9: "cycling", 10: "crossTraining",
        11: "boxing", 13: "functionalStrengthTraining", 14: "cricket", 16: "dance", 25: "elliptical",
        26: "mixedCardio", 27: "fencing", 28: "americanFootball", 29: "australianFootball", 31: "discSports",
        32: "golf", 34: "gymnastics", 35: "handball", 36: "highIntensityIntervalTraining", 37: "hiking",
        38: "hockey", 39: "skatingSports", 44: "martialArts", 46: "paddleSports", 48: "pilates", 50: "racquetball",
        51: "climbing", 52: "hockey", 53: "rowing", 54: "rowing", 55: "rugby", 56: "running", 57: "running",
        58: "sailing", 60: "skatingSports", 61: "downhillSkiing", 62: "snowboarding", 63: "snowSports",
        64: "soccer", 65: "softball", 66: "squash", 68: "stairClimbing", 69: "stairClimbing",
        70: "traditionalStrengthTraining", 71: "flexibility", 72: "surfingSports", 73: "swimming", 74: "swimming",
        75: "tableTennis", 76: "tennis", 78: "volleyball", 79: "walking", 80: "waterPolo",
        81: "traditionalStrengthTraining", 82: "wheelchairWalkPace", 83: "yoga",
    ]

    /// An exercise type as a HealthKit activity type: a Health Connect constant, a name (`running`,
    /// `EXERCISE_TYPE_BIKING`, `strength_training`) or a title in any covered language; `other` when none fits.
    static func activityType(_ type: String?, title: String?) -> String {
        if let type, let number = Int(type) {
            return exerciseTypes[number].flatMap { WorkoutActivityType.named($0)?.name } ?? "other"
        }
        var name = (type ?? title ?? "").lowercased()
        if name.hasPrefix("exercise_type_") { name.removeFirst("exercise_type_".count) }
        let aliases = ["biking": "cycling", "biking_stationary": "cycling", "running_treadmill": "running",
                       "swimming_pool": "swimming", "swimming_open_water": "swimming", "strength_training": "traditionalStrengthTraining",
                       "weightlifting": "traditionalStrengthTraining", "rowing_machine": "rowing", "stretching": "flexibility",
                       "high_intensity_interval_training": "highIntensityIntervalTraining", "other_workout": "other"]
        if let alias = aliases[name] { return alias }
        let camel = name.split(separator: "_").enumerated()
            .map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
        if let known = WorkoutActivityType.named(camel)?.name { return known }
        if let title, let localized = HAELocalizedNames.workout(title) { return localized }
        return "other"
    }

    static func mapExercise(_ record: Record, _ summary: inout HAEReadSummary) -> HAEWorkout? {
        guard let startText = record.startTime, let start = HAEDate.parse(startText) else {
            summary.reject("workouts", "an exercise without a readable start_time"); return nil
        }
        let end = record.endTime.flatMap { HAEDate.parse($0)?.seconds }
            ?? record.numbers["duration_seconds"].map { start.seconds + $0 } ?? start.seconds
        guard end >= start.seconds else { summary.reject("workouts", "an exercise that ends before it starts"); return nil }
        let title = (record.title ?? "").trimmingSpacesAndNewlines
        var metadata = ["HealthBridgeDataOrigin": source(record)]
        if !title.isEmpty { metadata["HealthBridgeTitle"] = String(title.prefix(200)) }
        return HAEWorkout(id: nil, name: String(title.prefix(200)), activityType: activityType(record.type, title: record.title),
                          start: start, end: end, duration: record.numbers["duration_seconds"] ?? (end - start.seconds),
                          activeEnergy: nil, distance: record.numbers["distance_meters"], heartRate: nil,
                          route: RoutePointColumns(), metadata: metadata)
    }
}
