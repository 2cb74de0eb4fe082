import Foundation

/// ISO 8601 formatting and parsing without formatter objects: thread-safe, fast and the same on every platform.
///
/// ```swift
/// ISO8601.string(date)                                     // "2024-03-10T08:00:00Z"
/// ISO8601.string(date, timeZone: TimeZone(identifier: "Europe/Paris")!)   // "2024-03-10T09:00:00+01:00"
/// ISO8601.date("2024-03-10T09:00:00+01:00")               // the same instant
/// ```
public enum ISO8601 {
    /// Formats an instant with the offset of `timeZone` at that instant (`Z` for UTC). Milliseconds are printed only
    /// when not zero.
    public static func string(_ date: Date, timeZone: TimeZone = TimeZone(secondsFromGMT: 0) ?? .current) -> String {
        let t = clamped(date.timeIntervalSince1970)
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: t))
        let whole = t.rounded(.down)
        var millis = Int(((t - whole) * 1000).rounded())
        var seconds = Int64(whole) + Int64(offset)
        if millis == 1000 { millis = 0; seconds += 1 }
        let (y, m, d, hh, mm, ss) = civil(seconds)
        var out = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(hh, 2)):\(pad(mm, 2)):\(pad(ss, 2))"
        if millis != 0 { out += "." + pad(millis, 3) }
        if offset == 0 {
            out += "Z"
        } else {
            let a = abs(offset)
            out += (offset < 0 ? "-" : "+") + pad(a / 3600, 2) + ":" + pad((a % 3600) / 60, 2)
        }
        return out
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: what the four digits of a year can write.
    public static let earliestWritable: TimeInterval = -62_135_596_800
    public static let latestWritable: TimeInterval = 253_402_300_799

    /// An instant held to what ISO 8601 with a four-digit year can write (NaN as the epoch): a stored date, however
    /// wrong, is formatted rather than stopping the reader (`Int64(_:)` of a huge `Double` traps).
    static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, earliestWritable), latestWritable)
    }

    /// The calendar date (`2024-03-10`) of an instant in a time zone.
    public static func dateString(_ date: Date, timeZone: TimeZone) -> String {
        let t = clamped(date.timeIntervalSince1970)
        let seconds = Int64(t.rounded(.down)) + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: t)))
        let (y, m, d, _, _, _) = civil(seconds)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// Parses an instant: `2024-03-10T09:00:00Z`, with fractions, with `±HH:MM`/`±HHMM` offsets, or a space instead
    /// of `T`. Returns nil for anything else (dates without a time are a ``DateExpression``).
    public static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 19 else { return nil }
        func num(_ from: Int, _ count: Int) -> Int? {
            var v = 0
            for i in from..<(from + count) {
                guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let y = num(0, 4), b[4] == 45, let mo = num(5, 2), b[7] == 45, let d = num(8, 2),
              b[10] == 84 || b[10] == 116 || b[10] == 32, let h = num(11, 2), b[13] == 58, let mi = num(14, 2),
              b[16] == 58, let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale = 0.1
            let begin = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            if i == begin { return nil }
        }
        var offset = 0
        if i < b.count, b[i] == 32 { i += 1 }
        if i < b.count {
            if b[i] == 90 || b[i] == 122 {
                i += 1
            } else if b[i] == 43 || b[i] == 45 {
                let sign = b[i] == 45 ? -1 : 1
                guard let oh = num(i + 1, 2) else { return nil }
                var j = i + 3
                if j < b.count, b[j] == 58 { j += 1 }
                guard let om = num(j, 2) else { return nil }
                offset = sign * (oh * 3600 + om * 60)
                i = j + 2
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        let seconds = Double(days) * 86_400 + Double(h * 3600 + mi * 60 + s - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(_ seconds: Int64) -> (Int, Int, Int, Int, Int, Int) {
        var days = Int(seconds / 86_400)
        var rem = Int(seconds % 86_400)
        if rem < 0 { rem += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (y, m, d, rem / 3600, (rem % 3600) / 60, rem % 60)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

/// A date a person types: an instant (`2024-03-10T09:00:00Z`), a calendar date (`2024-03-10`, the start of that day
/// in the given zone), `now`, `today`, `yesterday`, or a relative span back from now (`7d`, `12h`, `2w`, `3mo`,
/// `1y`; days, weeks, months and years snap to the start of the day).
///
/// ```swift
/// let from = try DateExpression.parse("7d", now: .now, timeZone: zone)   // six days before today, 00:00
/// ```
public enum DateExpression {
    public static func parse(_ text: String, now: Date = Date(), timeZone: TimeZone) throws(HealthError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let lowered = trimmed.lowercased()
        switch lowered {
        case "now": return now
        case "today": return calendar.startOfDay(for: now)
        case "yesterday":
            return calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: now)) ?? now
        default: break
        }
        if let instant = ISO8601.date(trimmed) { return instant }
        let bytes = Array(trimmed.utf8)
        if bytes.count == 10, bytes[4] == 45, bytes[7] == 45,
           let y = Int(trimmed.prefix(4)), let m = Int(trimmed.dropFirst(5).prefix(2)), let d = Int(trimmed.suffix(2)),
           (1...12).contains(m), (1...31).contains(d),
           let date = calendar.date(from: DateComponents(year: y, month: m, day: d)) {
            return date
        }
        let digits = lowered.prefix { $0.isNumber }
        if let n = Int(digits), n >= 0, n <= 100_000 {
            let unit = lowered.dropFirst(digits.count)
            let startOfToday = calendar.startOfDay(for: now)
            switch unit {
            case "m", "min": return now.addingTimeInterval(-60 * Double(n))
            case "h": return now.addingTimeInterval(-3600 * Double(n))
            // "7d" is the last seven days including today.
            case "d": return calendar.date(byAdding: .day, value: -max(0, n - 1), to: startOfToday) ?? now
            case "w": return calendar.date(byAdding: .day, value: -max(0, 7 * n - 1), to: startOfToday) ?? now
            case "mo": return calendar.date(byAdding: .month, value: -n, to: startOfToday) ?? now
            case "y": return calendar.date(byAdding: .year, value: -n, to: startOfToday) ?? now
            default: break
            }
        }
        throw HealthError(.invalidRange,
                          "cannot read the date; use an ISO date (2024-03-10), an instant (2024-03-10T09:00:00Z), now, today, yesterday or a span like 7d, 12h, 2w, 3mo, 1y")
    }

    /// Resolves an IANA time zone name.
    public static func timeZone(_ name: String) throws(HealthError) -> TimeZone {
        if name.lowercased() == "utc" || name == "Z", let utc = TimeZone(identifier: "UTC") { return utc }
        guard let zone = TimeZone(identifier: name) else {
            throw HealthError(.invalidTimeZone, "unknown time zone '\(name)'; use an IANA name such as Europe/Paris or America/New_York")
        }
        return zone
    }
}
