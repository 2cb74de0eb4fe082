import Foundation
import HealthModel
import HealthService
import Logging

/// Console output: aligned tables for people, JSON for machines.
enum Output {
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder.wire
        encoder.outputFormatting.insert(.prettyPrinted)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(date))
        }
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints rows under a header, each column as wide as its widest cell; numbers right-aligned.
    static func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return isNumeric(cell) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        print(line(header))
        print(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
        for row in rows { print(line(row)) }
    }

    static func isNumeric(_ cell: String) -> Bool {
        guard let first = cell.first else { return false }
        return (first.isNumber || first == "-" || first == "+") && cell.allSatisfy { $0.isNumber || ".,-+%:".contains($0) }
    }

    /// A number with thousands separators; `decimals` nil picks 0 for large values and up to 2 for small ones.
    static func number(_ value: Double?, decimals: Int? = 0) -> String {
        guard let value, value.isFinite else { return "—" }
        let places = decimals ?? (abs(value) >= 1000 || value.rounded() == value ? 0 : (abs(value) >= 100 ? 1 : 2))
        let text = String(format: "%.\(places)f", value)
        let parts = text.split(separator: ".", maxSplits: 1)
        var integer = String(parts[0])
        let negative = integer.hasPrefix("-")
        if negative { integer.removeFirst() }
        var grouped = ""
        for (index, character) in integer.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        let result = (negative ? "-" : "") + String(grouped.reversed())
        return parts.count > 1 ? result + "." + parts[1] : result
    }

    static func minutes(_ value: Double) -> String {
        let total = Int(value.rounded())
        return "\(total / 60)h\(String(format: "%02d", total % 60))"
    }

    static func date(_ date: Date?, _ zone: TimeZone) -> String {
        guard let date else { return "—" }
        let iso = ISO8601.string(date, timeZone: zone)
        return String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    static func stderr(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Library logs go to stderr, at warning level unless HEALTHBRIDGE_LOG_LEVEL says otherwise.
enum CLILog {
    static let logger: Logger = {
        var logger = Logger(label: "healthbridge") { label in StreamLogHandler.standardError(label: label) }
        let level = ProcessInfo.processInfo.environment["HEALTHBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .warning
        return logger
    }()
}
