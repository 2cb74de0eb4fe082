import Foundation
import HealthModel
import HealthStore

/// Reads a Health Auto Export payload (`{"data": {"metrics": [...], "workouts": [...]}}`, as the app POSTs it and
/// writes it to files) and hands each mapped item and workout to the caller, one metric at a time, without a
/// document tree: memory holds the body and one metric's points.
///
/// Shapes read: `{date, qty, source}` (any quantity metric), heart rate `{date, Min, Avg, Max}`, blood pressure
/// `{date, systolic, diastolic}`, blood glucose with `mealTime`, sleep aggregated per night (`totalSleep`, `asleep`,
/// `core`, `deep`, `rem`, `awake`, `inBed` with `sleepStart`/`sleepEnd`/`inBedStart`/`inBedEnd`) or per stage
/// (`startDate`, `endDate`, `value`), and workouts of version 1 (route `lat`/`lon`) and version 2 (`id`,
/// `heartRateData` Min/Avg/Max, route `latitude`/`longitude`/`timestamp`). Unknown metrics and sections are counted
/// in the summary and skipped; an item that cannot be mapped is counted as rejected; malformed JSON throws
/// `HEALTH_INVALID_ARGUMENT`.
///
/// ```swift
/// let reader = HAEPayloadReader(aggregation: HAEBucket(header: "hours"))
/// let summary = try reader.read(body, item: { batch.append($0) }, workout: { workouts.append($0) })
/// ```
public struct HAEPayloadReader: Sendable {
    /// The grouping named by the request (`automation-aggregation`); nil: recognised from each metric's dates.
    public var aggregation: HAEBucket?

    public init(aggregation: HAEBucket? = nil) { self.aggregation = aggregation }

    /// Whether `prefix` (the first bytes of a file) looks like an HAE payload: a JSON object with a `data` member
    /// holding `metrics` or `workouts`.
    ///
    /// ```swift
    /// HAEPayloadReader.recognises(Array(#"{"data":{"metrics":[]}}"#.utf8))   // true
    /// ```
    public static func recognises(_ prefix: [UInt8]) -> Bool {
        guard let first = prefix.first(where: { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }),
              first == UInt8(ascii: "{") else { return false }
        let text = String(decoding: prefix.prefix(4096), as: UTF8.self)
        return text.contains("\"data\"") && (text.contains("\"metrics\"") || text.contains("\"workouts\""))
    }

    public func read(_ bytes: [UInt8], item: (HAEItem) throws -> Void,
                     workout: (HAEWorkout) throws -> Void) throws -> HAEReadSummary {
        var reader = JSONPullReader(bytes)
        var summary = HAEReadSummary()
        guard try reader.peek() == .object else {
            throw HealthError(.invalidArgument, "not a Health Auto Export payload: the body must be a JSON object with \"data\"")
        }
        try reader.beginObject()
        var sawData = false
        while let key = try reader.nextKey() {
            if key == "data", try reader.peek() == .object {
                sawData = true
                try reader.beginObject()
                while let section = try reader.nextKey() {
                    try readSection(section, &reader, &summary, item, workout)
                }
            } else if key == "metrics" || key == "workouts" {
                sawData = true
                try readSection(key, &reader, &summary, item, workout)
            } else {
                try reader.skipValue()
            }
        }
        try reader.finish()
        guard sawData else {
            throw HealthError(.invalidArgument, "not a Health Auto Export payload: no \"data\" object with metrics or workouts")
        }
        return summary
    }

    func readSection(_ section: String, _ reader: inout JSONPullReader, _ summary: inout HAEReadSummary,
                     _ item: (HAEItem) throws -> Void, _ workout: (HAEWorkout) throws -> Void) throws {
        guard try reader.peek() == .array else {
            try reader.skipValue()
            return
        }
        try reader.beginArray()
        switch section {
        case "metrics":
            while try reader.nextElement() { try readMetric(&reader, &summary, item) }
        case "workouts":
            while try reader.nextElement() {
                summary.items["workouts", default: 0] += 1
                if let mapped = try readWorkout(&reader, &summary) { try workout(mapped) }
            }
        default:
            // stateOfMind, medications, symptoms, ecg…: kept aside, counted.
            var count = 0
            while try reader.nextElement() { try reader.skipValue(); count += 1 }
            if count > 0 { summary.unknown[section, default: 0] += count }
        }
    }

    // MARK: Metrics

    /// One data point with every field any metric shape uses; absent fields are nil.
    struct Point {
        var date: String?
        var startDate: String?
        var endDate: String?
        var qty: Double?
        var min: Double?
        var avg: Double?
        var max: Double?
        var systolic: Double?
        var diastolic: Double?
        var value: String?
        var source: String?
        var mealTime: String?
        var sleep: [String: Double] = [:]
        var sleepDates: [String: String] = [:]
    }

    func readMetric(_ reader: inout JSONPullReader, _ summary: inout HAEReadSummary,
                    _ item: (HAEItem) throws -> Void) throws {
        guard try reader.peek() == .object else { try reader.skipValue(); return }
        try reader.beginObject()
        var name: String?
        var units = ""
        var points: [Point] = []
        var deferred: JSONPullReader?
        while let key = try reader.nextKey() {
            switch key {
            case "name": name = try reader.optionalString()
            case "units": units = try reader.optionalString() ?? ""
            case "data":
                guard try reader.peek() == .array else { try reader.skipValue(); continue }
                if name == nil {
                    deferred = reader   // the name comes later: read the points once the object is done
                    try reader.skipValue()
                } else {
                    points = try readPoints(&reader)
                }
            default: try reader.skipValue()
            }
        }
        if var later = deferred { points = try readPoints(&later) }
        guard let name = name?.trimmingSpacesAndNewlines, !name.isEmpty else {
            if !points.isEmpty { summary.unknown["(metric without a name)", default: 0] += points.count }
            return
        }
        summary.items[name, default: 0] += points.count
        try map(name: name, units: units, points: points, &summary, item)
    }

    func readPoints(_ reader: inout JSONPullReader) throws -> [Point] {
        var points: [Point] = []
        try reader.beginArray()
        while try reader.nextElement() {
            guard try reader.peek() == .object else { try reader.skipValue(); points.append(Point()); continue }
            try reader.beginObject()
            var point = Point()
            while let key = try reader.nextKey() {
                switch key {
                case "date": point.date = try reader.optionalString()
                case "startDate", "start": point.startDate = try reader.optionalString()
                case "endDate", "end": point.endDate = try reader.optionalString()
                case "qty": point.qty = try reader.lenientNumber()
                case "Min", "min": point.min = try reader.lenientNumber()
                case "Avg", "avg": point.avg = try reader.lenientNumber()
                case "Max", "max": point.max = try reader.lenientNumber()
                case "systolic": point.systolic = try reader.lenientNumber()
                case "diastolic": point.diastolic = try reader.lenientNumber()
                case "value": point.value = try reader.optionalString()
                case "source", "sleepSource": point.source = try reader.optionalString()
                case "mealTime": point.mealTime = try reader.optionalString()
                case "totalSleep", "asleep", "core", "deep", "rem", "awake", "inBed":
                    point.sleep[key] = try reader.lenientNumber()
                case "sleepStart", "sleepEnd", "inBedStart", "inBedEnd":
                    point.sleepDates[key] = try reader.optionalString()
                default: try reader.skipValue()
                }
            }
            points.append(point)
        }
        return points
    }

    func map(name: String, units: String, points: [Point], _ summary: inout HAEReadSummary,
             _ item: (HAEItem) throws -> Void) throws {
        if name == HAEMetricCatalog.sleep {
            try mapSleep(points, units: units, &summary, item)
            return
        }
        let isPressure = name == HAEMetricCatalog.bloodPressure
        guard let type = isPressure ? "bloodPressureSystolic" : HAEMetricCatalog.type(for: name),
              let sampleType = try? SampleTypeRegistry.resolve(type), let canonical = sampleType.canonicalUnit else {
            summary.unknown[name, default: 0] += points.count
            return
        }
        // The payload's unit, converted by the unit system; "%" values are sent as 0–100.
        let given = HAEMetricCatalog.unit(units)
        let converter: HealthModel.UnitConverter?
        do throws(HealthError) {
            converter = given.isEmpty ? nil : try HealthUnit.parse(given).converter(to: HealthUnit.parse(canonical))
        } catch {
            for _ in points { summary.reject(name, "unit '\(units)' is not a unit of \(type) (\(canonical))") }
            return
        }
        let percent = given == "%" && canonical == "%"
        func convert(_ value: Double) -> Double {
            let number = percent && value > 1 ? value / 100 : value
            return converter?.convert(number) ?? number
        }
        // Buckets or samples: the request's grouping, else the spacing of the dates.
        let dates = points.map { point in point.startDate == nil ? point.date.flatMap { HAEDate.parse($0) } : nil }
        let bucket = aggregation ?? HAEBucket.infer(dates.compactMap { $0 })
        for (index, point) in points.enumerated() {
            let start: HAEDate
            var end: Double
            var aggregated = false
            if let text = point.startDate {
                guard let s = HAEDate.parse(text) else { summary.reject(name, "unreadable date '\(text.prefix(40))'"); continue }
                start = s
                end = point.endDate.flatMap { HAEDate.parse($0)?.seconds } ?? s.seconds
            } else if let s = dates[index] {
                start = s
                if let bucket, !isPressure {
                    end = bucket.end(of: s)
                    aggregated = true
                } else {
                    end = s.seconds
                }
            } else {
                summary.reject(name, point.date == nil ? "an item without a date" : "unreadable date '\((point.date ?? "").prefix(40))'")
                continue
            }
            guard end >= start.seconds else { summary.reject(name, "an item that ends before it starts"); continue }
            let source = point.source?.trimmingSpacesAndNewlines ?? ""
            var metadata: [String: String] = [:]
            let value: HAEItem.Value
            if isPressure {
                guard let systolic = point.systolic, let diastolic = point.diastolic else {
                    summary.reject(name, "a blood pressure without systolic and diastolic"); continue
                }
                value = .bloodPressure(systolic: convert(systolic), diastolic: convert(diastolic))
            } else if let qty = point.qty ?? point.avg {
                value = .quantity(convert(qty))
                if let min = point.min, let max = point.max, min != max {
                    metadata["HealthBridgeMinimum"] = String(convert(min))
                    metadata["HealthBridgeMaximum"] = String(convert(max))
                }
                if let meal = point.mealTime?.lowercased() {
                    if meal.contains("before") { metadata["HKBloodGlucoseMealTime"] = "1" }
                    if meal.contains("after") { metadata["HKBloodGlucoseMealTime"] = "2" }
                }
            } else {
                summary.reject(name, "an item without qty"); continue
            }
            if case .quantity(let v) = value, !v.isFinite || (sampleType.isCumulative && v < 0) {
                summary.reject(name, "a value outside what \(type) can be"); continue
            }
            // An item whose source joins several devices is a merged total, whatever its dates say.
            if source.contains("|") && end > start.seconds { aggregated = true }
            try item(HAEItem(metric: name, type: isPressure ? "bloodPressure" : type, value: value,
                             unit: canonical, start: start.seconds, end: end, utcOffset: start.offset,
                             source: source, aggregated: aggregated, metadata: metadata))
        }
    }

    // MARK: Sleep

    static let stages: [(key: String, category: Int)] = [
        ("core", 3), ("deep", 4), ("rem", 5), ("asleep", 1), ("awake", 2),
    ]

    /// Per-stage values as HAE writes them, to `HKCategoryValueSleepAnalysis`.
    static func stage(_ name: String) -> Int? {
        switch name.lowercased().replacingOccurrences(of: " ", with: "") {
        case "inbed": 0
        case "asleep", "unspecified", "asleepunspecified": 1
        case "awake": 2
        case "core", "asleepcore": 3
        case "deep", "asleepdeep": 4
        case "rem", "asleeprem": 5
        default: nil
        }
    }

    func mapSleep(_ points: [Point], units: String, _ summary: inout HAEReadSummary,
                  _ item: (HAEItem) throws -> Void) throws {
        let name = HAEMetricCatalog.sleep
        // Night totals are in the metric's unit (hours by default).
        let toSeconds = (try? HealthUnit.parse(HAEMetricCatalog.unit(units.isEmpty ? "hr" : units)).converter(to: HealthUnit.parse("s")))
        func seconds(_ value: Double) -> Double { toSeconds?.convert(value) ?? value * 3600 }
        func emit(_ category: Int, _ start: HAEDate, _ end: Double, _ source: String, night: Double?) throws {
            try item(HAEItem(metric: name, type: "sleepAnalysis", value: .category(category), unit: "",
                             start: start.seconds, end: end, utcOffset: start.offset, source: source,
                             aggregated: night != nil, metadata: [:], night: night))
        }
        for point in points {
            let source = point.source?.trimmingSpacesAndNewlines ?? ""
            if let startText = point.startDate {
                // One stage interval.
                guard let start = HAEDate.parse(startText), let end = point.endDate.flatMap({ HAEDate.parse($0) }),
                      end.seconds >= start.seconds else {
                    summary.reject(name, "a sleep stage without readable startDate and endDate"); continue
                }
                guard let category = point.value.flatMap(Self.stage) else {
                    summary.reject(name, "an unknown sleep stage '\((point.value ?? "").prefix(24))'"); continue
                }
                try emit(category, start, end.seconds, source, night: nil)
                continue
            }
            // One night's totals: in bed as one interval, the stages laid end to end from sleepStart (the totals
            // per stage are exact; their order within the night is not sent).
            var emitted = false
            if let inBed = point.sleep["inBed"], inBed > 0,
               let start = point.sleepDates["inBedStart"].flatMap({ HAEDate.parse($0) }),
               let end = point.sleepDates["inBedEnd"].flatMap({ HAEDate.parse($0) }), end.seconds > start.seconds {
                try emit(0, start, end.seconds, source, night: start.seconds)
                emitted = true
            }
            if let sleepStart = point.sleepDates["sleepStart"].flatMap({ HAEDate.parse($0) }) {
                let sleepEnd = point.sleepDates["sleepEnd"].flatMap { HAEDate.parse($0)?.seconds } ?? .infinity
                var cursor = sleepStart.seconds
                var stages = Self.stages.compactMap { stage in point.sleep[stage.key].map { (stage.category, $0) } }
                if !stages.contains(where: { $0.0 != 1 && $0.0 != 2 }), let total = point.sleep["totalSleep"],
                   point.sleep["asleep"] == nil {
                    stages.append((1, total))   // only a total: asleep, stage not known
                }
                for (category, hours) in stages where hours > 0 && cursor < sleepEnd {
                    let end = min(cursor + seconds(hours), sleepEnd)
                    try emit(category, HAEDate(seconds: cursor, offset: sleepStart.offset), end, source,
                             night: sleepStart.seconds)
                    cursor = end
                    emitted = true
                }
            }
            if !emitted { summary.reject(name, "a night without sleepStart or inBedStart") }
        }
    }
}
