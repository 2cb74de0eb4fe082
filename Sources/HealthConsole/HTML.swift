import Foundation

/// A piece of HTML. Written as a string literal with interpolations: interpolated `String`s are escaped, interpolated
/// `HTML` is inserted as is, so text from the store or a request can never become markup.
///
/// ```swift
/// let name = "<script>"
/// let cell: HTML = "<td>\(name)</td>"   // <td>&lt;script&gt;</td>
/// ```
public struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var text: String

    /// Markup taken as is (only for text this module wrote).
    init(raw: String) { text = raw }

    public init(stringLiteral value: String) { text = value }

    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    public var description: String { text }

    public static let empty = HTML(raw: "")

    /// The pieces one after the other.
    public static func join(_ pieces: [HTML], separator: String = "") -> HTML {
        HTML(raw: pieces.map(\.text).joined(separator: separator))
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation(_ value: String) { HTML.escape(value, into: &text) }
        public mutating func appendInterpolation(_ value: String?) { HTML.escape(value ?? "", into: &text) }
        public mutating func appendInterpolation(_ value: HTML) { text += value.text }
        public mutating func appendInterpolation(_ values: [HTML]) { for value in values { text += value.text } }
        public mutating func appendInterpolation(_ value: Int) { text += String(value) }
        public mutating func appendInterpolation(_ value: Int64) { text += String(value) }
    }

    /// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attribute values.
    public static func escape(_ value: String) -> String {
        var out = ""
        escape(value, into: &out)
        return out
    }

    static func escape(_ value: String, into out: inout String) {
        guard value.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else {
            out += value
            return
        }
        for character in value.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
    }
}

/// Numbers as the console shows them: thousands grouped, at most `digits` decimals.
enum Figure {
    static func format(_ value: Double, digits: Int = 1) -> String {
        // Beyond 1e15 a Double has no whole digits left to group (and an Int none to hold them): shown as Swift
        // writes it, never converted.
        guard value.isFinite else { return "–" }
        guard abs(value) < 1e15 else { return String(value) }
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : digits
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (magnitude * scale).rounded() / scale
        let whole = Int(rounded)
        var groups: [String] = []
        var rest = whole
        repeat {
            let part = rest % 1000
            rest /= 1000
            groups.insert(rest > 0 ? String(format: "%03d", part) : String(part), at: 0)
        } while rest > 0
        var text = groups.joined(separator: ",")
        if decimals > 0 {
            let fraction = Int(((rounded - Double(whole)) * scale).rounded())
            if fraction > 0 {
                var digitsText = String(fraction)
                while digitsText.count < decimals { digitsText = "0" + digitsText }
                while digitsText.hasSuffix("0") { digitsText.removeLast() }
                text += "." + digitsText
            }
        }
        return (value < 0 && rounded > 0 ? "−" : "") + text
    }
}
