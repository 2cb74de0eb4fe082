import Foundation
import HealthModel

/// The dates of Health Auto Export payloads: `yyyy-MM-dd HH:mm:ss Z` (`2024-02-06 14:30:00 -0800`), the 12-hour
/// variant the app writes under a 12-hour locale (`2024-02-06 2:30:00 PM -0800`, with a narrow no-break space —
/// U+202F — or a plain space before AM/PM), ISO 8601 (`2024-02-06T14:30:00-08:00`), and a bare day (`2024-02-06`,
/// midnight at the offset given).
///
/// ```swift
/// let date = HAEDate.parse("2024-02-06 2:30:00\u{202F}PM -0800")
/// date?.offset   // -28800
/// ```
public struct HAEDate: Sendable, Hashable {
    /// Seconds since 1970 (UTC).
    public var seconds: Double
    /// The offset from UTC written with the date, in seconds.
    public var offset: Int

    public var date: Date { Date(timeIntervalSince1970: seconds) }

    public init(seconds: Double, offset: Int) { self.seconds = seconds; self.offset = offset }

    /// Parses any of the accepted forms; nil for anything else. `dayOffset` is the offset of a bare day.
    public static func parse(_ text: String, dayOffset: Int = 0) -> HAEDate? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0), dayOffset: dayOffset) }
    }

    /// Parses the UTF-8 bytes of a date (a JSON string's, in place: no `String` is built).
    static func parse(_ bytes: UnsafeRawBufferPointer, dayOffset: Int = 0) -> HAEDate? {
        // Normalise the narrow no-break space (E2 80 AF) and the no-break space (C2 A0) to a space.
        if bytes.contains(where: { $0 >= 0x80 }) {
            var cleaned: [UInt8] = []
            cleaned.reserveCapacity(bytes.count)
            var i = 0
            while i < bytes.count {
                if i + 2 < bytes.count, bytes[i] == 0xE2, bytes[i + 1] == 0x80, bytes[i + 2] == 0xAF {
                    cleaned.append(0x20); i += 3
                } else if i + 1 < bytes.count, bytes[i] == 0xC2, bytes[i + 1] == 0xA0 {
                    cleaned.append(0x20); i += 2
                } else {
                    cleaned.append(bytes[i]); i += 1
                }
            }
            return cleaned.withUnsafeBytes { parseASCII($0, dayOffset: dayOffset) }
        }
        return parseASCII(bytes, dayOffset: dayOffset)
    }

    /// The parse once the no-break spaces are spaces.
    private static func parseASCII(_ bytes: UnsafeRawBufferPointer, dayOffset: Int) -> HAEDate? {
        var scanner = Scanner(bytes: bytes)
        guard let year = scanner.digits(4), scanner.take(UInt8(ascii: "-")), let month = scanner.digits(2),
              scanner.take(UInt8(ascii: "-")), let day = scanner.digits(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        scanner.skipSpaces()
        if scanner.atEnd {
            return HAEDate(seconds: Double(daysFromCivil(year, month, day) * 86_400 - dayOffset), offset: dayOffset)
        }
        _ = scanner.take(UInt8(ascii: "T"))
        guard var hour = scanner.digits(1...2), scanner.take(UInt8(ascii: ":")), let minute = scanner.digits(2),
              minute < 60 else { return nil }
        var second = 0.0
        if scanner.take(UInt8(ascii: ":")) {
            guard let whole = scanner.digits(2), whole < 61 else { return nil }
            second = Double(whole)
            if scanner.take(UInt8(ascii: ".")) {
                var scale = 0.1
                while let digit = scanner.digits(1) { second += Double(digit) * scale; scale /= 10 }
            }
        }
        scanner.skipSpaces()
        if let meridiem = scanner.meridiem() {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == .pm ? 12 : 0)
            scanner.skipSpaces()
        }
        guard hour < 24 else { return nil }
        guard let offset = scanner.offset() else { return nil }
        scanner.skipSpaces()
        guard scanner.atEnd else { return nil }
        let seconds = Double(daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return HAEDate(seconds: seconds, offset: offset)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        ISO8601.daysFromCivil(year, month, day)
    }

    enum Meridiem { case am, pm }

    struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var i = 0
        var atEnd: Bool { i >= bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        mutating func skipSpaces() { while i < bytes.count, bytes[i] == 0x20 { i += 1 } }

        mutating func digits(_ count: Int) -> Int? { digits(count...count) }

        mutating func digits(_ counts: ClosedRange<Int>) -> Int? {
            var value = 0, n = 0
            while n < counts.upperBound, i < bytes.count, (0x30...0x39).contains(bytes[i]) {
                value = value * 10 + Int(bytes[i] - 0x30)
                i += 1; n += 1
            }
            return counts.contains(n) ? value : nil
        }

        mutating func meridiem() -> Meridiem? {
            guard i + 1 < bytes.count, bytes[i + 1] | 0x20 == UInt8(ascii: "m") else { return nil }
            let first = bytes[i] | 0x20
            let result: Meridiem? = first == UInt8(ascii: "a") ? .am : first == UInt8(ascii: "p") ? .pm : nil
            if result != nil { i += 2 }
            return result
        }

        /// `+0100`, `-08:00`, `Z`, `UTC`/`GMT`; a missing offset is UTC.
        mutating func offset() -> Int? {
            guard i < bytes.count else { return 0 }
            if take(UInt8(ascii: "Z")) { return 0 }
            if i + 2 < bytes.count, (bytes[i] == UInt8(ascii: "U") || bytes[i] == UInt8(ascii: "G")) {
                i += 3
                if i >= bytes.count { return 0 }
            }
            let sign: Int
            if take(UInt8(ascii: "+")) { sign = 1 } else if take(UInt8(ascii: "-")) { sign = -1 } else { return nil }
            guard let hours = digits(2) else { return nil }
            _ = take(UInt8(ascii: ":"))
            let minutes = digits(2) ?? 0
            guard hours <= 14, minutes < 60 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
