import Foundation
import HealthAPI

/// Samples as CSV (RFC 4180), safe to open in a spreadsheet: a text cell that a spreadsheet would read as a formula
/// (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`, so a source name such as
/// `=HYPERLINK(…)` shows as text instead of running. Numbers are written by us and never neutralised.
public enum SampleCSV {
    public static let header = "type,start,end,value,unit,category,source"

    public static func encode(_ samples: [ExportSample]) -> String {
        var lines = [header]
        lines.reserveCapacity(samples.count + 1)
        for sample in samples {
            lines.append([cell(sample.type), cell(sample.dateISO), cell(sample.endDateISO), number(sample.value),
                          cell(sample.unit), cell(sample.category), cell(sample.source)].joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection").
    static let formulaTriggers: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// One text cell: neutralised, then quoted when it holds a separator, a quote or a line break.
    public static func cell(_ text: String?) -> String {
        guard var text else { return "" }
        if let first = text.first, formulaTriggers.contains(first) { text = "'" + text }
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }

    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
