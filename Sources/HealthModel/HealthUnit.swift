import Foundation
import Synchronization

/// A unit of measure written as a HealthKit (`HKUnit`) unit string: `count/min`, `mL/min·kg`, `mg/dL`, `degC`.
///
/// A unit is parsed once into symbols with integer powers. It knows its dimension, so it can tell which units it is
/// compatible with and build a ``UnitConverter`` to any of them:
///
/// ```swift
/// let glucose = try HealthUnit("mg/dL")
/// let molar = try HealthUnit("mmol<180.1558800000541>/L")
/// try glucose.convert(100, to: molar)                          // 5.5507…
/// try HealthUnit("kcal/hr.kg").description                     // "kcal/hr·kg"
/// try HealthUnit("degC").convert(37, to: HealthUnit("degF"))   // 98.6
/// ```
///
/// The grammar follows HKUnit: SI units (`g m L Pa s J K S Hz V W rad lx mol`) take the prefixes
/// `da h k M G T d c m mc n p f` (`µ` is accepted for `mc`); `.`, `*` or `·` multiply; a single `/` divides everything
/// after it; `^` raises to an integer power; `mol<M>` is a mole of a substance of molar mass M g/mol (a mass).
/// Symbols are case-sensitive: `Cal` is a kilocalorie, `cal` a small calorie.
///
/// Two units are equal when they are made of the same symbols with the same powers, in any order:
/// `kg.m^-1` == `kg/m`, but `kg` != `g` and `kcal` != `Cal` (they are only compatible). Affine units (`degC`, `degF`)
/// and the logarithmic `dBASPL` are valid only alone.
///
/// Parsing is not free: hot paths should call ``parse(_:)``, which caches.
public struct HealthUnit: Sendable, Hashable, CustomStringConvertible {
    let storage: Storage

    /// Parses an HKUnit unit string.
    ///
    /// ```swift
    /// let vo2max = try HealthUnit("mL/min·kg")
    /// let glucose = try HealthUnit("mmol<180.1558800000541>/L")
    /// _ = try HealthUnit("kgs/m")   // throws: unknown unit 'kgs' in 'kgs/m'
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` with a message that says what is wrong and where.
    public init(_ string: String) throws(HealthError) {
        var parser = UnitParser(string)
        try self.init(factors: parser.parse(), source: string)
    }

    /// Parses a unit string, through a process-wide, thread-safe cache. Same result as ``init(_:)``.
    ///
    /// ```swift
    /// let bpm = try HealthUnit.parse("count/min")
    /// ```
    public static func parse(_ string: String) throws(HealthError) -> HealthUnit {
        if let cached = cache.withLock({ $0[string] }) { return cached }
        let unit = try HealthUnit(string)
        cache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[string] = unit
        }
        return unit
    }

    /// HKUnit's printed form: numerator symbols joined by `·`, then `/` and the denominator symbols joined by `·`.
    ///
    /// ```swift
    /// try HealthUnit("kg/m.s^2").description    // "kg/m·s^2"
    /// try HealthUnit("mL/min*kg").description   // "mL/min·kg"
    /// try HealthUnit("1/s").description         // "s^-1"
    /// ```
    ///
    /// The form parses back to an equal unit.
    public var description: String { storage.description }

    /// Whether values can be converted between the two units (they have the same dimension).
    ///
    /// ```swift
    /// try HealthUnit("count/min").isCompatible(with: HealthUnit("Hz"))   // true
    /// try HealthUnit("kg").isCompatible(with: HealthUnit("mL"))          // false
    /// ```
    public func isCompatible(with other: HealthUnit) -> Bool {
        storage.dimension == other.storage.dimension
    }

    /// A precomputed conversion from this unit to `other`, cheap to apply to many values.
    ///
    /// ```swift
    /// let toPounds = try HealthUnit("kg").converter(to: HealthUnit("lb"))
    /// let pounds = masses.map(toPounds.convert)
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` when the units are not compatible, e.g.
    ///   `cannot convert 'kg' to 'mL': mass and volume are not compatible`.
    public func converter(to other: HealthUnit) throws(HealthError) -> UnitConverter {
        if storage === other.storage || self == other { return .identity }
        let from = storage
        let to = other.storage
        guard from.dimension == to.dimension else {
            throw HealthError(.invalidUnit, Self.incompatibilityMessage(from: self, to: other))
        }
        switch (from.kind, to.kind) {
        case (.level, .level):
            return .identity
        case (.level, _):
            // Pa per level reference, then target units per pascal.
            return UnitConverter(kind: .fromLevel(BaseUnit.pascal.scale * to.inverse))
        case (_, .level):
            return UnitConverter(kind: .toLevel(from.scale * BaseUnit.pascal.inverse))
        default:
            let factor = from.scale * to.inverse
            let pre = from.kind.offset
            let post = -to.kind.offset
            if pre == 0, post == 0 {
                return factor == 1 ? .identity : UnitConverter(kind: .linear(factor))
            }
            return UnitConverter(kind: .affine(pre: pre, factor: factor, post: post))
        }
    }

    /// Converts one value from this unit to `other`.
    ///
    /// ```swift
    /// try HealthUnit("mg/dL").convert(100, to: HealthUnit("mmol<180.15588>/L"))   // 5.5507…
    /// try HealthUnit("Pa").convert(1, to: HealthUnit("dBASPL"))                   // 93.979…
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` when the units are not compatible.
    public func convert(_ value: Double, to other: HealthUnit) throws(HealthError) -> Double {
        try converter(to: other).convert(value)
    }

    public static func == (lhs: HealthUnit, rhs: HealthUnit) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.canonical == rhs.storage.canonical
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.canonical)
    }

    // MARK: Internals

    private static let cacheLimit = 4096
    private static let cache = Mutex<[String: HealthUnit]>([:])

    /// Validates, merges repeated symbols and precomputes everything conversions and printing need.
    ///
    /// `source` is only used in error messages.
    init(factors written: [UnitFactor], source: String) throws(HealthError) {
        if let special = written.first(where: { $0.atom.kind != .linear }),
            written.count != 1 || written[0].exponent != 1
        {
            let symbol = special.atom.symbol
            switch special.atom.kind {
            case .level:
                throw HealthError(
                    .invalidUnit,
                    "'\(symbol)' is a logarithmic level and can only be used alone, not in '\(source)'; use 'Pa' in products and ratios"
                )
            default:
                throw HealthError(
                    .invalidUnit,
                    "'\(symbol)' is a temperature with an offset and can only be used alone, not in '\(source)'; use 'K' in products and ratios, as in 'K/min'"
                )
            }
        }
        // Merge repeated symbols (m.m → m^2), keeping the position of the first occurrence.
        var merged: [UnitFactor] = []
        for factor in written {
            if let i = merged.firstIndex(where: { $0.atom.symbol == factor.atom.symbol }) {
                merged[i].exponent += factor.exponent
            } else {
                merged.append(factor)
            }
        }
        merged.removeAll { $0.exponent == 0 }
        if merged.isEmpty { merged = [UnitFactor(atom: .count, exponent: 1)] }  // m/m is a pure number.
        if let tooLarge = merged.first(where: { abs($0.exponent) > UnitParser.maximumExponent }) {
            throw HealthError(
                .invalidUnit,
                "exponent \(tooLarge.exponent) of '\(tooLarge.atom.symbol)' in '\(source)' is out of range (at most \(UnitParser.maximumExponent))"
            )
        }
        self.storage = Storage(merged)
    }

    static func incompatibilityMessage(from: HealthUnit, to: HealthUnit) -> String {
        let a = from.storage.dimension
        let b = to.storage.dimension
        var message = "cannot convert '\(from)' to '\(to)': \(a.name) and \(b.name) are not compatible"
        let massForAmount = UnitDimension(mass: 1, amount: -1).exponents
        let difference = a.exponents &- b.exponents
        if difference == massForAmount || difference == (0 &- massForAmount) {
            message += "; give the molar mass in g/mol, as in 'mmol<180.15588>/L'"
        }
        return message
    }
}

extension HealthUnit {
    /// The immutable parsed form, shared by copies of a unit.
    final class Storage: Sendable {
        /// How values of the unit relate to base units.
        enum Kind: Sendable, Equatable {
            case linear
            /// `degC` or `degF` alone: (value + offset) × scale is in kelvin.
            case affine(offset: Double)
            /// `dBASPL` alone.
            case level

            var offset: Double {
                if case .affine(let offset) = self { return offset }
                return 0
            }
        }

        /// A symbol and its power: the key of equality and hashing.
        struct CanonicalFactor: Hashable, Sendable, Comparable {
            let symbol: String
            let exponent: Int

            static func < (lhs: CanonicalFactor, rhs: CanonicalFactor) -> Bool {
                (lhs.symbol, lhs.exponent) < (rhs.symbol, rhs.exponent)
            }
        }

        /// Merged factors, in the order written.
        let factors: [UnitFactor]
        /// The factors sorted by symbol.
        let canonical: [CanonicalFactor]
        let dimension: UnitDimension
        /// Base units per one unit.
        let scale: Double
        /// Units per one base unit.
        let inverse: Double
        let kind: Kind
        let description: String

        /// `factors` must be merged, non-empty, and contain an affine or level atom only alone.
        init(_ factors: [UnitFactor]) {
            self.factors = factors
            self.canonical = factors.map { CanonicalFactor(symbol: $0.atom.symbol, exponent: $0.exponent) }.sorted()
            var dimension = UnitDimension.dimensionless
            var scale = 1.0
            var inverse = 1.0
            for factor in factors {
                let atom = factor.atom
                dimension = dimension + atom.dimension.raised(to: factor.exponent)
                // Repeated products rather than pow(): exact for powers of ±1 and as close as pow() otherwise.
                let (up, down) = factor.exponent > 0 ? (atom.scale, atom.inverse) : (atom.inverse, atom.scale)
                for _ in 0..<abs(factor.exponent) {
                    scale *= up
                    inverse *= down
                }
            }
            self.dimension = dimension
            self.scale = scale
            self.inverse = inverse
            if factors.count == 1, factors[0].exponent == 1 {
                switch factors[0].atom.kind {
                case .linear: self.kind = .linear
                case .affine(let offset): self.kind = .affine(offset: offset)
                case .level: self.kind = .level
                }
            } else {
                self.kind = .linear
            }
            self.description = Self.format(factors)
        }

        /// `kg/m·s^2`; `s^-1·m^-2` when nothing is in the numerator.
        private static func format(_ factors: [UnitFactor]) -> String {
            func symbol(_ factor: UnitFactor, exponent: Int) -> String {
                exponent == 1 ? factor.atom.symbol : "\(factor.atom.symbol)^\(exponent)"
            }
            let numerator = factors.filter { $0.exponent > 0 }
            let denominator = factors.filter { $0.exponent < 0 }
            if numerator.isEmpty {
                return denominator.map { symbol($0, exponent: $0.exponent) }.joined(separator: "\u{B7}")
            }
            var text = numerator.map { symbol($0, exponent: $0.exponent) }.joined(separator: "\u{B7}")
            if !denominator.isEmpty {
                text += "/" + denominator.map { symbol($0, exponent: -$0.exponent) }.joined(separator: "\u{B7}")
            }
            return text
        }
    }

    /// A unit made of catalog atoms, for the constants below (cannot fail).
    init(_ factors: (UnitAtom, Int)...) {
        self.storage = Storage(factors.map { UnitFactor(atom: $0.0, exponent: $0.1) })
    }
}

// MARK: - Algebra

extension HealthUnit {
    /// The product of two units, as HKUnit's `unitMultiplied(by:)`.
    ///
    /// ```swift
    /// try HealthUnit("kcal").multiplied(by: HealthUnit("hr^-1"))   // kcal/hr
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` when either unit is affine (`degC`) or logarithmic (`dBASPL`).
    public func multiplied(by other: HealthUnit) throws(HealthError) -> HealthUnit {
        try HealthUnit(factors: storage.factors + other.storage.factors, source: "(\(self))\u{B7}(\(other))")
    }

    /// The quotient of two units, as HKUnit's `unitDivided(by:)`.
    ///
    /// ```swift
    /// try HealthUnit("mL").divided(by: HealthUnit("min·kg"))   // mL/min·kg
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` when either unit is affine (`degC`) or logarithmic (`dBASPL`).
    public func divided(by other: HealthUnit) throws(HealthError) -> HealthUnit {
        try multiplied(by: other.reciprocal())
    }

    /// The unit raised to an integer power, as HKUnit's `unitRaised(toPower:)`.
    ///
    /// ```swift
    /// try HealthUnit("m").raised(toPower: 2)   // m^2
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` for a power of 0, a power out of range, or an affine or logarithmic
    ///   unit.
    public func raised(toPower power: Int) throws(HealthError) -> HealthUnit {
        if power == 0 { throw HealthError(.invalidUnit, "cannot raise '\(self)' to the power 0") }
        guard abs(power) <= UnitParser.maximumExponent else {
            throw HealthError(.invalidUnit, "power \(power) is out of range (at most \(UnitParser.maximumExponent))")
        }
        let factors = storage.factors.map { UnitFactor(atom: $0.atom, exponent: $0.exponent * power) }
        return try HealthUnit(factors: factors, source: "(\(self))^\(power)")
    }

    /// The reciprocal unit, as HKUnit's `reciprocal()`.
    ///
    /// ```swift
    /// try HealthUnit("min").reciprocal()   // min^-1
    /// ```
    ///
    /// - Throws: `HealthError(.invalidUnit, …)` for an affine or logarithmic unit.
    public func reciprocal() throws(HealthError) -> HealthUnit {
        try raised(toPower: -1)
    }
}

// MARK: - Codable

extension HealthUnit: Codable {
    /// Decodes a unit string, e.g. `"count/min"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            self = try HealthUnit.parse(string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the unit as its ``description``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

// MARK: - Common units

extension HealthUnit {
    /// `count`: steps, flights, heartbeats (dimensionless).
    public static let count = HealthUnit((.count, 1))
    /// `%`: a fraction, 0.97 meaning 97 %, as HealthKit stores oxygen saturation and body fat.
    public static let percent = HealthUnit((.percent, 1))
    /// `count/min`: heart rate, respiratory rate.
    public static let countPerMinute = HealthUnit((.count, 1), (.minute, -1))

    public static let gram = HealthUnit((UnitAtom(.gram), 1))
    public static let kilogram = HealthUnit((UnitAtom(.gram, prefix: .kilo), 1))
    public static let milligram = HealthUnit((UnitAtom(.gram, prefix: .milli), 1))
    /// `mcg`.
    public static let microgram = HealthUnit((UnitAtom(.gram, prefix: .micro), 1))
    public static let pound = HealthUnit((.pound, 1))
    public static let ounce = HealthUnit((.ounce, 1))
    public static let stone = HealthUnit((.stone, 1))

    public static let meter = HealthUnit((UnitAtom(.meter), 1))
    public static let centimeter = HealthUnit((UnitAtom(.meter, prefix: .centi), 1))
    public static let kilometer = HealthUnit((UnitAtom(.meter, prefix: .kilo), 1))
    public static let inch = HealthUnit((.inch, 1))
    public static let foot = HealthUnit((.foot, 1))
    public static let yard = HealthUnit((.yard, 1))
    public static let mile = HealthUnit((.mile, 1))

    public static let liter = HealthUnit((UnitAtom(.liter), 1))
    public static let milliliter = HealthUnit((UnitAtom(.liter, prefix: .milli), 1))
    public static let fluidOunceUS = HealthUnit((.fluidOunceUS, 1))
    public static let fluidOunceImperial = HealthUnit((.fluidOunceImperial, 1))
    public static let cupUS = HealthUnit((.cupUS, 1))
    public static let pintUS = HealthUnit((.pintUS, 1))

    public static let second = HealthUnit((UnitAtom(.second), 1))
    public static let millisecond = HealthUnit((UnitAtom(.second, prefix: .milli), 1))
    public static let minute = HealthUnit((.minute, 1))
    public static let hour = HealthUnit((.hour, 1))
    public static let day = HealthUnit((.day, 1))

    public static let joule = HealthUnit((UnitAtom(.joule), 1))
    public static let kilojoule = HealthUnit((UnitAtom(.joule, prefix: .kilo), 1))
    /// `kcal`, what HealthKit reports active and basal energy in.
    public static let kilocalorie = HealthUnit((.kilocalorie, 1))
    /// `Cal`, the food calorie (= 1 kcal).
    public static let largeCalorie = HealthUnit((.largeCalorie, 1))
    /// `cal` (= 1/1000 kcal).
    public static let smallCalorie = HealthUnit((.smallCalorie, 1))

    public static let kelvin = HealthUnit((UnitAtom(.kelvin), 1))
    public static let degreeCelsius = HealthUnit((.degreeCelsius, 1))
    public static let degreeFahrenheit = HealthUnit((.degreeFahrenheit, 1))

    public static let pascal = HealthUnit((UnitAtom(.pascal), 1))
    public static let millimeterOfMercury = HealthUnit((.millimeterOfMercury, 1))
    public static let centimeterOfWater = HealthUnit((.centimeterOfWater, 1))
    public static let atmosphere = HealthUnit((.atmosphere, 1))
    public static let inchesOfMercury = HealthUnit((.inchOfMercury, 1))
    /// `dBASPL`: sound pressure level (headphone and environmental audio exposure).
    public static let decibelASPL = HealthUnit((.decibelASPL, 1))
    /// `dBHL`: hearing level (audiograms).
    public static let decibelHearingLevel = HealthUnit((.decibelHearingLevel, 1))

    public static let hertz = HealthUnit((UnitAtom(.hertz), 1))
    public static let volt = HealthUnit((UnitAtom(.volt), 1))
    public static let watt = HealthUnit((UnitAtom(.watt), 1))
    public static let siemens = HealthUnit((UnitAtom(.siemens), 1))
    public static let microsiemens = HealthUnit((UnitAtom(.siemens, prefix: .micro), 1))
    public static let radian = HealthUnit((UnitAtom(.radian), 1))
    public static let degreeAngle = HealthUnit((.degreeAngle, 1))
    public static let lux = HealthUnit((UnitAtom(.lux), 1))
    public static let internationalUnit = HealthUnit((.internationalUnit, 1))
    public static let appleEffortScore = HealthUnit((.appleEffortScore, 1))

    /// `m/s`: walking and running speed.
    public static let meterPerSecond = HealthUnit((UnitAtom(.meter), 1), (UnitAtom(.second), -1))
    /// `mg/dL`: blood glucose as reported in the US.
    public static let milligramPerDeciliter = HealthUnit(
        (UnitAtom(.gram, prefix: .milli), 1), (UnitAtom(.liter, prefix: .deci), -1)
    )
    /// `mmol<180.1558800000541>/L`: blood glucose in mmol/L, with glucose's molar mass as HealthKit writes it.
    public static let millimolesGlucosePerLiter = HealthUnit(
        (.mole(prefix: .milli, molarMass: 180.1558800000541), 1), (UnitAtom(.liter), -1)
    )
    /// `mL/min·kg`: VO₂ max.
    public static let milliliterPerMinuteKilogram = HealthUnit(
        (UnitAtom(.liter, prefix: .milli), 1), (.minute, -1), (UnitAtom(.gram, prefix: .kilo), -1)
    )
    /// `kcal/hr·kg`: METs.
    public static let kilocaloriePerHourKilogram = HealthUnit(
        (.kilocalorie, 1), (.hour, -1), (UnitAtom(.gram, prefix: .kilo), -1)
    )
}

// MARK: - Converter

/// ``UnitConverter`` under a name that Foundation does not also declare.
///
/// Foundation has a class `UnitConverter` too, so in a file that imports both Foundation and HealthModel the bare
/// name is ambiguous where a type is expected (`var table: [Int64: UnitConverter]`). Write `HealthUnitConverter` or
/// `HealthModel.UnitConverter` there; expressions such as `UnitConverter.identity` resolve without help.
///
/// ```swift
/// var converters: [Int64: HealthUnitConverter] = [:]
/// ```
public typealias HealthUnitConverter = UnitConverter

/// A precomputed conversion between two compatible units, cheap to apply in a loop: no allocation, no lookup,
/// one to three floating-point operations (plus a `log10` or `pow` for `dBASPL`).
///
/// ```swift
/// let converter = try HealthUnit("degC").converter(to: HealthUnit("degF"))
/// converter.convert(37)   // 98.6
/// ```
public struct UnitConverter: Sendable, Hashable {
    @usableFromInline
    enum Kind: Sendable, Hashable {
        /// value × factor.
        case linear(Double)
        /// (value + pre) × factor + post: temperatures with an offset.
        case affine(pre: Double, factor: Double, post: Double)
        /// 20·log10(value × factor / 20 µPa), where factor converts to pascals.
        case toLevel(Double)
        /// 20 µPa × 10^(value / 20) × factor, where factor converts from pascals.
        case fromLevel(Double)
    }

    @usableFromInline
    let kind: Kind

    @usableFromInline
    init(kind: Kind) {
        self.kind = kind
    }

    /// The reference sound pressure of dBASPL: 20 µPa.
    @usableFromInline
    static var referencePressure: Double { 2e-5 }

    /// The conversion that returns its input.
    public static let identity = UnitConverter(kind: .linear(1))

    /// Converts one value.
    ///
    /// ```swift
    /// let toGrams = try HealthUnit("lb").converter(to: .gram)
    /// toGrams.convert(1)   // 453.59237
    /// ```
    @inlinable
    public func convert(_ value: Double) -> Double {
        switch kind {
        case .linear(let factor):
            return value * factor
        case .affine(let pre, let factor, let post):
            return (value + pre) * factor + post
        case .toLevel(let factor):
            return 20 * log10(value * factor / UnitConverter.referencePressure)
        case .fromLevel(let factor):
            return UnitConverter.referencePressure * pow(10, value / 20) * factor
        }
    }

    /// Whether the conversion returns its input unchanged.
    public var isIdentity: Bool { kind == .linear(1) }
}
