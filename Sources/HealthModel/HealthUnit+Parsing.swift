import Foundation

/// One symbol raised to a power, as written in a unit string.
struct UnitFactor: Sendable {
    var atom: UnitAtom
    var exponent: Int
}

/// A recursive-descent parser for HealthKit unit strings.
///
/// Grammar (`·` stands for any of `.`, `*`, `·` U+00B7 and `⋅` U+22C5):
///
///     quotient := ("1" | product) ("/" product)?
///     product  := factor ("·" factor)*
///     factor   := (symbol | "(" quotient ")") ("^" integer)?
///     symbol   := [prefix] name | [prefix] "mol<" molar-mass ">"
///
/// A single `/` divides everything after it: `kcal/hr·kg` is kcal·hr⁻¹·kg⁻¹. A second `/` at the same level is an
/// error rather than a guess.
struct UnitParser {
    /// Longer unit strings are rejected: no real unit needs them, and they would only fill the parse cache.
    static let maximumLength = 256
    /// The largest exponent magnitude accepted after `^`.
    static let maximumExponent = 64
    private static let maximumDepth = 8

    private let source: String
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0

    init(_ string: String) {
        self.source = string
        self.scalars = Array(string.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars)
    }

    /// Parses the whole string into factors as written (not merged), negating the denominator's exponents.
    mutating func parse() throws(HealthError) -> [UnitFactor] {
        if scalars.isEmpty {
            throw HealthError(.invalidUnit, "empty unit string; expected a unit such as 'kg', 'count/min' or 'mL/min\u{B7}kg'")
        }
        if scalars.count > Self.maximumLength {
            throw HealthError(.invalidUnit, "unit string of \(scalars.count) characters is too long (at most \(Self.maximumLength))")
        }
        let factors = try parseQuotient()
        if let c = peek {
            if c == ")" { throw fail("unbalanced ')' in '\(source)'") }
            throw fail("unexpected '\(c)' at position \(index + 1) in '\(source)'")
        }
        return factors
    }

    // MARK: Grammar

    private mutating func parseQuotient() throws(HealthError) -> [UnitFactor] {
        var factors: [UnitFactor]
        if peek == "1", index + 1 < scalars.count, scalars[index + 1] == "/" {
            index += 1  // `1/s`: an empty numerator.
            factors = []
        } else {
            factors = try parseProduct()
        }
        guard peek == "/" else { return factors }
        index += 1
        let denominator = try parseProduct()
        if peek == "/" {
            var message = "more than one '/' in '\(source)': everything after the first '/' is already divided"
            if depth == 0 { message += "; write '\(suggestSingleSlash())'" }
            throw fail(message)
        }
        for var factor in denominator {
            factor.exponent = -factor.exponent
            factors.append(factor)
        }
        return factors
    }

    private mutating func parseProduct() throws(HealthError) -> [UnitFactor] {
        var factors = try parseFactor()
        while let c = peek, Self.isMultiplication(c) {
            index += 1
            factors += try parseFactor()
        }
        return factors
    }

    private mutating func parseFactor() throws(HealthError) -> [UnitFactor] {
        guard let c = peek, !Self.isOperator(c) || c == "(" else { throw missingUnit() }
        var factors: [UnitFactor]
        if c == "(" {
            guard depth < Self.maximumDepth else { throw fail("too many nested parentheses in '\(source)'") }
            index += 1
            depth += 1
            factors = try parseQuotient()
            guard peek == ")" else {
                if let other = peek { throw fail("unexpected '\(other)' at position \(index + 1) in '\(source)'") }
                throw fail("missing ')' in '\(source)'")
            }
            index += 1
            depth -= 1
        } else {
            factors = [UnitFactor(atom: try parseSymbol(), exponent: 1)]
        }
        if peek == "^" {
            index += 1
            let exponent = try parseExponent()
            for i in factors.indices { factors[i].exponent *= exponent }
        }
        return factors
    }

    private mutating func parseSymbol() throws(HealthError) -> UnitAtom {
        let start = index
        var molarMassRange: Range<Int>?
        while let c = peek, !Self.isOperator(c) {
            if c.properties.isWhitespace {
                throw fail("unexpected space in '\(source)'; unit strings contain no spaces, as in 'mL/min\u{B7}kg'")
            }
            if c == "<", molarMassRange == nil {
                guard let close = scalars[index...].firstIndex(of: ">") else {
                    throw fail("missing '>' after the molar mass in '\(source)'")
                }
                molarMassRange = (index + 1)..<close
                index = close + 1
                continue
            }
            index += 1
        }
        guard let range = molarMassRange else {
            let name = text(start..<index)
            guard let atom = UnitCatalog.atom(named: name) else { throw unknownUnit(name) }
            return atom
        }
        let name = text(start..<(range.lowerBound - 1))
        let molarMassText = text(range)
        if range.upperBound + 1 < index {
            throw fail("unexpected '\(text((range.upperBound + 1)..<index))' after the molar mass in '\(source)'")
        }
        guard name.hasSuffix("mol") else {
            throw fail("a molar mass '<\(molarMassText)>' may only follow 'mol', as in 'mmol<180.15588>/L', not '\(name)' in '\(source)'")
        }
        guard let molarMass = Double(molarMassText), molarMass.isFinite, molarMass > 0 else {
            throw fail("invalid molar mass '\(molarMassText)' in '\(source)': expected a positive number of g/mol, as in 'mmol<180.15588>'")
        }
        guard let atom = UnitCatalog.moleAtom(named: name, molarMass: molarMass) else { throw unknownUnit(name) }
        return atom
    }

    private mutating func parseExponent() throws(HealthError) -> Int {
        let start = index
        while let c = peek, !Self.isOperator(c) { index += 1 }
        let token = text(start..<index)
        if token.isEmpty {
            throw fail("missing exponent after '^' in '\(source)'; expected a whole number such as 'm^2' or 'm^-1'")
        }
        guard let exponent = Int(token.replacingOccurrences(of: "\u{2212}", with: "-")) else {
            throw fail("invalid exponent '\(token)' in '\(source)': expected a whole number such as 'm^2' or 'm^-1'")
        }
        if exponent == 0 {
            throw fail("exponent 0 in '\(source)' is not allowed; leave the unit out instead")
        }
        if abs(exponent) > Self.maximumExponent {
            throw fail("exponent \(exponent) in '\(source)' is out of range (at most \(Self.maximumExponent))")
        }
        return exponent
    }

    // MARK: Helpers

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private static func isMultiplication(_ c: Unicode.Scalar) -> Bool {
        c == "." || c == "*" || c == "\u{B7}" || c == "\u{22C5}"
    }

    private static func isOperator(_ c: Unicode.Scalar) -> Bool {
        isMultiplication(c) || c == "/" || c == "^" || c == "(" || c == ")"
    }

    private func text(_ range: Range<Int>) -> String {
        var string = ""
        string.unicodeScalars.append(contentsOf: scalars[range])
        return string
    }

    private func fail(_ message: String) -> HealthError {
        HealthError(.invalidUnit, message)
    }

    /// The error for an operator (or the end) where a unit was expected, naming the operators around the gap.
    private func missingUnit() -> HealthError {
        let before: Unicode.Scalar? = index > 0 ? scalars[index - 1] : nil
        switch (before, peek) {
        case (nil, let next?):
            return fail("missing unit before '\(next)' in '\(source)'")
        case (let previous?, nil):
            return fail("dangling '\(previous)' at the end of '\(source)'; expected a unit after it")
        case (let previous?, let next?):
            return fail("missing unit between '\(previous)' and '\(next)' in '\(source)'")
        case (nil, nil):
            return fail("empty unit string")
        }
    }

    private func unknownUnit(_ name: String) -> HealthError {
        var message = name == source ? "unknown unit '\(name)'" : "unknown unit '\(name)' in '\(source)'"
        let suggestions = UnitCatalog.suggestions(for: name)
        if !suggestions.isEmpty {
            message += "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?"
            if suggestions.contains(where: { $0.lowercased() == name.lowercased() }) {
                message += " (unit symbols are case-sensitive)"
            }
        }
        return fail(message)
    }

    /// `kg/m/s` → `kg/m·s`: every `/` after the first becomes `·`.
    private func suggestSingleSlash() -> String {
        var seenSlash = false
        var result = ""
        for c in scalars {
            if c == "/" {
                result.unicodeScalars.append(seenSlash ? "\u{B7}" : "/")
                seenSlash = true
            } else {
                result.unicodeScalars.append(c)
            }
        }
        return result
    }
}
