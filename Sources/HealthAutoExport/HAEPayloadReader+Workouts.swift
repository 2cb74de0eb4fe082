import Foundation
import HealthModel

// Workouts of both versions of HAE's format. Version 1: name, start, end, measures as {qty, units} (activeEnergy,
// distance…), heartRateData [{date, qty}], route [{lat, lon, altitude, timestamp}]. Version 2: id, duration,
// activeEnergyBurned, distance, heartRateData [{date, Min, Avg, Max}], route [{latitude, longitude, altitude,
// timestamp, speed, course, horizontalAccuracy, verticalAccuracy}].

extension HAEPayloadReader {
    func readWorkout(_ reader: inout JSONPullReader, _ summary: inout HAEReadSummary) throws -> HAEWorkout? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            summary.reject("workouts", "a workout that is not an object")
            return nil
        }
        try reader.beginObject()
        var id: String?, name: String?, startText: String?, endText: String?, duration: Double?
        var energy: Double?, energySeries: Double?, distance: Double?
        var heart: (min: Double, sum: Double, count: Int, max: Double) = (.infinity, 0, 0, -.infinity)
        var heartSummary: (min: Double?, avg: Double?, max: Double?)
        var route = RoutePointColumns()
        var metadata: [String: String] = [:]
        while let key = try reader.nextKey() {
            switch key {
            case "id": id = try reader.optionalString()
            case "name": name = try reader.optionalString()
            case "start": startText = try reader.optionalString()
            case "end": endText = try reader.optionalString()
            case "duration": duration = try reader.lenientNumber()
            case "location": metadata["HealthBridgeLocation"] = try reader.optionalString()
            case "isIndoor":
                if try reader.peek() == .bool { metadata["HKIndoorWorkout"] = try reader.bool() ? "1" : "0" } else { try reader.skipValue() }
            case "activeEnergyBurned":
                // The workout's total (version 1 and 2).
                energy = try measure(&reader, to: "kcal")
            case "activeEnergy":
                // Version 2: the per-minute series [{date, qty, units}], summed when no total is sent; version 1
                // files may send a total {qty, units} under this name.
                if try reader.peek() == .array {
                    energySeries = try sumSeries(&reader, to: "kcal")
                } else {
                    energySeries = try measure(&reader, to: "kcal")
                }
            case "distance":
                distance = try measure(&reader, to: "m")
            case "elevationUp":
                if let up = try measure(&reader, to: "m") { metadata["HKElevationAscended"] = "\(up) m" }
            case "heartRate":
                // Version 2's summary: {min: {qty}, avg: {qty}, max: {qty}}.
                guard try reader.peek() == .object else { try reader.skipValue(); continue }
                try reader.beginObject()
                while let part = try reader.nextKey() {
                    let value = try measure(&reader, to: "count/min")
                    switch part {
                    case "min": heartSummary.min = value
                    case "avg": heartSummary.avg = value
                    case "max": heartSummary.max = value
                    default: break
                    }
                }
            case "heartRateData":
                guard try reader.peek() == .array else { try reader.skipValue(); continue }
                try reader.beginArray()
                while try reader.nextElement() {
                    guard try reader.peek() == .object else { try reader.skipValue(); continue }
                    try reader.beginObject()
                    var low: Double?, mid: Double?, high: Double?
                    while let field = try reader.nextKey() {
                        switch field {
                        case "qty", "Avg", "avg": mid = try reader.lenientNumber()
                        case "Min", "min": low = try reader.lenientNumber()
                        case "Max", "max": high = try reader.lenientNumber()
                        default: try reader.skipValue()
                        }
                    }
                    guard let mid else { continue }
                    heart.min = Swift.min(heart.min, low ?? mid)
                    heart.max = Swift.max(heart.max, high ?? mid)
                    heart.sum += mid
                    heart.count += 1
                }
            case "route":
                guard try reader.peek() == .array else { try reader.skipValue(); continue }
                try readRoute(&reader, into: &route)
            default:
                try reader.skipValue()
            }
        }
        guard let startText, let start = HAEDate.parse(startText) else {
            summary.reject("workouts", "a workout without a readable start")
            return nil
        }
        let end = endText.flatMap { HAEDate.parse($0)?.seconds } ?? duration.map { start.seconds + $0 } ?? start.seconds
        guard end >= start.seconds else {
            summary.reject("workouts", "a workout that ends before it starts")
            return nil
        }
        // Points sent without a time are spread evenly over the workout, in their order.
        if route.time.contains(where: \.isNaN) {
            let span = end - start.seconds, last = Double(max(1, route.count - 1))
            for i in route.time.indices where route.time[i].isNaN { route.time[i] = start.seconds + span * Double(i) / last }
        }
        let title = name?.trimmingSpacesAndNewlines ?? ""
        if energy == nil { energy = energySeries }
        var rate: (Double, Double, Double)?
        if let avg = heartSummary.avg {
            rate = (heartSummary.min ?? avg, avg, heartSummary.max ?? avg)
        } else if heart.count > 0 {
            rate = (heart.min, heart.sum / Double(heart.count), heart.max)
        }
        if let id { metadata["HealthBridgeHAEWorkoutID"] = id }
        return HAEWorkout(id: id, name: title, activityType: Self.activityType(title), start: start, end: end,
                          duration: duration ?? (end - start.seconds), activeEnergy: energy, distance: distance,
                          heartRate: rate.map { (minimum: $0.0, average: $0.1, maximum: $0.2) }, route: route,
                          metadata: metadata)
    }

    /// The sum of a series `[{date, qty, units}]` in `unit` (points that cannot be read or converted are left
    /// out); nil when no point could be.
    ///
    /// ```swift
    /// // [{"date": "…", "qty": 4.2, "units": "kcal"}, {"date": "…", "qty": 5.1, "units": "kcal"}]
    /// try sumSeries(&reader, to: "kcal")   // 9.3
    /// ```
    func sumSeries(_ reader: inout JSONPullReader, to unit: String) throws -> Double? {
        try reader.beginArray()
        var total: Double?
        while try reader.nextElement() {
            guard let value = try measure(&reader, to: unit), value.isFinite else { continue }
            total = (total ?? 0) + value
        }
        return total
    }

    /// `{qty, units}` in `unit`; nil when absent or not convertible.
    func measure(_ reader: inout JSONPullReader, to unit: String) throws -> Double? {
        guard try reader.peek() == .object else { return try reader.lenientNumber() }
        try reader.beginObject()
        var qty: Double?, units: String?
        while let key = try reader.nextKey() {
            switch key {
            case "qty": qty = try reader.lenientNumber()
            case "units": units = try reader.optionalString()
            default: try reader.skipValue()
            }
        }
        guard let qty else { return nil }
        guard let units = units.map(HAEMetricCatalog.unit), !units.isEmpty else { return qty }
        return try? HealthUnit.parse(units).convert(qty, to: HealthUnit.parse(unit))
    }

    /// The keys of a route point (both versions), matched as bytes.
    enum RouteKey: String, CaseIterable {
        case lat, latitude, lon, lng, longitude, altitude, elevation, speed, course, horizontalAccuracy, hAcc,
             verticalAccuracy, vAcc, timestamp, date, time

        static let cases = allCases
        static let set = JSONPullReader.KeySet(cases.map(\.rawValue))
    }

    func readRoute(_ reader: inout JSONPullReader, into route: inout RoutePointColumns) throws {
        try reader.beginArray()
        while try reader.nextElement() {
            guard try reader.peek() == .object else { try reader.skipValue(); continue }
            try reader.beginObject()
            var lat: Double?, lon: Double?, time: Double?
            var altitude = Double.nan, speed = Double.nan, course = Double.nan
            var horizontal = Double.nan, vertical = Double.nan
            while let index = try reader.nextKey(among: RouteKey.set) {
                guard index >= 0 else { try reader.skipValue(); continue }
                switch RouteKey.cases[index] {
                case .lat, .latitude: lat = try reader.lenientNumber()
                case .lon, .lng, .longitude: lon = try reader.lenientNumber()
                case .altitude, .elevation: altitude = try reader.lenientNumber() ?? .nan
                case .speed: speed = try reader.lenientNumber() ?? .nan
                case .course: course = try reader.lenientNumber() ?? .nan
                case .horizontalAccuracy, .hAcc: horizontal = try reader.lenientNumber() ?? .nan
                case .verticalAccuracy, .vAcc: vertical = try reader.lenientNumber() ?? .nan
                case .timestamp, .date, .time: time = try reader.withOptionalStringBytes { HAEDate.parse($0)?.seconds } ?? nil
                }
            }
            guard let lat, let lon, (-90...90).contains(lat), (-180...180).contains(lon) else { continue }
            // A measure outside what a GPS fix can say is no measure (NaN, as when absent).
            func within(_ value: Double, _ range: ClosedRange<Double>) -> Double { range.contains(value) ? value : .nan }
            altitude = within(altitude, -1_000...20_000)
            speed = within(speed, 0...1_000)
            course = within(course, -1...360)
            horizontal = within(horizontal, -1...100_000)
            vertical = within(vertical, -1...100_000)
            // Version 1 points may have no time: they keep their order, timed at the workout's start later.
            route.append(time: time ?? .nan, latitude: lat, longitude: lon, elevation: altitude, speed: speed,
                         course: course, horizontalAccuracy: horizontal, verticalAccuracy: vertical)
        }
    }

    /// HealthKit's activity type for HAE's workout names (`Outdoor Run`, `Traditional Strength Training`…);
    /// `other` when none fits.
    static func activityType(_ name: String) -> String {
        // A phone set to another language names its workouts in it: "Course à pied", "Laufen", "Corsa".
        if let localized = HAELocalizedNames.workout(name) { return localized }
        var words = name.lowercased().split(separator: " ").map(String.init)
        if let first = words.first, ["outdoor", "indoor", "pool", "open"].contains(first), words.count > 1 {
            words.removeFirst()
            if words.first == "water", words.count > 1 { words.removeFirst() }
        }
        let joined = words.joined()
        let aliases = ["run": "running", "walk": "walking", "cycle": "cycling", "ride": "cycling", "bike": "cycling",
                       "swim": "swimming", "hike": "hiking", "row": "rowing", "strengthtraining": "traditionalStrengthTraining"]
        if let alias = aliases[joined] { return alias }
        return WorkoutActivityType.named(joined)?.name ?? WorkoutActivityType.named(name)?.name ?? "other"
    }
}
