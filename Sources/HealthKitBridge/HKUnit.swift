import Foundation
import HealthModel

/// A metric prefix for HealthKit's unit factories (`.gramUnit(with: .kilo)`).
public enum HKMetricPrefix: Int, Sendable {
    case none = 0, pico, nano, micro, milli, centi, deci, deca, hecto, kilo, mega, giga, tera, femto

    var symbol: String {
        switch self {
        case .none: "" case .pico: "p" case .nano: "n" case .micro: "mc" case .milli: "m" case .centi: "c"
        case .deci: "d" case .deca: "da" case .hecto: "h" case .kilo: "k" case .mega: "M" case .giga: "G"
        case .tera: "T" case .femto: "f"
        }
    }
}

/// A unit of measure: HealthKit's `HKUnit`, with HealthKit's unit strings (`kg`, `kcal`, `mL`, `count/min`, `mg/dL`).
///
/// ```swift
/// let kg = HKUnit.gramUnit(with: .kilo)
/// let mgdl = HKUnit(from: "mg/dL")
/// kg.unitString   // "kg"
/// ```
///
/// A string HealthKit would reject makes a unit compatible with nothing: converting to or from it gives `.nan`
/// (HealthKit raises an exception there; a library here never crashes its app).
public final class HKUnit: Hashable, CustomStringConvertible, Sendable {
    /// The unit string as given (`kg`).
    public let unitString: String
    let parsed: HealthUnit?

    /// Parses a HealthKit unit string.
    ///
    /// ```swift
    /// let unit = HKUnit(from: "count/min")
    /// ```
    public init(from string: String) {
        unitString = string
        parsed = try? HealthUnit.parse(string)
    }

    var healthUnit: HealthUnit { parsed ?? .count }
    var isValid: Bool { parsed != nil }

    public var description: String { unitString }
    public static func == (lhs: HKUnit, rhs: HKUnit) -> Bool {
        if let a = lhs.parsed, let b = rhs.parsed { return a == b }
        return lhs.unitString == rhs.unitString
    }
    public func hash(into hasher: inout Hasher) {
        if let parsed { hasher.combine(parsed) } else { hasher.combine(unitString) }
    }

    /// Whether values convert between the two units.
    public func isCompatible(with other: HKUnit) -> Bool {
        guard let a = parsed, let b = other.parsed else { return false }
        return a.isCompatible(with: b)
    }

    /// `self` multiplied by `unit` (`kcal·kg`).
    public func unitMultiplied(by unit: HKUnit) -> HKUnit { HKUnit(from: "\(unitString).\(unit.unitString)") }
    /// `self` divided by `unit` (`count/min`).
    public func unitDivided(by unit: HKUnit) -> HKUnit {
        HKUnit(from: unitString.contains("/") ? "\(unitString).\(unit.unitString)^-1" : "\(unitString)/\(unit.unitString)")
    }
    /// `self` raised to `power` (`m^2`).
    public func unitRaised(toPower power: Int) -> HKUnit { HKUnit(from: "(\(unitString))^\(power)") }
    /// `1/self`.
    public func reciprocal() -> HKUnit { HKUnit(from: "\(unitString)^-1") }

    // MARK: Mass
    public static func gram() -> HKUnit { HKUnit(from: "g") }
    public static func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "g") }
    public static func ounce() -> HKUnit { HKUnit(from: "oz") }
    public static func pound() -> HKUnit { HKUnit(from: "lb") }
    public static func stone() -> HKUnit { HKUnit(from: "st") }
    public static func moleUnit(withMolarMass gramsPerMole: Double) -> HKUnit { HKUnit(from: "mol<\(gramsPerMole)>") }
    public static func moleUnit(with prefix: HKMetricPrefix, molarMass gramsPerMole: Double) -> HKUnit {
        HKUnit(from: "\(prefix.symbol)mol<\(gramsPerMole)>")
    }
    // MARK: Length
    public static func meter() -> HKUnit { HKUnit(from: "m") }
    public static func meterUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "m") }
    public static func inch() -> HKUnit { HKUnit(from: "in") }
    public static func foot() -> HKUnit { HKUnit(from: "ft") }
    public static func yard() -> HKUnit { HKUnit(from: "yd") }
    public static func mile() -> HKUnit { HKUnit(from: "mi") }
    // MARK: Volume
    public static func liter() -> HKUnit { HKUnit(from: "L") }
    public static func literUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "L") }
    public static func fluidOunceUS() -> HKUnit { HKUnit(from: "fl_oz_us") }
    public static func fluidOunceImperial() -> HKUnit { HKUnit(from: "fl_oz_imp") }
    public static func cupUS() -> HKUnit { HKUnit(from: "cup_us") }
    public static func pintUS() -> HKUnit { HKUnit(from: "pt_us") }
    // MARK: Time
    public static func second() -> HKUnit { HKUnit(from: "s") }
    public static func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "s") }
    public static func minute() -> HKUnit { HKUnit(from: "min") }
    public static func hour() -> HKUnit { HKUnit(from: "hr") }
    public static func day() -> HKUnit { HKUnit(from: "d") }
    // MARK: Energy
    public static func kilocalorie() -> HKUnit { HKUnit(from: "kcal") }
    public static func largeCalorie() -> HKUnit { HKUnit(from: "Cal") }
    public static func smallCalorie() -> HKUnit { HKUnit(from: "cal") }
    public static func joule() -> HKUnit { HKUnit(from: "J") }
    public static func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "J") }
    // MARK: Others
    public static func count() -> HKUnit { HKUnit(from: "count") }
    public static func percent() -> HKUnit { HKUnit(from: "%") }
    public static func degreeCelsius() -> HKUnit { HKUnit(from: "degC") }
    public static func degreeFahrenheit() -> HKUnit { HKUnit(from: "degF") }
    public static func kelvin() -> HKUnit { HKUnit(from: "K") }
    public static func millimeterOfMercury() -> HKUnit { HKUnit(from: "mmHg") }
    public static func decibelAWeightedSoundPressureLevel() -> HKUnit { HKUnit(from: "dBASPL") }
    public static func internationalUnit() -> HKUnit { HKUnit(from: "IU") }
    public static func siemen() -> HKUnit { HKUnit(from: "S") }
    public static func hertz() -> HKUnit { HKUnit(from: "Hz") }
    public static func watt() -> HKUnit { HKUnit(from: "W") }
}

/// An amount in a unit: HealthKit's `HKQuantity`.
///
/// ```swift
/// let weight = HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 72.4)
/// weight.doubleValue(for: .pound())   // 159.6…
/// ```
public final class HKQuantity: Hashable, Comparable, CustomStringConvertible, Sendable {
    let value: Double
    let unit: HKUnit

    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
    }

    /// Whether the quantity converts to `unit`.
    public func `is`(compatibleWith unit: HKUnit) -> Bool { self.unit.isCompatible(with: unit) }

    /// The amount in `unit`; `.nan` when the units are not compatible (HealthKit raises an exception there).
    public func doubleValue(for unit: HKUnit) -> Double {
        if unit == self.unit { return value }
        guard let from = self.unit.parsed, let to = unit.parsed, let converted = try? from.convert(value, to: to) else {
            return .nan
        }
        return converted
    }

    /// Orders two compatible quantities (HealthKit's `compare(_:)`).
    public func compare(_ other: HKQuantity) -> ComparisonResult {
        let a = value, b = other.doubleValue(for: unit)
        return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    public static func < (lhs: HKQuantity, rhs: HKQuantity) -> Bool { lhs.compare(rhs) == .orderedAscending }
    public static func == (lhs: HKQuantity, rhs: HKQuantity) -> Bool {
        lhs.unit.isCompatible(with: rhs.unit) ? lhs.compare(rhs) == .orderedSame : false
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(value); hasher.combine(unit.unitString) }
    public var description: String { "\(value) \(unit.unitString)" }
}
