import Foundation
import HealthModel

/// A range of instants, `[start, end)`, resolved from what a person or an agent typed. The one place dates of a
/// request are read, for every interface.
///
/// Each bound is a ``DateExpression`` in the request's time zone: an ISO date (`2024-05-01`, the start of that day),
/// an instant (`2024-05-01T08:00:00Z`), `now`, `today`, `yesterday`, or a span back from now (`7d` is the last seven
/// days including today, from midnight; `12h`, `2w`, `3mo`, `1y`).
///
/// The rules, the same everywhere:
/// - a missing start is the use case's default (documented on each request), a missing end is now;
/// - the end is exclusive: `--from 2024-05-01 --to 2024-05-08` is seven whole days, and a bare date as the end means
///   the start of that day;
/// - an end equal to the start is an empty range (no data, not an error);
/// - an end before the start is `HEALTH_INVALID_RANGE`, naming both.
///
/// ```swift
/// let week = try DateRange.resolve(start: "7d", end: nil, defaultStart: "7d", now: .now, timeZone: zone)
/// ```
public struct DateRange: Sendable, Hashable, Codable {
    public var start: Date
    public var end: Date

    /// A range; `HEALTH_INVALID_RANGE` when `end` is before `start`.
    public init(start: Date, end: Date) throws(HealthError) {
        guard end >= start else {
            throw HealthError(.invalidRange,
                              "the end (\(ISO8601.string(end))) is before the start (\(ISO8601.string(start))); give a start before the end, or leave the end out for now")
        }
        self.start = start
        self.end = end
    }

    /// Resolves `start` and `end` expressions in `timeZone` (see the rules above).
    public static func resolve(start: String?, end: String?, defaultStart: String, now: Date,
                               timeZone: TimeZone) throws(HealthError) -> DateRange {
        func parse(_ name: String, _ text: String) throws(HealthError) -> Date {
            do {
                return try DateExpression.parse(text, now: now, timeZone: timeZone)
            } catch {
                throw HealthError(error.code, "\(name): \(error.message)", argument: name)
            }
        }
        let from = try parse("start", nonEmpty(start) ?? defaultStart)
        let to = try nonEmpty(end).map { text throws(HealthError) in try parse("end", text) } ?? now
        guard to >= from else {
            throw HealthError(.invalidRange,
                              "the end (\(ISO8601.string(to, timeZone: timeZone))) is before the start (\(ISO8601.string(from, timeZone: timeZone))); give a start before the end, or leave the end out for now",
                              argument: "end")
        }
        return DateRange(unchecked: from, to)
    }

    init(unchecked start: Date, _ end: Date) {
        self.start = start
        self.end = end
    }

    public var isEmpty: Bool { end <= start }

    /// The calendar days whose start lies in the range, in `calendar`'s zone: the wake-up days of sleep nights.
    /// An end at midnight excludes that day; an end during a day includes it.
    public func days(in calendar: Calendar) -> (first: Date, last: Date)? {
        guard !isEmpty else { return nil }
        let first = calendar.startOfDay(for: start)
        let lastInstant = end.addingTimeInterval(-0.001)
        let last = calendar.startOfDay(for: lastInstant)
        return last < first ? nil : (first, last)
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return text
    }
}
