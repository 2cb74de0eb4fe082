import Foundation
import FuzzSupport
import HealthModel
@testable import HealthImport

/// The unit parser and converter, the ISO-8601 and range parsers, the time-zone lookup and the export's date parser,
/// over arbitrary text: errors are fine, crashes are not.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    let parts = text.split(separator: "|", maxSplits: 1).map(String.init)
    let zone = TimeZone(identifier: "Europe/Paris") ?? .current
    if let unit = try? HealthUnit(parts.first ?? text) {
        _ = unit.description
        if parts.count > 1, let other = try? HealthUnit(parts[1]) {
            _ = try? unit.convert(1.5, to: other)
        }
    }
    _ = ISO8601.date(text)
    _ = try? DateExpression.parse(text, now: Date(timeIntervalSince1970: 1_767_225_600), timeZone: zone)
    _ = try? DateExpression.timeZone(text)
    bytes.withUnsafeBytes { raw in _ = ExportDate.parse(raw) }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
