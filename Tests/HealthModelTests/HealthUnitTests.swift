import Foundation
import Testing

@testable import HealthModel

// MARK: - Helpers

/// Whether `actual` is within `relative` of `expected` (absolute near zero).
private func isClose(_ actual: Double, _ expected: Double, relative: Double = 1e-12) -> Bool {
    let scale = max(abs(actual), abs(expected))
    return abs(actual - expected) <= relative * max(scale, 1e-300) || (scale < 1e-12 && abs(actual - expected) < 1e-12)
}

private func unit(_ string: String) throws -> HealthUnit {
    try HealthUnit(string)
}

private func convert(_ value: Double, _ from: String, _ to: String) throws -> Double {
    try HealthUnit(from).convert(value, to: HealthUnit(to))
}

/// The `HealthError` thrown by `body`, or nil when it did not throw (any other error is recorded as an issue).
private func healthError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> HealthError? {
    do {
        try body()
        return nil
    } catch let error as HealthError {
        return error
    } catch {
        Issue.record("expected a HealthError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - Factors

@Suite("HealthUnit conversion factors")
struct HealthUnitFactorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let unit: String
        let base: String
        let factor: Double
        var testDescription: String { "1 \(unit) = \(factor) \(base)" }
    }

    static let nonSI: [Case] = [
        Case(unit: "oz", base: "g", factor: 28.349523125),
        Case(unit: "lb", base: "g", factor: 453.59237),
        Case(unit: "st", base: "g", factor: 6350.29318),
        Case(unit: "in", base: "m", factor: 0.0254),
        Case(unit: "ft", base: "m", factor: 0.3048),
        Case(unit: "yd", base: "m", factor: 0.9144),
        Case(unit: "mi", base: "m", factor: 1609.344),
        Case(unit: "mmHg", base: "Pa", factor: 133.3224),
        Case(unit: "cmAq", base: "Pa", factor: 98.0665),
        Case(unit: "atm", base: "Pa", factor: 101_325),
        Case(unit: "inHg", base: "Pa", factor: 3386.38816),
        Case(unit: "fl_oz_us", base: "L", factor: 0.0295735295625),
        Case(unit: "fl_oz_imp", base: "L", factor: 0.0284130625),
        Case(unit: "pt_us", base: "L", factor: 0.473176473),
        Case(unit: "pt_imp", base: "L", factor: 0.56826125),
        Case(unit: "cup_us", base: "L", factor: 0.2365882365),
        Case(unit: "cup_imp", base: "L", factor: 0.284130625),
        Case(unit: "min", base: "s", factor: 60),
        Case(unit: "hr", base: "s", factor: 3600),
        Case(unit: "d", base: "s", factor: 86_400),
        Case(unit: "cal", base: "J", factor: 4.184),
        Case(unit: "kcal", base: "J", factor: 4184),
        Case(unit: "Cal", base: "J", factor: 4184),
        Case(unit: "deg", base: "rad", factor: Double.pi / 180),
    ]

    @Test("non-SI units convert to their SI base with HealthKit's factors", arguments: nonSI)
    func nonSIFactor(_ c: Case) throws {
        #expect(isClose(try convert(1, c.unit, c.base), c.factor))
        #expect(isClose(try convert(c.factor, c.base, c.unit), 1))
        #expect(isClose(try convert(2.5, c.unit, c.base), 2.5 * c.factor))
    }

    static let prefixed: [Case] = [
        Case(unit: "km", base: "m", factor: 1000),
        Case(unit: "cm", base: "m", factor: 0.01),
        Case(unit: "mm", base: "m", factor: 0.001),
        Case(unit: "nm", base: "m", factor: 1e-9),
        Case(unit: "dam", base: "m", factor: 10),
        Case(unit: "hm", base: "m", factor: 100),
        Case(unit: "kg", base: "g", factor: 1000),
        Case(unit: "mg", base: "g", factor: 1e-3),
        Case(unit: "mcg", base: "g", factor: 1e-6),
        Case(unit: "\u{B5}g", base: "g", factor: 1e-6),
        Case(unit: "\u{3BC}g", base: "g", factor: 1e-6),
        Case(unit: "ng", base: "g", factor: 1e-9),
        Case(unit: "pg", base: "g", factor: 1e-12),
        Case(unit: "fg", base: "g", factor: 1e-15),
        Case(unit: "dL", base: "L", factor: 0.1),
        Case(unit: "cL", base: "L", factor: 0.01),
        Case(unit: "mL", base: "L", factor: 1e-3),
        Case(unit: "ml", base: "L", factor: 1e-3),
        Case(unit: "daL", base: "L", factor: 10),
        Case(unit: "ms", base: "s", factor: 1e-3),
        Case(unit: "hPa", base: "Pa", factor: 100),
        Case(unit: "kPa", base: "Pa", factor: 1000),
        Case(unit: "MPa", base: "Pa", factor: 1e6),
        Case(unit: "kJ", base: "J", factor: 1000),
        Case(unit: "GHz", base: "Hz", factor: 1e9),
        Case(unit: "TW", base: "W", factor: 1e12),
        Case(unit: "mV", base: "V", factor: 1e-3),
        Case(unit: "mcS", base: "S", factor: 1e-6),
        Case(unit: "mK", base: "K", factor: 1e-3),
        Case(unit: "mrad", base: "rad", factor: 1e-3),
        Case(unit: "klx", base: "lx", factor: 1000),
        Case(unit: "mmol", base: "mol", factor: 1e-3),
        Case(unit: "kcal", base: "cal", factor: 1000),
        Case(unit: "Cal", base: "cal", factor: 1000),
        Case(unit: "Cal", base: "kcal", factor: 1),
        Case(unit: "L", base: "m^3", factor: 1e-3),
        Case(unit: "Pa", base: "kg/m.s^2", factor: 1),
        Case(unit: "J", base: "kg.m^2/s^2", factor: 1),
        Case(unit: "W", base: "J/s", factor: 1),
    ]

    @Test("SI prefixes scale their unit", arguments: prefixed)
    func prefix(_ c: Case) throws {
        #expect(isClose(try convert(1, c.unit, c.base), c.factor))
    }

    @Test("known units are matched before a prefix split")
    func knownUnitsFirst() throws {
        #expect(isClose(try convert(1, "min", "s"), 60))  // not milli-inch
        #expect(isClose(try convert(1, "mi", "m"), 1609.344))
        #expect(isClose(try convert(1, "mmHg", "Pa"), 133.3224))  // not milli-mHg
        #expect(isClose(try convert(1, "cmAq", "Pa"), 98.0665))
        #expect(isClose(try convert(1, "cal", "J"), 4.184))  // not centi-al
        #expect(isClose(try convert(1, "d", "hr"), 24))  // day, not deci-
        #expect(isClose(try convert(1, "dL", "mL"), 100))  // deci-liter
        #expect(isClose(try convert(1, "dam", "m"), 10))  // deca-meter, not deci-am
        #expect(try unit("mcg").description == "mcg")
        #expect(try unit("dBASPL").isCompatible(with: .pascal))
        #expect(try unit("min") == .minute)
    }

    @Test("Cal, kcal and cal are case-sensitive and distinct")
    func calorieCase() throws {
        #expect(try unit("Cal") != unit("cal"))
        #expect(try unit("Cal") != unit("kcal"))
        #expect(try unit("Cal").description == "Cal")
        #expect(try unit("kcal").isCompatible(with: unit("Cal")))
        #expect(isClose(try convert(1, "Cal", "cal"), 1000))
        #expect(isClose(try convert(250, "cal", "kcal"), 0.25))
        let error = healthError { _ = try HealthUnit("CAL") }
        #expect(error?.code == .invalidUnit)
        #expect(error?.message.contains("'CAL'") == true)
        #expect(error?.message.contains("'cal'") == true)
    }

    @Test("spellings of micro and liter print one way and compare equal")
    func spellings() throws {
        #expect(try unit("\u{B5}g") == unit("mcg"))
        #expect(try unit("\u{3BC}g") == unit("mcg"))
        #expect(try unit("\u{B5}g").description == "mcg")
        #expect(try unit("ml") == unit("mL"))
        #expect(try unit("mg/dl").description == "mg/dL")
        #expect(try unit("kg") != unit("g"))
    }
}

// MARK: - Composition and printing

@Suite("HealthUnit composition and printing")
struct HealthUnitCompositionTests {
    @Test("one '/' divides everything after it")
    func divisionScope() throws {
        #expect(try unit("kg/m.s^2") == unit("kg.m^-1.s^-2"))
        #expect(try unit("kcal/hr\u{B7}kg") == unit("kcal.hr^-1.kg^-1"))
        #expect(try unit("mL/min*kg") == unit("mL/(min.kg)"))
        #expect(try unit("(mL/kg)/min") == unit("mL/min.kg"))
        #expect(try unit("(count/min)") == unit("count/min"))
        #expect(try unit("kg.m^-1") == unit("kg/m"))
        #expect(try unit("1/s") == unit("s^-1"))
        #expect(try unit("(m/s)^2") == unit("m^2/s^2"))
        #expect(isClose(try convert(1, "kg/m.s^2", "Pa"), 1))
    }

    @Test("multiplication spellings are equivalent")
    func multiplicationSpellings() throws {
        let dot = try unit("kg.m")
        #expect(try unit("kg*m") == dot)
        #expect(try unit("kg\u{B7}m") == dot)
        #expect(try unit("kg\u{22C5}m") == dot)
        #expect(try unit("m.kg") == dot)  // order does not matter for equality...
        #expect(try unit("m.kg").description == "m\u{B7}kg")  // ...but is kept for printing.
    }

    @Test("equal units hash equally")
    func hashing() throws {
        let set: Set<HealthUnit> = try [unit("kg/m"), unit("kg.m^-1"), unit("m^-1*kg"), unit("kg")]
        #expect(set.count == 2)
        #expect(try unit("m.m") == unit("m^2"))
        #expect(try unit("m/m") == .count)
    }

    @Test(
        "printing joins products with '·'",
        arguments: [
            ("kg/m.s^2", "kg/m\u{B7}s^2"),
            ("mL/min*kg", "mL/min\u{B7}kg"),
            ("count/min", "count/min"),
            ("kcal/hr.kg", "kcal/hr\u{B7}kg"),
            ("kg.m^-1.s^-2", "kg/m\u{B7}s^2"),
            ("m^2", "m^2"),
            ("m.m", "m^2"),
            ("m^-1", "m^-1"),
            ("1/s", "s^-1"),
            ("s^-1.m^-2", "s^-1\u{B7}m^-2"),
            ("(count/min)", "count/min"),
            ("  mg/dL ", "mg/dL"),
            ("l", "L"),
            ("%", "%"),
            ("mmol<180.1558800000541>/L", "mmol<180.1558800000541>/L"),
            ("mol<18>", "mol<18>"),
        ]
    )
    func printing(_ input: String, _ expected: String) throws {
        let parsed = try unit(input)
        #expect(parsed.description == expected)
        #expect(try unit(parsed.description) == parsed)  // round trip
    }

    @Test("algebra matches parsed strings")
    func algebra() throws {
        #expect(try HealthUnit.kilocalorie.divided(by: unit("hr.kg")) == .kilocaloriePerHourKilogram)
        #expect(try HealthUnit.meter.raised(toPower: 2) == unit("m^2"))
        #expect(try HealthUnit.minute.reciprocal().description == "min^-1")
        #expect(try HealthUnit.count.multiplied(by: HealthUnit.minute.reciprocal()) == .countPerMinute)
        #expect(healthError { _ = try HealthUnit.degreeCelsius.divided(by: .minute) }?.code == .invalidUnit)
        #expect(healthError { _ = try HealthUnit.meter.raised(toPower: 0) }?.code == .invalidUnit)
    }

    @Test("constants equal their parsed strings")
    func constants() throws {
        let expected: [(HealthUnit, String)] = [
            (.count, "count"), (.percent, "%"), (.countPerMinute, "count/min"), (.gram, "g"), (.kilogram, "kg"),
            (.milligram, "mg"), (.microgram, "mcg"), (.pound, "lb"), (.meter, "m"), (.centimeter, "cm"),
            (.kilometer, "km"), (.liter, "L"), (.milliliter, "mL"), (.second, "s"), (.millisecond, "ms"),
            (.minute, "min"), (.hour, "hr"), (.day, "d"), (.kilocalorie, "kcal"), (.largeCalorie, "Cal"),
            (.smallCalorie, "cal"), (.kilojoule, "kJ"), (.kelvin, "K"), (.degreeCelsius, "degC"),
            (.degreeFahrenheit, "degF"), (.millimeterOfMercury, "mmHg"), (.decibelASPL, "dBASPL"),
            (.decibelHearingLevel, "dBHL"), (.microsiemens, "mcS"), (.internationalUnit, "IU"),
            (.appleEffortScore, "appleEffortScore"), (.meterPerSecond, "m/s"), (.milligramPerDeciliter, "mg/dL"),
            (.millimolesGlucosePerLiter, "mmol<180.1558800000541>/L"), (.milliliterPerMinuteKilogram, "mL/min\u{B7}kg"),
            (.kilocaloriePerHourKilogram, "kcal/hr\u{B7}kg"),
        ]
        for (constant, string) in expected {
            #expect(constant.description == string)
            #expect(try unit(string) == constant)
        }
    }

    @Test("Codable uses the unit string")
    func codable() throws {
        let data = try JSONEncoder().encode([HealthUnit.milliliterPerMinuteKilogram, .degreeCelsius])
        #expect(try JSONDecoder().decode([String].self, from: data) == ["mL/min\u{B7}kg", "degC"])
        #expect(try JSONDecoder().decode([HealthUnit].self, from: data) == [.milliliterPerMinuteKilogram, .degreeCelsius])
        #expect(try JSONDecoder().decode(HealthUnit.self, from: Data("\"count/min\"".utf8)) == .countPerMinute)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([HealthUnit].self, from: Data("[\"kgs\"]".utf8)) }
    }
}

// MARK: - Conversions

@Suite("HealthUnit conversions")
struct HealthUnitConversionTests {
    @Test("compatible compound units")
    func compound() throws {
        #expect(try unit("kcal/hr\u{B7}kg").isCompatible(with: unit("W/kg")))
        #expect(isClose(try convert(1, "kcal/hr\u{B7}kg", "W/kg"), 4184.0 / 3600.0))
        #expect(try unit("mL/min\u{B7}kg").isCompatible(with: unit("L/hr\u{B7}g")))
        #expect(isClose(try convert(1, "mL/min\u{B7}kg", "L/hr\u{B7}g"), 6e-5))
        #expect(try unit("count/min").isCompatible(with: .hertz))
        #expect(isClose(try convert(60, "count/min", "Hz"), 1))
        #expect(isClose(try convert(1, "km/hr", "m/s"), 1 / 3.6))
        #expect(isClose(try convert(1, "S.V", "W/V"), 1))  // both are amperes: S = A/V, V = W/A
        #expect(isClose(try convert(1, "mS.kV", "W/V"), 1))
        #expect(isClose(try convert(1, "klx", "lx"), 1000))
    }

    static let roundTrips: [(String, String, Double)] = [
        ("kg", "lb", 72.5), ("mi", "km", 26.2), ("fl_oz_us", "mL", 8), ("cup_imp", "fl_oz_us", 3),
        ("mmHg", "kPa", 120), ("inHg", "cmAq", 29.92), ("kcal", "kJ", 2000), ("count/min", "Hz", 72),
        ("mg/dL", "mmol<180.15588>/L", 95), ("mL/min\u{B7}kg", "L/hr\u{B7}lb", 45.3),
        ("degC", "degF", 36.6), ("degF", "K", -40), ("K", "degC", 0.001), ("mK", "degF", 310_150),
        ("dBASPL", "Pa", 85), ("mmHg", "dBASPL", 0.02), ("dBASPL", "atm", 120),
        ("st", "oz", 11.5), ("deg", "rad", 90), ("mcg", "ng", 0.3),
    ]

    @Test("value → other unit → back is lossless within 1e-9", arguments: roundTrips)
    func roundTrip(_ from: String, _ to: String, _ value: Double) throws {
        let forward = try unit(from).converter(to: unit(to))
        let backward = try unit(to).converter(to: unit(from))
        let there = forward.convert(value)
        #expect(there != value)
        #expect(isClose(backward.convert(there), value, relative: 1e-9))
    }

    @Test("blood glucose: mg/dL ↔ mmol<180.15588>/L")
    func glucose() throws {
        let mgdL = try unit("mg/dL")
        let mmolL = try unit("mmol<180.15588>/L")
        #expect(mgdL.isCompatible(with: mmolL))
        #expect(abs(try mgdL.convert(100, to: mmolL) - 5.5507) < 1e-4)
        #expect(isClose(try mgdL.convert(100, to: mmolL), 1000 / 180.15588))
        #expect(isClose(try mmolL.convert(5.5, to: mgdL), 5.5 * 18.015588))
        #expect(isClose(try mgdL.convert(100, to: .millimolesGlucosePerLiter), 1000 / 180.1558800000541))
        #expect(isClose(try convert(1, "mmol<180.15588>", "mg"), 180.15588))
        // Different molar masses are different units.
        #expect(try unit("mmol<180.15588>/L") != unit("mmol<180.1558800000541>/L"))
        #expect(try unit("mmol<180.15588>/L") == unit("mmol<180.155880>/L"))
        // Without a molar mass, mmol is an amount, not a mass.
        let error = healthError { _ = try HealthUnit("mmol/L").converter(to: HealthUnit("mg/dL")) }
        #expect(error?.code == .invalidUnit)
        #expect(error?.message.contains("molar mass") == true)
        #expect(try unit("mol").isCompatible(with: .gram) == false)
    }

    @Test("temperature: 37 degC = 98.6 degF = 310.15 K")
    func temperature() throws {
        #expect(isClose(try convert(37, "degC", "degF"), 98.6))
        #expect(isClose(try convert(37, "degC", "K"), 310.15))
        #expect(isClose(try convert(98.6, "degF", "degC"), 37))
        #expect(isClose(try convert(98.6, "degF", "K"), 310.15))
        #expect(isClose(try convert(310.15, "K", "degC"), 37))
        #expect(isClose(try convert(310.15, "K", "degF"), 98.6))
        #expect(isClose(try convert(-40, "degC", "degF"), -40))
        #expect(try convert(0, "K", "degC") == -273.15)
        #expect(try convert(0, "K", "degF") == -459.67)
        #expect(try convert(0, "degC", "K") == 273.15)
        #expect(isClose(try convert(310_150, "mK", "degC"), 37))
        // The formula degF = 1.8·K − 459.67, applied exactly.
        for kelvin in [0.0, 1, 255.3722, 273.15, 300, 373.15] {
            #expect(try convert(kelvin, "K", "degF") == 1.8 * kelvin - 459.67)
            #expect(try convert(kelvin, "K", "degC") == kelvin - 273.15)
        }
    }

    @Test("dBASPL: 20·log10(p / 20 µPa)")
    func soundPressure() throws {
        #expect(abs(try convert(94, "dBASPL", "Pa") - 1.0024) < 1e-4)
        #expect(isClose(try convert(94, "dBASPL", "Pa"), 2e-5 * pow(10, 94.0 / 20)))
        #expect(try convert(2e-5, "Pa", "dBASPL") == 0)
        #expect(isClose(try convert(1, "Pa", "dBASPL"), 20 * log10(1 / 2e-5)))
        #expect(isClose(try convert(0, "dBASPL", "Pa"), 2e-5))
        #expect(isClose(try convert(94, "dBASPL", "mPa"), 1000 * 2e-5 * pow(10, 94.0 / 20)))
        #expect(isClose(try convert(1, "kPa", "dBASPL"), 20 * log10(1000 / 2e-5)))
        #expect(try convert(70, "dBASPL", "dBASPL") == 70)
        #expect(try unit("dBASPL").isCompatible(with: unit("mmHg")))
        #expect(try unit("dBASPL").isCompatible(with: unit("dBHL")) == false)
    }

    @Test("% and count are compatible with factor 1")
    func percent() throws {
        #expect(try unit("%").isCompatible(with: .count))
        #expect(try convert(0.97, "%", "count") == 0.97)
        #expect(try convert(0.97, "count", "%") == 0.97)
        #expect(try unit("%") != .count)
    }

    @Test("converters are precomputed values")
    func converters() throws {
        #expect(UnitConverter.identity.convert(42.5) == 42.5)
        #expect(try unit("kg").converter(to: unit("kg")) == .identity)
        #expect(try unit("kg/m").converter(to: unit("kg.m^-1")).isIdentity)
        #expect(try unit("kcal").converter(to: unit("Cal")).isIdentity)
        #expect(try unit("kg").converter(to: unit("g")) == unit("Mg").converter(to: unit("kg")))
        #expect(try unit("kg").converter(to: unit("g")).isIdentity == false)
        #expect(try unit("kg").converter(to: unit("g")).convert(1.5) == 1500)
        #expect(try unit("lb").converter(to: .gram).convert(1) == 453.59237)
    }

    @Test(
        "incompatible units throw .invalidUnit",
        arguments: [
            ("kg", "mL", "mass and volume"), ("count", "s", "time"), ("IU", "mg", "international units"),
            ("dBHL", "dBASPL", "hearing level"), ("appleEffortScore", "count", "effort score"),
            ("mol", "g", "amount of substance"), ("Hz", "s", "frequency and time"),
        ]
    )
    func incompatible(_ from: String, _ to: String, _ fragment: String) throws {
        let error = healthError { _ = try HealthUnit(from).converter(to: HealthUnit(to)) }
        #expect(error?.code == .invalidUnit)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
        #expect(try unit(from).isCompatible(with: unit(to)) == false)
    }

    @Test("the incompatibility message names both units and dimensions")
    func incompatibleMessage() throws {
        let error = healthError { _ = try HealthUnit("kg").convert(1, to: HealthUnit("mL")) }
        #expect(error?.message == "cannot convert 'kg' to 'mL': mass and volume are not compatible")
    }
}

// MARK: - Invalid strings

@Suite("HealthUnit invalid strings")
struct HealthUnitInvalidTests {
    @Test(
        "malformed unit strings throw .invalidUnit with a message naming the problem",
        arguments: [
            ("", "empty"),
            ("   ", "empty"),
            ("kg//m", "missing unit between '/' and '/'"),
            ("kg/m/s", "more than one '/'"),
            ("foo", "unknown unit 'foo'"),
            ("kgs/m", "unknown unit 'kgs' in 'kgs/m'"),
            ("Kg", "unknown unit 'Kg'"),
            ("m^x", "invalid exponent 'x'"),
            ("m^", "missing exponent"),
            ("m^0", "exponent 0"),
            ("m^1000", "out of range"),
            ("m^2^3", "unexpected '^'"),
            ("degC/min", "'degC' is a temperature with an offset"),
            ("degF^2", "'degF'"),
            ("K.degC", "'degC'"),
            ("dBASPL.m", "'dBASPL' is a logarithmic level"),
            ("kg.", "dangling '.'"),
            ("kg/", "dangling '/'"),
            ("/kg", "missing unit before '/'"),
            ("*kg", "missing unit before '*'"),
            ("kg..m", "missing unit between '.' and '.'"),
            ("(kg", "missing ')'"),
            ("kg)", "unbalanced ')'"),
            ("()", "missing unit between '(' and ')'"),
            ("kg(m)", "unexpected '('"),
            ("k g", "space"),
            ("mol<abc>", "invalid molar mass 'abc'"),
            ("mol<-5>", "invalid molar mass '-5'"),
            ("mmol<180/L", "missing '>'"),
            ("g<180>", "may only follow 'mol'"),
            ("mmol<180>x", "after the molar mass"),
            ("1", "unknown unit '1'"),
            ("bpm", "did you mean 'count/min'"),
            ("KG", "did you mean 'kg'"),
            ("mcal", "unknown unit 'mcal'"),
            ("kmin", "unknown unit 'kmin'"),
            ("%%", "unknown unit '%%'"),
        ]
    )
    func invalid(_ string: String, _ fragment: String) {
        let error = healthError { _ = try HealthUnit(string) }
        #expect(error?.code == .invalidUnit)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
        let cachedError = healthError { _ = try HealthUnit.parse(string) }
        #expect(cachedError == error)
    }

    @Test("the degC/min message suggests kelvin")
    func affineMessage() {
        let error = healthError { _ = try HealthUnit("degC/min") }
        #expect(error?.message.contains("'K/min'") == true)
        #expect(error?.message.contains("'degC/min'") == true)
    }

    @Test("a long string is rejected before parsing")
    func tooLong() {
        let string = Array(repeating: "m", count: 200).joined(separator: ".")
        #expect(healthError { _ = try HealthUnit(string) }?.message.contains("too long") == true)
    }
}

// MARK: - Cache

@Suite("HealthUnit parse cache")
struct HealthUnitCacheTests {
    @Test("parse returns the same unit as init")
    func parseMatchesInit() throws {
        for string in ["count/min", "mL/min\u{B7}kg", "mmol<180.1558800000541>/L", "degC", "dBASPL"] {
            let cached = try HealthUnit.parse(string)
            #expect(cached == (try HealthUnit(string)))
            #expect(cached.description == (try HealthUnit(string)).description)
            #expect(try HealthUnit.parse(string).storage === cached.storage)  // second call is a cache hit
        }
    }

    @Test("parse is safe from many tasks at once")
    func concurrentParse() async throws {
        let strings = ["count/min", "kg", "mg/dL", "kcal/hr.kg", "degF", "mL/min*kg", "km/hr", "%"]
        let descriptions = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<16 {
                group.addTask {
                    var seen: [String] = []
                    for i in 0..<500 {
                        seen.append(try HealthUnit.parse(strings[(i + task) % strings.count]).description)
                    }
                    return seen
                }
            }
            var all: [String] = []
            for try await seen in group { all += seen }
            return all
        }
        #expect(descriptions.count == 16 * 500)
        #expect(Set(descriptions) == Set(try strings.map { try HealthUnit($0).description }))
    }
}
