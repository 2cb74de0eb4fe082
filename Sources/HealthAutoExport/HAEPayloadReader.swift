import Foundation
import HealthModel

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

    /// Reads a payload (at most ``IngestBatch/maxBytes``) into a batch for the service's ingest: every item mapped
    /// to its HealthKit type and unit and keyed with its sync identifier — type and bucket for aggregated totals
    /// (attributed to the writer's totals), type, source and dates for single samples, the id (or type and dates)
    /// for workouts. Malformed JSON is `HEALTH_INVALID_ARGUMENT`, a larger body `HEALTH_PAYLOAD_TOO_LARGE`.
    ///
    /// ```swift
    /// let batch = try HAEPayloadReader(aggregation: HAEBucket(header: "hours")).batch(body)
    /// let report = try await service.ingest(batch, info: IngestBatchInfo(aggregation: "hours"))
    /// ```
    public func batch(_ body: consuming [UInt8]) throws -> IngestBatch {
        guard body.count <= IngestBatch.maxBytes else {
            throw HealthError(.payloadTooLarge, "a Health Auto Export payload is at most \(IngestBatch.maxBytes / 1_048_576) MB")
        }
        var builder = IngestBatchBuilder(format: .healthAutoExport, reserving: body.count)
        let summary = try read(body, item: { builder.append($0) }, workout: { builder.append($0) })
        // The body is not needed any more: a caller that handed it over (`consume`) gets its memory back now.
        _ = consume body
        return builder.finish(summary)
    }

    /// Reads a payload and hands each mapped item and workout to the caller, as they are read.
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
        /// `date`, parsed where it is read (no string is built for it).
        var date: HAEDate?
        /// `date` as sent when it could not be parsed (for the reason); nil when absent or parsed.
        var unreadableDate: String?
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

    /// Reads one metric and hands on each point as soon as it is read: nothing per point is kept but, when the
    /// payload does not name its grouping, the point's date (16 bytes) for a first pass that recognises it. A body
    /// of junk elements costs no memory (issue 21: every element used to become a 200-byte point first).
    func readMetric(_ reader: inout JSONPullReader, _ summary: inout HAEReadSummary,
                    _ item: (HAEItem) throws -> Void) throws {
        guard try reader.peek() == .object else { try reader.skipValue(); return }
        try reader.beginObject()
        var name: String?
        var units = ""
        var sawName = false, sawUnits = false
        var data: JSONPullReader?
        while let key = try reader.nextKey() {
            switch key {
            case "name": name = try reader.optionalString(); sawName = true
            case "units": units = try reader.optionalString() ?? ""; sawUnits = true
            case "data":
                guard try reader.peek() == .array else { try reader.skipValue(); continue }
                if sawName && sawUnits {
                    // The app's order (name, units, data): read where it stands, in one pass.
                    try readData(&reader, name: name, units: units, &summary, item)
                } else {
                    data = reader   // read once the name and units are known (they may come after the data)
                    try reader.skipValue()
                }
            default: try reader.skipValue()
            }
        }
        guard var data else { return }
        try readData(&data, name: name, units: units, &summary, item)
    }

    /// Reads a metric's `data` array, which `data` stands before, to its end: each point mapped and handed on, or
    /// the points counted as unknown when the metric has no name or one HealthBridge does not know.
    func readData(_ data: inout JSONPullReader, name: String?, units: String, _ summary: inout HAEReadSummary,
                  _ item: (HAEItem) throws -> Void) throws {
        guard let name = name?.trimmingSpacesAndNewlines, !name.isEmpty else {
            let count = try Self.skipElements(&data)
            if count > 0 { summary.unknown["(metric without a name)", default: 0] += count }
            return
        }
        guard let mapping = try MetricMapping(name: name, units: units, data: data, aggregation: aggregation) else {
            summary.unknown[name, default: 0] += try Self.skipElements(&data)
            return
        }
        try data.beginArray()
        // Counted once per metric, not hashed per point.
        var count = 0
        defer { if count > 0 { summary.items[name, default: 0] += count } }
        var sources = JSONPullReader.StringCache()
        while try data.nextElement() {
            count += 1
            let point = try Self.readPoint(&data, sources: &sources)
            if let unit = mapping.badUnit {
                summary.reject(name, "unit '\(unit)' is not a unit of \(mapping.type) (\(mapping.canonical))")
                continue
            }
            if mapping.isSleep {
                try mapSleep(point, units: units, &summary, item)
            } else {
                try map(point, mapping, &summary, item)
            }
        }
    }

    /// Skips the array `reader` stands before, checking that its elements are well-formed; answers their number.
    static func skipElements(_ reader: inout JSONPullReader) throws -> Int {
        var count = 0
        try reader.beginArray()
        while try reader.nextElement() { try reader.skipValue(); count += 1 }
        return count
    }


    /// What is fixed for every point of one metric: its HealthKit type, the unit conversion and the grouping.
    struct MetricMapping {
        /// The metric's name in the payload (`step_count`).
        var name: String
        var type: String
        var canonical: String
        var sampleType: SampleType?
        var isPressure = false
        var isSleep = false
        var converter: HealthModel.UnitConverter?
        var percent = false
        /// The payload's unit when it is not a unit of the type: every point is rejected.
        var badUnit: String?
        var bucket: HAEBucket?

        /// nil for a metric HealthBridge does not know.
        init?(name: String, units: String, data: JSONPullReader, aggregation: HAEBucket?) throws {
            self.name = name
            if name == HAEMetricCatalog.sleep {
                type = "sleepAnalysis"; canonical = ""; isSleep = true
                return
            }
            isPressure = name == HAEMetricCatalog.bloodPressure
            guard let type = isPressure ? "bloodPressureSystolic" : HAEMetricCatalog.type(for: name),
                  let sampleType = try? SampleTypeRegistry.resolve(type), let canonical = sampleType.canonicalUnit else {
                return nil
            }
            self.type = type; self.sampleType = sampleType; self.canonical = canonical
            // The payload's unit, converted by the unit system; "%" values are sent as 0–100.
            let given = HAEMetricCatalog.unit(units)
            do throws(HealthError) {
                converter = given.isEmpty ? nil : try HealthUnit.parse(given).converter(to: HealthUnit.parse(canonical))
            } catch {
                badUnit = units
                return
            }
            percent = given == "%" && canonical == "%"
            // Buckets or samples: the request's grouping, else the spacing of the dates (a first pass that keeps
            // only the dates).
            bucket = try aggregation ?? HAEBucket.infer(Self.bucketDates(data))
        }

        func convert(_ value: Double) -> Double {
            let number = percent && value > 1 ? value / 100 : value
            return converter?.convert(number) ?? number
        }

        /// The `date` of every point that has no `startDate`: what a grouping is recognised from.
        static func bucketDates(_ data: JSONPullReader) throws -> [HAEDate] {
            var reader = data
            var dates: [HAEDate] = []
            try reader.beginArray()
            while try reader.nextElement() {
                guard try reader.peek() == .object else { try reader.skipValue(); continue }
                try reader.beginObject()
                var date: HAEDate?
                var sample = false
                while let key = try reader.nextKey() {
                    switch key {
                    case "date": date = try reader.withOptionalStringBytes { HAEDate.parse($0) } ?? nil
                    case "startDate", "start": sample = true; try reader.skipValue()
                    default: try reader.skipValue()
                    }
                }
                if !sample, let date { dates.append(date) }
            }
            return dates
        }
    }

    /// One point of a metric's `data`; an element that is not an object is an empty point (rejected: no date).
    /// The keys of a point, matched as bytes (no `String` per key).
    enum PointKey: String, CaseIterable {
        case date, startDate, start, endDate, end, qty, Min, min, Avg, avg, Max, max, systolic, diastolic, value, source,
             sleepSource, mealTime, totalSleep, asleep, core, deep, rem, awake, inBed, sleepStart, sleepEnd, inBedStart,
             inBedEnd

        static let cases = allCases
        static let set = JSONPullReader.KeySet(cases.map(\.rawValue))
    }

    static func readPoint(_ reader: inout JSONPullReader, sources: inout JSONPullReader.StringCache) throws -> Point {
        var point = Point()
        guard try reader.peek() == .object else { try reader.skipValue(); return point }
        try reader.beginObject()
        while let index = try reader.nextKey(among: PointKey.set) {
            guard index >= 0 else { try reader.skipValue(); continue }
            let key = PointKey.cases[index]
            switch key {
            case .date:
                let parsed = try reader.withOptionalStringBytes { raw -> (HAEDate?, String?) in
                    if let date = HAEDate.parse(raw) { return (date, nil) }
                    return (nil, String(decoding: raw, as: UTF8.self))
                }
                point.date = parsed?.0
                point.unreadableDate = parsed?.1
            case .startDate, .start: point.startDate = try reader.optionalString()
            case .endDate, .end: point.endDate = try reader.optionalString()
            case .qty: point.qty = try reader.lenientNumber()
            case .Min, .min: point.min = try reader.lenientNumber()
            case .Avg, .avg: point.avg = try reader.lenientNumber()
            case .Max, .max: point.max = try reader.lenientNumber()
            case .systolic: point.systolic = try reader.lenientNumber()
            case .diastolic: point.diastolic = try reader.lenientNumber()
            case .value: point.value = try reader.optionalString()
            case .source, .sleepSource: point.source = try reader.optionalString(cache: &sources)
            case .mealTime: point.mealTime = try reader.optionalString()
            case .totalSleep, .asleep, .core, .deep, .rem, .awake, .inBed:
                point.sleep[key.rawValue] = try reader.lenientNumber()
            case .sleepStart, .sleepEnd, .inBedStart, .inBedEnd:
                point.sleepDates[key.rawValue] = try reader.optionalString()
            }
        }
        return point
    }

    /// Maps one point of a quantity metric (or blood pressure) to an item, or counts it as rejected.
    func map(_ point: Point, _ mapping: MetricMapping, _ summary: inout HAEReadSummary,
             _ item: (HAEItem) throws -> Void) throws {
        let name = mapping.name
        let start: HAEDate
        var end: Double
        var aggregated = false
        if let text = point.startDate {
            guard let s = HAEDate.parse(text) else { summary.reject(name, "unreadable date '\(text.prefix(40))'"); return }
            start = s
            end = point.endDate.flatMap { HAEDate.parse($0)?.seconds } ?? s.seconds
        } else if let s = point.date {
            start = s
            if let bucket = mapping.bucket, !mapping.isPressure {
                end = bucket.end(of: s)
                aggregated = true
            } else {
                end = s.seconds
            }
        } else {
            summary.reject(name, point.unreadableDate.map { "unreadable date '\($0.prefix(40))'" } ?? "an item without a date")
            return
        }
        guard end >= start.seconds else { summary.reject(name, "an item that ends before it starts"); return }
        let source = point.source?.trimmingSpacesAndNewlines ?? ""
        var metadata: [String: String] = [:]
        let value: HAEItem.Value
        if mapping.isPressure {
            guard let systolic = point.systolic, let diastolic = point.diastolic else {
                summary.reject(name, "a blood pressure without systolic and diastolic"); return
            }
            value = .bloodPressure(systolic: mapping.convert(systolic), diastolic: mapping.convert(diastolic))
        } else if let qty = point.qty ?? point.avg {
            value = .quantity(mapping.convert(qty))
            if let min = point.min, let max = point.max, min != max {
                metadata["HealthBridgeMinimum"] = String(mapping.convert(min))
                metadata["HealthBridgeMaximum"] = String(mapping.convert(max))
            }
            if let meal = point.mealTime?.lowercased() {
                if meal.contains("before") { metadata["HKBloodGlucoseMealTime"] = "1" }
                if meal.contains("after") { metadata["HKBloodGlucoseMealTime"] = "2" }
            }
        } else {
            summary.reject(name, "an item without qty"); return
        }
        // An item whose source joins several devices is a merged total, whatever its dates say.
        if end > start.seconds && source.utf8.contains(UInt8(ascii: "|")) { aggregated = true }
        try item(HAEItem(metric: name, type: mapping.isPressure ? "bloodPressure" : mapping.type, value: value,
                         unit: mapping.canonical, start: start.seconds, end: end, utcOffset: start.offset,
                         source: source, aggregated: aggregated, metadata: metadata))
    }

    // MARK: Sleep

    static let stages: [(key: String, category: Int)] = [
        ("core", 3), ("deep", 4), ("rem", 5), ("asleep", 1), ("awake", 2),
    ]

    /// A night's totals, and each of its stages, last at most this long (seconds).
    static let longestNight: Double = 86_400

    /// Per-stage values as HAE writes them, in English or in the phone's language (`Profond`, `Tief`, `Cœur`…),
    /// to `HKCategoryValueSleepAnalysis`.
    static func stage(_ name: String) -> Int? {
        HAELocalizedNames.sleepStage(name)
    }

    /// Maps one point of the sleep metric: a stage interval, or a night's totals laid out as stages.
    func mapSleep(_ point: Point, units: String, _ summary: inout HAEReadSummary,
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
        do {
            let source = point.source?.trimmingSpacesAndNewlines ?? ""
            if let startText = point.startDate {
                // One stage interval.
                guard let start = HAEDate.parse(startText), let end = point.endDate.flatMap({ HAEDate.parse($0) }),
                      end.seconds >= start.seconds else {
                    summary.reject(name, "a sleep stage without readable startDate and endDate"); return
                }
                guard let category = point.value.flatMap(Self.stage) else {
                    summary.reject(name, "an unknown sleep stage '\((point.value ?? "").prefix(24))'"); return
                }
                try emit(category, start, end.seconds, source, night: nil)
                return
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
                // Without sleepEnd the stages are laid out over at most a day: a night is never longer.
                let sleepEnd = point.sleepDates["sleepEnd"].flatMap { HAEDate.parse($0)?.seconds }
                    ?? sleepStart.seconds + Self.longestNight
                var cursor = sleepStart.seconds
                var stages = Self.stages.compactMap { stage in point.sleep[stage.key].map { (stage.category, $0) } }
                if let total = point.sleep["totalSleep"] { stages.append((-1, total)) }
                guard stages.allSatisfy({ seconds($0.1) <= Self.longestNight }) else {
                    summary.reject(name, "a night with a stage longer than a day"); return
                }
                stages.removeAll { $0.0 == -1 }
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
