import Foundation
import HealthModel

/// ISO-8601 instants as the server writes them.
///
/// ```swift
/// let date = HealthBridgeDates.parse("2026-11-25T08:00:00Z")
/// ```
public enum HealthBridgeDates {
    /// An instant with a zone, fractional seconds allowed; nil when malformed.
    public static func parse(_ text: String) -> Date? { ISO8601.date(text) }

    /// The instant in UTC, to the second (what the kit sends).
    public static func string(_ date: Date) -> String { ISO8601.string(wholeSecond(date)) }

    /// The date without its fraction of a second: how the kit writes dates, so dates read back compare equal.
    public static func wholeSecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
