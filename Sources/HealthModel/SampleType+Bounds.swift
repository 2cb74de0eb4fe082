import Foundation

/// What one sample of a type can be, in the type's canonical unit, and the one check every way in uses (the write
/// API, Health Auto Export pushes, imports of HAE files): a value outside is a typing mistake or a hostile number,
/// never stored, so that no stored value can stop a reader.
///
/// Physiological bounds are declared for the types people type in or apps push most; every other quantity type gets
/// a generous finite range (cumulative types: 0 or more), which still keeps every stored number far inside what any
/// reader converts or formats.
///
/// ```swift
/// let glucose = try SampleTypeRegistry.resolve("bloodGlucose")
/// glucose.valueBounds                               // 10...3000 (mg/dL)
/// try glucose.checkValue(180)                       // a reading after a meal: fine
/// try SampleTypeRegistry.resolve("stepCount").checkValue(1e19)   // throws HEALTH_INVALID_ARGUMENT
/// ```
extension SampleType {
    /// The widest value any quantity type may hold: well inside `Int64` and every formatter.
    public static let largestValue = 1e12

    /// The values one sample of this type may have, in ``canonicalUnit``.
    public var valueBounds: ClosedRange<Double> {
        if let declared = SampleTypeRegistry.valueBounds[identifier] { return declared }
        return isCumulative ? 0...Self.largestValue : -Self.largestValue...Self.largestValue
    }

    /// Checks a value already converted to ``canonicalUnit``: finite and within ``valueBounds``.
    /// - Throws: ``HealthError`` `.invalidArgument`, naming the type, the value's unit and the bounds.
    public func checkValue(_ value: Double) throws(HealthError) {
        guard value.isFinite else {
            throw HealthError(.invalidArgument, "a value of \(identifier) must be a finite number")
        }
        let bounds = valueBounds
        guard bounds.contains(value) else {
            let unit = canonicalUnit.map { " \($0)" } ?? ""
            throw HealthError(.invalidArgument, "\(Self.plain(value))\(unit) is outside what \(identifier) can be (\(Self.plain(bounds.lowerBound))…\(Self.plain(bounds.upperBound))\(unit))")
        }
    }

    /// Checks a category value: one the type declares (any value for an unregistered type).
    public func checkCategory(_ raw: Int) throws(HealthError) {
        guard !isRegistered || categoryValues.isEmpty || categoryValue(raw: raw) != nil else {
            throw HealthError(.invalidArgument, "\(raw) is not a value of \(identifier); use one of \(categoryValues.map(\.name).joined(separator: ", "))")
        }
    }

    /// A number as people write it: `72` rather than `72.0`, every digit of a fraction.
    static func plain(_ value: Double) -> String {
        if let whole = value.checkedInt64(), Double(whole) == value, abs(value) < 1e15 { return String(whole) }
        return String(value)
    }
}

/// The instants a stored sample may have, for every way in: from 1900 on, and no later than a little after now.
///
/// ```swift
/// try SampleDates.check(start: start, end: end, now: Date(), aheadAllowed: SampleDates.bucketAhead)
/// ```
public enum SampleDates {
    /// 1900-01-01T00:00:00Z: nothing HealthKit holds is older.
    public static let earliest = Date(timeIntervalSince1970: -2_208_988_800)
    /// The longest span one object may cover: a year bucket of Health Auto Export (366 days) and a little more.
    public static let longestSpan: TimeInterval = 370 * 86_400
    /// How far past now a pushed bucket may end: the current day, week, month or year of an aggregated push ends
    /// in the future.
    public static let bucketAhead: TimeInterval = 370 * 86_400
    /// How far past now a sample written as it happened may be dated: clocks disagree.
    public static let clockSkew: TimeInterval = 600

    /// Checks a sample's dates: finite, in order, from 1900 on, starting no later than `aheadAllowed` past `now`
    /// and ending within ``longestSpan`` of its start.
    /// - Throws: ``HealthError`` `.invalidRange`.
    public static func check(start: Date, end: Date, now: Date, aheadAllowed: TimeInterval) throws(HealthError) {
        let from = start.timeIntervalSince1970, to = end.timeIntervalSince1970
        guard from.isFinite, to.isFinite else { throw HealthError(.invalidRange, "a date must be a finite instant") }
        guard from >= earliest.timeIntervalSince1970 else { throw HealthError(.invalidRange, "a sample before 1900") }
        guard to >= from else { throw HealthError(.invalidRange, "a sample that ends before it starts") }
        guard to - from <= longestSpan else {
            throw HealthError(.invalidRange, "a sample longer than \(Int(longestSpan / 86_400)) days")
        }
        guard to <= now.timeIntervalSince1970 + aheadAllowed else {
            throw HealthError(.invalidRange, "a sample dated in the future")
        }
    }
}

extension SampleTypeRegistry {
    /// Physiological bounds of one sample, in the type's canonical unit (`%` types as fractions: 0.97 is 97 %).
    static let valueBounds: [String: ClosedRange<Double>] = [
        // Body
        "bodyMass": 0.5...650, "leanBodyMass": 0.5...400, "bodyFatPercentage": 0.01...0.8, "height": 0.2...2.8,
        "bodyMassIndex": 5...150, "waistCircumference": 0.2...3,
        // Vitals (bloodGlucose in mg/dL: 10 mg/dL is 0.56 mmol/L, 3,000 mg/dL 167 mmol/L)
        "heartRate": 15...300, "restingHeartRate": 15...250, "walkingHeartRateAverage": 15...300,
        "heartRateVariabilitySDNN": 0...1_000, "bodyTemperature": 25...45, "basalBodyTemperature": 25...45,
        "oxygenSaturation": 0.3...1, "respiratoryRate": 1...120, "bloodGlucose": 10...3_000,
        "bloodPressureSystolic": 40...300, "bloodPressureDiastolic": 20...200, "vo2Max": 1...100,
        // Activity, per sample (a pushed bucket can be a whole day)
        "stepCount": 0...300_000, "activeEnergyBurned": 0...30_000, "basalEnergyBurned": 0...30_000,
        "distanceWalkingRunning": 0...500_000, "distanceCycling": 0...1_000_000, "flightsClimbed": 0...10_000,
        "appleExerciseTime": 0...1_440, "appleStandTime": 0...1_440,
        // Nutrition (grams unless noted; water in mL, energy in kcal)
        "dietaryEnergyConsumed": 0...30_000, "dietaryProtein": 0...3_000, "dietaryCarbohydrates": 0...3_000,
        "dietaryFatTotal": 0...3_000, "dietaryFiber": 0...1_000, "dietarySugar": 0...3_000, "dietarySodium": 0...100,
        "dietaryCholesterol": 0...20, "dietaryFatSaturated": 0...1_000, "dietaryWater": 0...20_000,
        "dietaryCaffeine": 0...10,
    ]
}
