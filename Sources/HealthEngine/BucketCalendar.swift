import Foundation
import HealthModel

/// Bucket edges for a statistics collection: an anchor plus whole intervals in a time zone, extended both ways so
/// that the buckets cover the range. Calendar arithmetic makes a day bucket 23 or 25 hours long on DST days.
///
/// The statistics engine cuts buckets with it, and the service pages long series on the same edges.
///
/// ```swift
/// let days = BucketCalendar(timeZone: zone, interval: StatisticsInterval(1, .day))
/// let anchor = days.defaultAnchor(for: start)              // midnight
/// let k = try days.index(containing: start, anchor: anchor)
/// days.edge(k + 7, anchor: anchor)                         // a week later, DST included
/// ```
public struct BucketCalendar: Sendable {
    public let calendar: Calendar
    public let interval: StatisticsInterval

    public init(timeZone: TimeZone, interval: StatisticsInterval) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2  // Monday, as ISO 8601
        calendar.minimumDaysInFirstWeek = 4
        self.calendar = calendar
        self.interval = interval
    }

    /// The default anchor: the start of the interval's unit containing `date` (minute, hour, day, Monday, month,
    /// January 1st).
    public func defaultAnchor(for date: Date) -> Date {
        switch interval.unit {
        case .minute:
            return calendar.dateInterval(of: .minute, for: date)?.start ?? date
        case .hour:
            return calendar.dateInterval(of: .hour, for: date)?.start ?? date
        case .day:
            return calendar.startOfDay(for: date)
        case .week:
            return calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? calendar.startOfDay(for: date)
        case .month:
            return calendar.dateInterval(of: .month, for: date)?.start ?? calendar.startOfDay(for: date)
        case .year:
            return calendar.dateInterval(of: .year, for: date)?.start ?? calendar.startOfDay(for: date)
        }
    }

    /// The k-th edge from the anchor (k may be negative), computed from the anchor each time so that month ends
    /// and DST never drift.
    public func edge(_ k: Int, anchor: Date) -> Date {
        let (component, multiplier) = interval.unit == .week ? (Calendar.Component.day, 7) : (interval.component, 1)
        return calendar.date(byAdding: component, value: k * interval.count * multiplier, to: anchor)
            ?? anchor.addingTimeInterval(Double(k) * approximateLength)
    }

    var approximateLength: TimeInterval {
        let base: TimeInterval
        switch interval.unit {
        case .minute: base = 60
        case .hour: base = 3600
        case .day: base = 86_400
        case .week: base = 604_800
        case .month: base = 2_629_746
        case .year: base = 31_556_952
        }
        return base * Double(interval.count)
    }

    /// The index k of the bucket [edge(k), edge(k+1)) containing `date`.
    public func index(containing date: Date, anchor: Date) throws(HealthError) -> Int {
        let estimate = date.timeIntervalSince(anchor) / approximateLength
        guard estimate.isFinite, abs(estimate) < 1e9 else {
            throw HealthError(.invalidRange, "the range is too long for \(interval) buckets; use a longer interval")
        }
        var k = Int(estimate.rounded(.down))
        while edge(k, anchor: anchor) > date { k -= 1 }
        while edge(k + 1, anchor: anchor) <= date { k += 1 }
        return k
    }

    /// Edges e0 < e1 < … < en with e0 ≤ start and en ≥ end.
    func edges(from start: Date, to end: Date, anchor: Date, limit: Int = 200_000) throws(HealthError) -> [Date] {
        // Estimate the first index, then correct it with exact calendar arithmetic.
        var k = Int((start.timeIntervalSince(anchor) / approximateLength).rounded(.down))
        while edge(k, anchor: anchor) > start { k -= 1 }
        while edge(k + 1, anchor: anchor) <= start { k += 1 }
        var edges: [Date] = [edge(k, anchor: anchor)]
        while let last = edges.last, last < end {
            k += 1
            edges.append(edge(k, anchor: anchor))
            if edges.count > limit {
                throw HealthError(.invalidRange,
                                  "the range holds more than \(limit) \(interval) buckets; use a longer interval or a shorter range")
            }
        }
        if edges.count == 1 { edges.append(edge(k + 1, anchor: anchor)) }
        return edges
    }
}
