import Foundation

// The unit catalog: base dimensions, SI prefixes, prefixable SI units and HealthKit's named units.
//
// Every unit is modelled as a scale relative to "SI-ish" bases (g, m, s, K, A, cd, rad, mol, IU, dBHL and the Apple
// effort score) plus integer exponents over those base dimensions. A scale is stored twice, as `scale` (base units per
// one unit) and `inverse` (units per one base unit), both written from the definition, so that a conversion factor is
// a single product `from.scale * to.inverse` and conversions such as K → degF use the exact constant 1.8 rather than
// `1 / (1 / 1.8)`.

// MARK: - UnitDimension

/// Integer exponents over the base dimensions a unit is made of.
struct UnitDimension: Hashable, Sendable {
    /// The base dimensions, in the order of ``exponents``.
    enum Base: Int, CaseIterable, Sendable {
        case mass, length, time, temperature, current, luminousIntensity, angle, amount
        case internationalUnit, hearingLevel, effortScore

        var name: String {
            switch self {
            case .mass: "mass"
            case .length: "length"
            case .time: "time"
            case .temperature: "temperature"
            case .current: "electric current"
            case .luminousIntensity: "luminous intensity"
            case .angle: "angle"
            case .amount: "amount of substance"
            case .internationalUnit: "international units"
            case .hearingLevel: "hearing level"
            case .effortScore: "effort score"
            }
        }
    }

    var exponents: SIMD16<Int32>

    init(exponents: SIMD16<Int32>) {
        self.exponents = exponents
    }

    init(
        mass: Int32 = 0, length: Int32 = 0, time: Int32 = 0, temperature: Int32 = 0, current: Int32 = 0,
        luminousIntensity: Int32 = 0, angle: Int32 = 0, amount: Int32 = 0, internationalUnit: Int32 = 0,
        hearingLevel: Int32 = 0, effortScore: Int32 = 0
    ) {
        var e = SIMD16<Int32>(repeating: 0)
        e[Base.mass.rawValue] = mass
        e[Base.length.rawValue] = length
        e[Base.time.rawValue] = time
        e[Base.temperature.rawValue] = temperature
        e[Base.current.rawValue] = current
        e[Base.luminousIntensity.rawValue] = luminousIntensity
        e[Base.angle.rawValue] = angle
        e[Base.amount.rawValue] = amount
        e[Base.internationalUnit.rawValue] = internationalUnit
        e[Base.hearingLevel.rawValue] = hearingLevel
        e[Base.effortScore.rawValue] = effortScore
        self.exponents = e
    }

    static let dimensionless = UnitDimension()
    static let mass = UnitDimension(mass: 1)
    static let length = UnitDimension(length: 1)
    static let volume = UnitDimension(length: 3)
    static let time = UnitDimension(time: 1)
    static let temperature = UnitDimension(temperature: 1)
    static let pressure = UnitDimension(mass: 1, length: -1, time: -2)
    static let energy = UnitDimension(mass: 1, length: 2, time: -2)
    static let power = UnitDimension(mass: 1, length: 2, time: -3)

    /// The dimension of a product: exponents add up.
    static func + (lhs: UnitDimension, rhs: UnitDimension) -> UnitDimension {
        UnitDimension(exponents: lhs.exponents &+ rhs.exponents)
    }

    /// The dimension of a unit raised to a power.
    func raised(to power: Int) -> UnitDimension {
        UnitDimension(exponents: exponents &* SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: power)))
    }

    /// A human name for error messages: "mass", "volume", "pressure", or a formula such as "mass·length^-1".
    var name: String {
        if let known = UnitDimension.names[self] { return known }
        var parts: [String] = []
        for base in Base.allCases {
            let e = exponents[base.rawValue]
            if e == 0 { continue }
            parts.append(e == 1 ? base.name : "\(base.name)^\(e)")
        }
        return parts.joined(separator: "\u{B7}")
    }

    private static let names: [UnitDimension: String] = [
        .dimensionless: "count (dimensionless)",
        .mass: "mass",
        .length: "length",
        UnitDimension(length: 2): "area",
        .volume: "volume",
        .time: "time",
        UnitDimension(time: -1): "frequency",
        .temperature: "temperature",
        .pressure: "pressure",
        .energy: "energy",
        .power: "power",
        UnitDimension(length: 1, time: -1): "speed",
        UnitDimension(length: 1, time: -2): "acceleration",
        UnitDimension(mass: 1, length: 2, time: -3, current: -1): "electric potential",
        UnitDimension(mass: -1, length: -2, time: 3, current: 2): "electrical conductance",
        UnitDimension(length: -2, luminousIntensity: 1): "illuminance",
        UnitDimension(current: 1): "electric current",
        UnitDimension(luminousIntensity: 1): "luminous intensity",
        UnitDimension(angle: 1): "angle",
        UnitDimension(amount: 1): "amount of substance",
        UnitDimension(internationalUnit: 1): "international units",
        UnitDimension(hearingLevel: 1): "hearing level",
        UnitDimension(effortScore: 1): "effort score",
        UnitDimension(mass: 1, length: -3): "mass concentration",
        UnitDimension(length: -3, amount: 1): "molar concentration",
        UnitDimension(length: 3, time: -1): "volume flow",
        UnitDimension(mass: -1, length: 3, time: -1): "volume per time per mass",
        UnitDimension(length: 2, time: -3): "power per mass",
        UnitDimension(length: 2, time: -2): "energy per mass",
    ]
}

// MARK: - Prefixes and base units

/// An SI prefix, e.g. `k` (10³) or `mc` (10⁻⁶).
struct UnitPrefix: Sendable {
    /// The printed form (`mc` for micro, as HealthKit prints it).
    let symbol: String
    let scale: Double
    let inverse: Double

    static let deca = UnitPrefix(symbol: "da", scale: 1e1, inverse: 1e-1)
    static let hecto = UnitPrefix(symbol: "h", scale: 1e2, inverse: 1e-2)
    static let kilo = UnitPrefix(symbol: "k", scale: 1e3, inverse: 1e-3)
    static let mega = UnitPrefix(symbol: "M", scale: 1e6, inverse: 1e-6)
    static let giga = UnitPrefix(symbol: "G", scale: 1e9, inverse: 1e-9)
    static let tera = UnitPrefix(symbol: "T", scale: 1e12, inverse: 1e-12)
    static let deci = UnitPrefix(symbol: "d", scale: 1e-1, inverse: 1e1)
    static let centi = UnitPrefix(symbol: "c", scale: 1e-2, inverse: 1e2)
    static let milli = UnitPrefix(symbol: "m", scale: 1e-3, inverse: 1e3)
    static let micro = UnitPrefix(symbol: "mc", scale: 1e-6, inverse: 1e6)
    static let nano = UnitPrefix(symbol: "n", scale: 1e-9, inverse: 1e9)
    static let pico = UnitPrefix(symbol: "p", scale: 1e-12, inverse: 1e12)
    static let femto = UnitPrefix(symbol: "f", scale: 1e-15, inverse: 1e15)

    static let all: [UnitPrefix] = [deca, hecto, kilo, mega, giga, tera, deci, centi, milli, micro, nano, pico, femto]

    /// Accepted spellings, two-letter ones first so that `da` and `mc` win over `d` and `m`.
    static let spellings: [(spelling: String, prefix: UnitPrefix)] = [
        ("da", deca), ("mc", micro), ("\u{B5}", micro), ("\u{3BC}", micro),
        ("h", hecto), ("k", kilo), ("M", mega), ("G", giga), ("T", tera),
        ("d", deci), ("c", centi), ("m", milli), ("n", nano), ("p", pico), ("f", femto),
    ]
}

/// An SI unit that accepts a prefix.
struct BaseUnit: Sendable {
    let symbol: String
    let dimension: UnitDimension
    let scale: Double
    let inverse: Double

    init(_ symbol: String, _ dimension: UnitDimension, scale: Double = 1, inverse: Double = 1) {
        self.symbol = symbol
        self.dimension = dimension
        self.scale = scale
        self.inverse = inverse
    }

    static let gram = BaseUnit("g", .mass)
    static let meter = BaseUnit("m", .length)
    /// 1 L = 10⁻³ m³.
    static let liter = BaseUnit("L", .volume, scale: 1e-3, inverse: 1e3)
    /// 1 Pa = 1 kg·m⁻¹·s⁻² = 1000 g·m⁻¹·s⁻².
    static let pascal = BaseUnit("Pa", .pressure, scale: 1e3, inverse: 1e-3)
    static let second = BaseUnit("s", .time)
    /// 1 J = 1 kg·m²·s⁻² = 1000 g·m²·s⁻².
    static let joule = BaseUnit("J", .energy, scale: 1e3, inverse: 1e-3)
    static let kelvin = BaseUnit("K", .temperature)
    /// 1 S = 1 A/V = 1 A²·s³·kg⁻¹·m⁻².
    static let siemens = BaseUnit("S", UnitDimension(mass: -1, length: -2, time: 3, current: 2), scale: 1e-3, inverse: 1e3)
    static let hertz = BaseUnit("Hz", UnitDimension(time: -1))
    /// 1 V = 1 W/A.
    static let volt = BaseUnit("V", UnitDimension(mass: 1, length: 2, time: -3, current: -1), scale: 1e3, inverse: 1e-3)
    static let watt = BaseUnit("W", .power, scale: 1e3, inverse: 1e-3)
    static let radian = BaseUnit("rad", UnitDimension(angle: 1))
    /// 1 lx = 1 cd·sr·m⁻² (the steradian is dimensionless).
    static let lux = BaseUnit("lx", UnitDimension(length: -2, luminousIntensity: 1))
    /// Without a molar mass, `mol` is an amount of substance; with one (`mol<M>`) it is a mass of M grams.
    static let mole = BaseUnit("mol", UnitDimension(amount: 1))

    static let all: [BaseUnit] = [gram, meter, liter, pascal, second, joule, kelvin, siemens, hertz, volt, watt, radian, lux, mole]

    /// Accepted spellings: the printed symbols, plus `l` for the liter.
    static let bySpelling: [String: BaseUnit] = {
        var table: [String: BaseUnit] = [:]
        for unit in all { table[unit.symbol] = unit }
        table["l"] = liter
        return table
    }()
}

// MARK: - Atoms

/// One symbol of a unit string, with its prefix resolved: `kg`, `mmol<180.15588>`, `fl_oz_us`, `degC`.
struct UnitAtom: Sendable {
    enum Kind: Sendable, Equatable {
        /// value × scale is in base units.
        case linear
        /// (value + offset) × scale is in kelvin; only valid alone.
        case affine(offset: Double)
        /// A logarithmic sound pressure level (dBASPL); only valid alone.
        case level
    }

    /// The canonical printed form, also the identity of the atom (`µg` and `mcg` are both `mcg`, `l` is `L`).
    let symbol: String
    let dimension: UnitDimension
    let scale: Double
    let inverse: Double
    let kind: Kind

    init(_ symbol: String, _ dimension: UnitDimension, scale: Double = 1, inverse: Double = 1, kind: Kind = .linear) {
        self.symbol = symbol
        self.dimension = dimension
        self.scale = scale
        self.inverse = inverse
        self.kind = kind
    }

    /// A prefixed (or plain) SI unit, e.g. `kg`, `mL`, `hPa`.
    init(_ base: BaseUnit, prefix: UnitPrefix? = nil) {
        guard let prefix else {
            self.init(base.symbol, base.dimension, scale: base.scale, inverse: base.inverse)
            return
        }
        self.init(
            prefix.symbol + base.symbol, base.dimension,
            scale: prefix.scale * base.scale, inverse: prefix.inverse * base.inverse
        )
    }

    /// A mole of a substance of molar mass `molarMass` g/mol, a mass: 1 mmol<180.15588> = 0.18015588 g.
    static func mole(prefix: UnitPrefix?, molarMass: Double) -> UnitAtom {
        let p = prefix ?? UnitPrefix(symbol: "", scale: 1, inverse: 1)
        return UnitAtom(
            p.symbol + "mol<" + formatMolarMass(molarMass) + ">", .mass,
            scale: p.scale * molarMass, inverse: p.inverse / molarMass
        )
    }

    /// The shortest text that parses back to the same `Double`; integral values print without `.0`.
    static func formatMolarMass(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return "\(value)"
    }

    private static func mass(_ symbol: String, grams: Double) -> UnitAtom {
        UnitAtom(symbol, .mass, scale: grams, inverse: 1 / grams)
    }

    private static func length(_ symbol: String, meters: Double) -> UnitAtom {
        UnitAtom(symbol, .length, scale: meters, inverse: 1 / meters)
    }

    private static func pressure(_ symbol: String, pascals: Double) -> UnitAtom {
        UnitAtom(symbol, .pressure, scale: pascals * 1e3, inverse: 1e-3 / pascals)
    }

    private static func volume(_ symbol: String, liters: Double) -> UnitAtom {
        UnitAtom(symbol, .volume, scale: liters * 1e-3, inverse: 1e3 / liters)
    }

    private static func time(_ symbol: String, seconds: Double) -> UnitAtom {
        UnitAtom(symbol, .time, scale: seconds, inverse: 1 / seconds)
    }

    private static func energy(_ symbol: String, joules: Double) -> UnitAtom {
        UnitAtom(symbol, .energy, scale: joules * 1e3, inverse: 1e-3 / joules)
    }

    static let ounce = mass("oz", grams: 28.349523125)
    static let pound = mass("lb", grams: 453.59237)
    static let stone = mass("st", grams: 6350.29318)
    static let inch = length("in", meters: 0.0254)
    static let foot = length("ft", meters: 0.3048)
    static let yard = length("yd", meters: 0.9144)
    static let mile = length("mi", meters: 1609.344)
    static let millimeterOfMercury = pressure("mmHg", pascals: 133.3224)
    static let centimeterOfWater = pressure("cmAq", pascals: 98.0665)
    static let atmosphere = pressure("atm", pascals: 101_325)
    static let inchOfMercury = pressure("inHg", pascals: 3386.38816)
    static let fluidOunceUS = volume("fl_oz_us", liters: 0.0295735295625)
    static let fluidOunceImperial = volume("fl_oz_imp", liters: 0.0284130625)
    static let pintUS = volume("pt_us", liters: 0.473176473)
    static let pintImperial = volume("pt_imp", liters: 0.56826125)
    static let cupUS = volume("cup_us", liters: 0.2365882365)
    static let cupImperial = volume("cup_imp", liters: 0.284130625)
    static let minute = time("min", seconds: 60)
    static let hour = time("hr", seconds: 3600)
    static let day = time("d", seconds: 86_400)
    static let smallCalorie = energy("cal", joules: 4.184)
    static let kilocalorie = energy("kcal", joules: 4184)
    static let largeCalorie = energy("Cal", joules: 4184)
    static let degreeAngle = UnitAtom("deg", UnitDimension(angle: 1), scale: Double.pi / 180, inverse: 180 / Double.pi)
    /// K = degC + 273.15.
    static let degreeCelsius = UnitAtom("degC", .temperature, kind: .affine(offset: 273.15))
    /// degF = 1.8·K − 459.67, so K = (degF + 459.67) / 1.8.
    static let degreeFahrenheit = UnitAtom(
        "degF", .temperature, scale: 1 / 1.8, inverse: 1.8, kind: .affine(offset: 459.67)
    )
    /// dBASPL = 20·log10(p / 20 µPa).
    static let decibelASPL = UnitAtom("dBASPL", .pressure, kind: .level)
    static let decibelHearingLevel = UnitAtom("dBHL", UnitDimension(hearingLevel: 1))
    static let internationalUnit = UnitAtom("IU", UnitDimension(internationalUnit: 1))
    static let count = UnitAtom("count", .dimensionless)
    /// A fraction: 0.97 is 97 %, so `%` converts to `count` with factor 1, as HealthKit stores percentages.
    static let percent = UnitAtom("%", .dimensionless)
    static let appleEffortScore = UnitAtom("appleEffortScore", UnitDimension(effortScore: 1))

    /// Units that take no prefix, looked up before any prefix split so that `min`, `mi`, `mmHg`, `cmAq`, `cal`,
    /// `dBASPL` and `d` (day) are never read as prefix + unit.
    static let named: [String: UnitAtom] = {
        let units: [UnitAtom] = [
            ounce, pound, stone, inch, foot, yard, mile,
            millimeterOfMercury, centimeterOfWater, atmosphere, inchOfMercury,
            fluidOunceUS, fluidOunceImperial, pintUS, pintImperial, cupUS, cupImperial,
            minute, hour, day, smallCalorie, kilocalorie, largeCalorie, degreeAngle,
            degreeCelsius, degreeFahrenheit, decibelASPL, decibelHearingLevel, internationalUnit,
            count, percent, appleEffortScore,
        ]
        var table: [String: UnitAtom] = [:]
        for unit in units { table[unit.symbol] = unit }
        return table
    }()
}

// MARK: - Lookup

enum UnitCatalog {
    /// Resolves a symbol without a molar mass: a named unit, a plain SI unit, or a prefix followed by an SI unit.
    static func atom(named name: String) -> UnitAtom? {
        if let atom = UnitAtom.named[name] { return atom }
        if let base = BaseUnit.bySpelling[name] { return UnitAtom(base) }
        for (spelling, prefix) in UnitPrefix.spellings where name.hasPrefix(spelling) {
            if let base = BaseUnit.bySpelling[String(name.dropFirst(spelling.count))] {
                return UnitAtom(base, prefix: prefix)
            }
        }
        return nil
    }

    /// Resolves `[prefix]mol` followed by a molar mass, e.g. `mmol` with 180.15588.
    static func moleAtom(named name: String, molarMass: Double) -> UnitAtom? {
        if name == "mol" { return .mole(prefix: nil, molarMass: molarMass) }
        for (spelling, prefix) in UnitPrefix.spellings where name.hasPrefix(spelling) {
            if name.dropFirst(spelling.count) == "mol" { return .mole(prefix: prefix, molarMass: molarMass) }
        }
        return nil
    }

    /// Spellings that are not units but that people write, with the unit they most likely mean.
    private static let aliases: [String: String] = [
        "bpm": "count/min", "steps": "count", "step": "count", "percent": "%",
        "sec": "s", "secs": "s", "h": "hr", "hrs": "hr", "hour": "hr", "hours": "hr",
        "mins": "min", "minute": "min", "minutes": "min", "day": "d", "days": "d",
        "kgs": "kg", "lbs": "lb", "gram": "g", "grams": "g", "liter": "L", "litre": "L",
        "C": "degC", "\u{B0}C": "degC", "F": "degF", "\u{B0}F": "degF", "celsius": "degC", "fahrenheit": "degF",
        "kCal": "kcal", "dB": "dBASPL", "ui": "IU",
    ]

    /// Every printed symbol the catalog knows, indexed by its lowercase form, for "did you mean" hints.
    private static let byLowercase: [String: [String]] = {
        var symbols = Array(UnitAtom.named.keys)
        for base in BaseUnit.all {
            symbols.append(base.symbol)
            for prefix in UnitPrefix.all { symbols.append(prefix.symbol + base.symbol) }
        }
        var table: [String: [String]] = [:]
        for symbol in symbols.sorted() { table[symbol.lowercased(), default: []].append(symbol) }
        return table
    }()

    /// Up to three known spellings close to an unknown one: an alias, or a case-insensitive match.
    static func suggestions(for name: String) -> [String] {
        if let alias = aliases[name] { return [alias] }
        let matches = byLowercase[name.lowercased()] ?? []
        return Array(matches.filter { $0 != name }.prefix(3))
    }
}
