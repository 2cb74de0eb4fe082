import Foundation
import HealthModel

/// The pieces every text rendering of a result is made of — one number format, one duration format, one table — so
/// the CLI and MCP print the same figures the same way.
///
/// ```swift
/// TextFormat.number(12345.0)            // "12,345"
/// TextFormat.number(72.0, decimals: 1)  // "72"   (no spurious .0)
/// TextFormat.number(72.46, decimals: 1) // "72.5"
/// TextFormat.minutes(432)               // "7h12"
/// ```
package enum TextFormat {
    /// `12,345` / `72.4`: grouped thousands, at most `decimals` decimals, trailing zeros dropped; `decimals` nil picks
    /// 0 from 1,000 up, 1 from 100 up and 2 below; `—` for no value.
    package static func number(_ value: Double?, decimals: Int? = 0) -> String {
        guard let value, value.isFinite else { return "—" }
        let decimals = max(0, decimals ?? (abs(value) >= 1000 ? 0 : abs(value) >= 100 ? 1 : 2))
        let scale = pow(10.0, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        let negative = rounded < 0
        let magnitude = abs(rounded)
        guard magnitude < 1e15 else { return String(value) }
        let whole = Int(magnitude.rounded(.down))
        var digits = String(whole)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        grouped = digits + grouped
        var fraction = ""
        if decimals > 0 {
            let part = Int(((magnitude - Double(whole)) * scale).rounded())
            if part > 0 {
                var text = String(part)
                while text.count < decimals { text = "0" + text }
                while text.hasSuffix("0") { text.removeLast() }
                fraction = "." + text
            }
        }
        return (negative ? "-" : "") + grouped + fraction
    }

    /// `7h12` from minutes; `—` for no value.
    package static func minutes(_ value: Double?) -> String {
        guard let value, value.isFinite, abs(value) < 1e12 else { return "—" }
        let total = value.clampedInt()
        let sign = total < 0 ? "-" : ""
        let magnitude = abs(total)
        let m = magnitude % 60
        return "\(sign)\(magnitude / 60)h\(m < 10 ? "0" : "")\(m)"
    }

    /// `2024-05-07 13:57` from an ISO instant of a result (already in the result's zone).
    package static func local(_ iso: String?) -> String {
        guard let iso else { return "—" }
        return String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// `13:57` from an ISO instant of a result.
    package static func localClock(_ iso: String?) -> String {
        guard let iso, iso.count >= 16 else { return "—" }
        return String(iso.dropFirst(11).prefix(5))
    }

    /// `2024-05-07` from an ISO instant of a result.
    package static func localDay(_ iso: String) -> String { String(iso.prefix(10)) }

    /// `2024-05-07 13:57` in `zone`.
    package static func time(_ date: Date?, _ zone: TimeZone) -> String {
        guard let date else { return "—" }
        return String(ISO8601.string(date, timeZone: zone).prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// `13:57` in `zone`.
    package static func clock(_ date: Date?, _ zone: TimeZone) -> String {
        guard let date else { return "—" }
        return String(ISO8601.string(date, timeZone: zone).dropFirst(11).prefix(5))
    }

    /// `2024-05-07` in `zone`.
    package static func day(_ date: Date, _ zone: TimeZone) -> String { ISO8601.dateString(date, timeZone: zone) }

    /// The span between two instants, `2024-05-01 00:00 → 2024-05-07 14:03`.
    package static func span(_ start: Date, _ end: Date, _ zone: TimeZone) -> String {
        "\(time(start, zone)) → \(time(end, zone))"
    }

    /// Rows under a header and a rule, each column as wide as its widest cell; cells that start with a digit
    /// (numbers, durations, values with a unit) right-aligned.
    ///
    /// ```swift
    /// TextFormat.table(["day", "steps"], [["2024-05-01", "8,412"]])
    /// // day         steps
    /// // ──────────  ─────
    /// // 2024-05-01  8,412
    /// ```
    package static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                if index > 0 { text += "  " }
                let pad = String(repeating: " ", count: max(0, (index < widths.count ? widths[index] : 0) - cell.count))
                text += isNumeric(cell) ? pad + cell : cell + pad
            }
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// Whether a table cell reads as a figure: it starts with a digit, or a sign and a digit.
    package static func isNumeric(_ cell: String) -> Bool {
        guard let first = cell.first else { return false }
        if first.isNumber { return true }
        return (first == "-" || first == "+") && cell.dropFirst().first?.isNumber == true
    }
}
