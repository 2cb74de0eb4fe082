/// The time grouping of aggregated HAE data (the app's "Time Grouping": minutes, hours, days, weeks, months, years).
/// A bucket starts at an item's `date`; its end is one grouping later, in the offset the date was written with.
///
/// ```swift
/// HAEBucket(header: "hours")   // .hour
/// ```
public enum HAEBucket: String, Sendable, Equatable, CaseIterable {
    case minute, hour, day, week, month, year

    /// Reads the `automation-aggregation` header (`hours`, `Days`, `day`…); nil for none or anything else.
    public init?(header: String?) {
        guard var text = header?.trimmingSpacesAndNewlines.lowercased(), !text.isEmpty else { return nil }
        if text.hasSuffix("s") { text.removeLast() }
        if text == "min" || text == "minutely" { text = "minute" }
        if text == "hourly" { text = "hour" } else if text == "daily" { text = "day" }
        self.init(rawValue: text)
    }

    /// The end of the bucket that starts at `start`.
    public func end(of start: HAEDate) -> Double {
        switch self {
        case .minute: return start.seconds + 60
        case .hour: return start.seconds + 3600
        case .day, .week:
            // Whole local days: a day with a daylight-saving change is still one day of the written offset.
            return start.seconds + (self == .day ? 86_400 : 7 * 86_400)
        case .month, .year:
            let local = (start.seconds + Double(start.offset)).clampedInt(rounding: .down)
            let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let (y, m, d) = HAEBucket.civil(fromDays: days)
            let nextMonth = self == .month ? (m == 12 ? (y + 1, 1) : (y, m + 1)) : (y + 1, m)
            let endDays = HAEDate.daysFromCivil(nextMonth.0, nextMonth.1, d)
            return start.seconds + Double((endDays - days) * 86_400)
        }
    }

    /// Whether `date` lies on a boundary of this grouping in its own offset (hours start at :00:00…).
    func isAligned(_ date: HAEDate) -> Bool {
        let local = (date.seconds + Double(date.offset)).clampedInt(rounding: .down)
        guard Double(local) == date.seconds + Double(date.offset) else { return false }
        let inDay = ((local % 86_400) + 86_400) % 86_400
        switch self {
        case .minute: return inDay % 60 == 0
        case .hour: return inDay % 3600 == 0
        case .day, .week: return inDay == 0
        case .month, .year:
            let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let (_, m, d) = HAEBucket.civil(fromDays: days)
            return inDay == 0 && d == 1 && (self == .month || m == 1)
        }
    }

    /// The nominal length, to recognise a grouping from the spacing of dates.
    var nominal: Double {
        switch self {
        case .minute: 60
        case .hour: 3600
        case .day: 86_400
        case .week: 7 * 86_400
        case .month: 28 * 86_400
        case .year: 365 * 86_400
        }
    }

    /// Guesses the grouping of one metric's dates when the payload does not say: the smallest spacing between
    /// them, if every date is aligned to it; nil when the dates are samples rather than buckets.
    static func infer(_ dates: [HAEDate]) -> HAEBucket? {
        var seconds = dates.map(\.seconds)
        seconds.sort()
        var gap = Double.infinity
        for i in seconds.indices.dropFirst() where seconds[i] > seconds[i - 1] { gap = min(gap, seconds[i] - seconds[i - 1]) }
        let candidates: [HAEBucket]
        if gap.isFinite {
            // A day can be 23 or 25 hours long across a daylight-saving change.
            candidates = HAEBucket.allCases.reversed().filter { gap >= $0.nominal - 3600 && ($0 != .minute || gap >= 60) }
        } else {
            candidates = [.day, .hour]   // one date: a day if it is at midnight, an hour if on the hour
        }
        guard let bucket = candidates.first(where: { bucket in dates.allSatisfy(bucket.isAligned) }) else { return nil }
        // Spacing of whole days with dates at midnight are days, not weeks or months, unless the spacing says so.
        return bucket
    }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
