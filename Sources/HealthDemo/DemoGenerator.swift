import Foundation
import HealthModel
import HealthStore

/// A realistic, deterministic stretch of life recorded by an iPhone and an Apple Watch that overlap, plus a food
/// app, a water app and entries typed in the Health app.
///
/// Walks are recorded by both devices whenever both are carried, each with its own sample boundaries but the same
/// constant cadence within a walk, so the source-priority merge gives back the true step count exactly while summing
/// every source over-counts. The generator keeps that truth (``DemoDay/trueSteps``) for tests.
///
/// ```swift
/// let generator = DemoGenerator(days: 30, seed: 42, end: .now, timeZone: .current)
/// let report = try await generator.populate(store)
/// ```
public struct DemoGenerator: Sendable {
    public var days: Int
    public var seed: UInt64
    public var end: Date
    public var timeZone: TimeZone

    public static let iPhone = HealthSource(
        name: "Alex’s iPhone", bundleIdentifier: "com.apple.health.5F3C2A1B", version: "17.4",
        device: HealthDevice(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardware: "iPhone15,2",
                             software: "17.4"))
    public static let watch = HealthSource(
        name: "Alex’s Apple Watch", bundleIdentifier: "com.apple.health.9D8E7F6A", version: "10.4",
        device: HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardware: "Watch6,2",
                             software: "10.4"))
    public static let healthApp = HealthSource(name: "Health", bundleIdentifier: "com.apple.Health", version: "17.4")
    public static let foodApp = HealthSource(name: "MyFitnessPal", bundleIdentifier: "com.myfitnesspal.mfp", version: "24.1")
    public static let waterApp = HealthSource(name: "WaterMinder", bundleIdentifier: "com.funnmedia.waterminder", version: "5.2")

    public init(days: Int = 60, seed: UInt64 = 42, end: Date = Date(), timeZone: TimeZone = .current) {
        self.days = max(1, days)
        self.seed = seed
        self.end = end
        self.timeZone = timeZone
    }

    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The first day generated (local midnight).
    public var firstDay: Date {
        calendar.date(byAdding: .day, value: -(days - 1), to: calendar.startOfDay(for: end)) ?? end
    }

    /// Generates and saves everything, a few days per transaction.
    @discardableResult
    public func populate(_ store: any HealthStore, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> DemoReport {
        var report = DemoReport()
        var batch = DemoDay(date: firstDay)
        for index in 0..<days {
            let day = generate(dayIndex: index)
            report.add(day, timeZone: timeZone)
            batch.append(day)
            if batch.samples.count >= 50_000 || index == days - 1 {
                try await save(batch, to: store)
                batch = DemoDay(date: day.date)
                progress?(index + 1, days)
            }
        }
        try await store.setSetting("home_time_zone", timeZone.identifier)
        return report
    }

    func save(_ day: DemoDay, to store: any HealthStore) async throws {
        try await store.save(day.samples)
        try await store.save(correlations: day.correlations)
        try await store.save(workouts: day.workouts)
        for (route, points) in day.routes { try await store.saveRoute(route, points: points) }
    }

    /// One day of data. Deterministic for a given seed, day date and time zone.
    public func generate(dayIndex: Int) -> DemoDay {
        let dayStart = calendar.date(byAdding: .day, value: dayIndex, to: firstDay) ?? firstDay
        let dayNumber = Int64(ISO8601.daysFromCivil(calendar.component(.year, from: dayStart),
                                                    calendar.component(.month, from: dayStart),
                                                    calendar.component(.day, from: dayStart)))
        var rng = SplitMix64(seed: seed &+ UInt64(bitPattern: dayNumber) &* 0x9E37_79B9_7F4A_7C15)
        var day = DemoDay(date: dayStart)
        let offset = timeZone.secondsFromGMT(for: dayStart)
        let zone = timeZone.identifier
        func at(_ minutes: Double) -> Date { dayStart.addingTimeInterval(minutes * 60) }
        func add(_ type: String, _ start: Date, _ end: Date, _ value: SampleValue, _ source: HealthSource,
                 metadata: [String: String] = [:]) {
            guard end <= self.end else { return }
            day.samples.append(HealthSample(type: type, start: start, end: end, value: value, source: source,
                                            creationDate: end, metadata: metadata, utcOffset: offset, timeZone: zone))
        }

        // Wear: the watch is off the wrist for about an hour in the evening (charging), and all day now and then.
        let watchDay = rng.chance(0.93)
        let chargeStart = 18 * 60 + rng.double(in: 0...120)
        func watchWorn(_ minute: Double) -> Bool {
            watchDay && !(minute >= chargeStart && minute < chargeStart + 60)
        }

        // Sleep ending this morning: phone in-bed interval, watch stages.
        let bed = -60 + rng.double(in: -45...45)       // ~23:00 the evening before
        let wake = 7 * 60 + rng.double(in: -40...50)    // ~07:00
        add("sleepAnalysis", at(bed), at(wake), .category(0), Self.iPhone)
        if watchDay {
            var t = bed + rng.double(in: 8...25)
            let stages: [(Int, ClosedRange<Double>)] = [(3, 25...45), (4, 15...35), (3, 10...25), (5, 12...30)]
            var cycle = 0
            while t < wake - 10 {
                for (stage, span) in stages {
                    let length = min(rng.double(in: span) * (cycle > 2 && stage == 4 ? 0.4 : 1), wake - 5 - t)
                    guard length > 1 else { break }
                    add("sleepAnalysis", at(t), at(t + length), .category(stage), Self.watch)
                    t += length
                }
                if rng.chance(0.5), t < wake - 10 {
                    let awake = rng.double(in: 1...6)
                    add("sleepAnalysis", at(t), at(t + awake), .category(2), Self.watch)
                    t += awake
                }
                cycle += 1
            }
        }

        // Walks: each recorded in whole minutes at a constant cadence by the devices carried.
        var bouts: [(start: Double, minutes: Int, cadence: Int)] = []
        var minute = wake + rng.double(in: 10...40)
        while minute < 21.5 * 60 {
            let length = Int(rng.double(in: 4...38))
            bouts.append((minute.rounded(), length, Int(rng.double(in: 85...122))))
            minute += Double(length) + rng.double(in: 30...150)
        }
        // A run every two or three days, recorded by the watch as a workout.
        let runs = dayNumber % 5 == 0 || dayNumber % 5 == 2
        var runBout: (start: Double, minutes: Int, cadence: Int)? = nil
        if runs && watchDay {
            let start = (17 * 60 + rng.double(in: 0...40)).rounded()
            let run = (start: start, minutes: Int(rng.double(in: 28...52)), cadence: Int(rng.double(in: 155...172)))
            runBout = run
            bouts.removeAll { $0.start < run.start + Double(run.minutes) + 5 && $0.start + Double($0.minutes) > run.start - 5 }
            bouts.append(run)
            bouts.sort { $0.start < $1.start }
        }
        for bout in bouts {
            let watchRecords = watchWorn(bout.start) && watchWorn(bout.start + Double(bout.minutes))
            let phoneRecords = rng.chance(bout.cadence > 140 ? 0.3 : 0.55)
            let complete = at(bout.start + Double(bout.minutes)) <= end
            if complete && (watchRecords || phoneRecords) { day.trueSteps += Double(bout.minutes * bout.cadence) }
            let stride = bout.cadence > 140 ? 1.15 : 0.74
            for (records, source, chunk) in [(watchRecords, Self.watch, 1...4), (phoneRecords, Self.iPhone, 2...9)] {
                guard records else { continue }
                var m = 0
                let offsetStart = source == Self.iPhone ? Int(rng.double(in: 0...2)) : 0
                if offsetStart > 0, offsetStart < bout.minutes {
                    // The phone starts counting a little late; the watch covers that part.
                    m = offsetStart
                    if !watchRecords && complete { day.trueSteps -= Double(offsetStart * bout.cadence) }
                }
                while m < bout.minutes {
                    let length = min(Int(rng.double(in: Double(chunk.lowerBound)...Double(chunk.upperBound) + 0.99)),
                                     bout.minutes - m)
                    let s = at(bout.start + Double(m)), e = at(bout.start + Double(m + length))
                    let steps = Double(length * bout.cadence)
                    add("stepCount", s, e, .quantity(steps, unit: "count"), source)
                    add("distanceWalkingRunning", s, e, .quantity(steps * stride / 1000, unit: "km"), source)
                    add("activeEnergyBurned", s, e,
                        .quantity(Double(length) * (bout.cadence > 140 ? 11.5 : 4.2), unit: "kcal"), source)
                    m += length
                }
            }
        }
        if let run = runBout {
            let start = at(run.start), finish = at(run.start + Double(run.minutes))
            if finish <= end {
                let distance = Double(run.minutes * run.cadence) * 1.15
                let energy = Double(run.minutes) * 11.5
                let routeID = HealthSample.naturalUUID(type: "route", sourceKey: Self.watch.key, start: start,
                                                       end: finish, value: .none)
                var points: [RoutePoint] = []
                var lat = 48.8566 + rng.double(in: -0.01...0.01), lon = 2.3522 + rng.double(in: -0.01...0.01)
                var heading = rng.double(in: 0...(2 * .pi))
                for second in stride(from: 0, to: run.minutes * 60, by: 5) {
                    heading += rng.double(in: -0.15...0.15)
                    lat += cos(heading) * 0.000_05
                    lon += sin(heading) * 0.000_07
                    points.append(RoutePoint(time: start.addingTimeInterval(Double(second)), latitude: lat,
                                             longitude: lon, elevation: 35 + rng.double(in: -2...2),
                                             speed: 3.2 + rng.double(in: -0.4...0.4), course: heading * 180 / .pi,
                                             horizontalAccuracy: 4, verticalAccuracy: 3))
                }
                day.routes.append((routeID, points))
                day.workouts.append(HealthWorkout(
                    activityType: "running", start: start, end: finish, duration: finish.timeIntervalSince(start),
                    source: Self.watch, creationDate: finish,
                    metadata: ["HKIndoorWorkout": "0", MetadataKey.timeZone: zone], utcOffset: offset, timeZone: zone,
                    totalDistance: .init(distance / 1000, "km"), totalEnergyBurned: .init(energy, "kcal"),
                    events: [.init(type: "HKWorkoutEventTypeSegment", date: start, duration: finish.timeIntervalSince(start))],
                    statistics: [
                        .init(type: "distanceWalkingRunning", start: start, end: finish, sum: distance / 1000, unit: "km"),
                        .init(type: "activeEnergyBurned", start: start, end: finish, sum: energy, unit: "kcal"),
                        .init(type: "heartRate", start: start, end: finish, average: 152, minimum: 118, maximum: 171,
                              unit: "count/min"),
                    ],
                    routes: [.init(uuid: routeID, start: start, end: finish, sourceName: Self.watch.name, file: nil,
                                   pointCount: points.count, metadata: nil)]))
            }
        }

        // Heart rate every 5 minutes while the watch is worn; faster during walks and runs.
        var resting = 58 + rng.double(in: -3...3)
        if watchDay {
            for slot in stride(from: 0.0, to: 24 * 60, by: 5) where watchWorn(slot) {
                let moving = bouts.first { slot >= $0.start && slot < $0.start + Double($0.minutes) }
                let asleep = slot < wake || slot >= 24 * 60 + bed
                var bpm = asleep ? resting - 4 : resting + 12
                if let moving { bpm = moving.cadence > 140 ? 150 : 98 }
                bpm += rng.double(in: -5...5)
                let context = moving == nil ? "1" : "2"
                add("heartRate", at(slot), at(slot), .quantity(bpm.rounded(), unit: "count/min"), Self.watch,
                    metadata: ["HKMetadataKeyHeartRateMotionContext": context])
            }
            resting = resting.rounded()
            add("restingHeartRate", at(0), at(23 * 60 + 59), .quantity(resting, unit: "count/min"), Self.watch)
            add("walkingHeartRateAverage", at(0), at(23 * 60 + 59), .quantity(resting + 40, unit: "count/min"),
                Self.watch)
            for hour in [2.0, 4.5, 9.0, 14.0] where watchWorn(hour * 60) {
                add("heartRateVariabilitySDNN", at(hour * 60), at(hour * 60 + 1),
                    .quantity((45 + rng.double(in: -12...12)).rounded(), unit: "ms"), Self.watch)
            }
            // Stand hours and basal energy, hourly.
            for hour in 0..<24 {
                let s = at(Double(hour * 60)), e = at(Double(hour * 60 + 60))
                add("basalEnergyBurned", s, e, .quantity(68 + rng.double(in: -4...4), unit: "kcal"), Self.watch)
                if hour >= 7, hour < 22, watchWorn(Double(hour * 60 + 30)) {
                    let stood = bouts.contains { $0.start >= Double(hour * 60) && $0.start < Double(hour * 60 + 60) }
                        || rng.chance(0.55)
                    add("appleStandHour", s, e, .category(stood ? 0 : 1), Self.watch)
                }
            }
            add("oxygenSaturation", at(3 * 60), at(3 * 60), .quantity((0.97 + rng.double(in: -0.02...0.02) * 100).rounded() / 100, unit: "%"),
                Self.watch)
        }

        // Weight every third day, typed in the Health app.
        if dayNumber % 3 == 0 {
            let weight = 72.4 + sin(Double(dayNumber) / 20) * 0.8 + rng.double(in: -0.3...0.3)
            add("bodyMass", at(wake + 15), at(wake + 15), .quantity((weight * 10).rounded() / 10, unit: "kg"),
                Self.healthApp, metadata: [MetadataKey.wasUserEntered: "1"])
        }

        // Meals: food correlations from a food-logging app.
        let meals: [(String, Double, Double)] = [("Breakfast", wake + 30, 480), ("Lunch", 12.5 * 60, 720),
                                                 ("Dinner", 19.5 * 60, 810)]
        for (name, minute, kcal) in meals {
            let time = at(minute + rng.double(in: -20...20))
            guard time <= end else { continue }
            let energy = (kcal * rng.double(in: 0.8...1.25)).rounded()
            let meta = [MetadataKey.foodType: name]
            let members = [
                HealthSample(type: "dietaryEnergyConsumed", start: time, end: time, value: .quantity(energy, unit: "kcal"),
                             source: Self.foodApp, creationDate: time, metadata: meta, utcOffset: offset, timeZone: zone),
                HealthSample(type: "dietaryProtein", start: time, end: time,
                             value: .quantity((energy * 0.2 / 4).rounded(), unit: "g"), source: Self.foodApp,
                             creationDate: time, metadata: meta, utcOffset: offset, timeZone: zone),
                HealthSample(type: "dietaryCarbohydrates", start: time, end: time,
                             value: .quantity((energy * 0.5 / 4).rounded(), unit: "g"), source: Self.foodApp,
                             creationDate: time, metadata: meta, utcOffset: offset, timeZone: zone),
                HealthSample(type: "dietaryFatTotal", start: time, end: time,
                             value: .quantity((energy * 0.3 / 9).rounded(), unit: "g"), source: Self.foodApp,
                             creationDate: time, metadata: meta, utcOffset: offset, timeZone: zone),
            ]
            day.samples.append(contentsOf: members)
            day.correlations.append(HealthCorrelation(type: "food", start: time, end: time, source: Self.foodApp,
                                                      creationDate: time, metadata: meta,
                                                      members: members.map(\.uuid)))
        }

        // Water: glasses through the day.
        let glasses = Int(rng.double(in: 5...9))
        for glass in 0..<glasses {
            let time = at(wake + 20 + Double(glass) * (13 * 60 / Double(glasses)) + rng.double(in: 0...30))
            add("dietaryWater", time, time, .quantity(250, unit: "mL"), Self.waterApp)
        }
        return day
    }
}

/// One generated day (or a batch of days).
public struct DemoDay: Sendable {
    public var date: Date
    public var samples: [HealthSample] = []
    public var workouts: [HealthWorkout] = []
    public var correlations: [HealthCorrelation] = []
    public var routes: [(UUID, [RoutePoint])] = []
    /// The steps actually walked (recorded by at least one device), what the merge must give back.
    public var trueSteps: Double = 0

    public init(date: Date) { self.date = date }

    mutating func append(_ other: DemoDay) {
        samples += other.samples
        workouts += other.workouts
        correlations += other.correlations
        routes += other.routes
        trueSteps += other.trueSteps
    }
}

/// What `populate` generated.
public struct DemoReport: Sendable {
    public var samples = 0
    public var workouts = 0
    public var correlations = 0
    public var routePoints = 0
    /// True steps per local day (`yyyy-MM-dd`).
    public var trueSteps: [String: Double] = [:]

    mutating func add(_ day: DemoDay, timeZone: TimeZone) {
        trueSteps[ISO8601.dateString(day.date, timeZone: timeZone), default: 0] += day.trueSteps
        samples += day.samples.count
        workouts += day.workouts.count
        correlations += day.correlations.count
        routePoints += day.routes.reduce(0) { $0 + $1.1.count }
    }
}

/// A small, fast, deterministic PRNG (SplitMix64), the same on every platform.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
    mutating func chance(_ p: Double) -> Bool { double(in: 0...1) < p }
}
