#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// One track point of a GPX file, as plain numbers: no object, no string.
///
/// `time` is in seconds since 1970 (UTC); the optional values are NaN when the file does not give them.
public struct GPXTrackPoint: Sendable, Hashable {
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    public var elevation: Double = .nan
    public var speed: Double = .nan
    public var course: Double = .nan
    public var horizontalAccuracy: Double = .nan
    public var verticalAccuracy: Double = .nan

    public init(time: Double, latitude: Double, longitude: Double) {
        self.time = time; self.latitude = latitude; self.longitude = longitude
    }

    /// Hashable and equal by bit pattern, so that two NaNs (absent values) compare equal.
    public static func == (a: GPXTrackPoint, b: GPXTrackPoint) -> Bool {
        a.time.bitPattern == b.time.bitPattern && a.latitude.bitPattern == b.latitude.bitPattern
            && a.longitude.bitPattern == b.longitude.bitPattern && a.elevation.bitPattern == b.elevation.bitPattern
            && a.speed.bitPattern == b.speed.bitPattern && a.course.bitPattern == b.course.bitPattern
            && a.horizontalAccuracy.bitPattern == b.horizontalAccuracy.bitPattern
            && a.verticalAccuracy.bitPattern == b.verticalAccuracy.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        for value in [time, latitude, longitude, elevation, speed, course, horizontalAccuracy, verticalAccuracy] {
            hasher.combine(value.bitPattern)
        }
    }
}

/// What a GPX scan found besides its points: how many track points it had to skip, and why the first was skipped.
public struct GPXScanResult: Sendable, Hashable {
    /// Track points delivered.
    public var points = 0
    /// Track points without a readable `lat`, `lon` or `time`, or cut off by the end of the file.
    public var skipped = 0
    /// Why the first skipped point was skipped, with its byte offset.
    public var firstProblem: String?

    public init() {}
}

/// A byte-level scanner for the GPX 1.1 track files of an Apple Health export
/// (`workout-routes/route_….gpx`):
/// `<trkpt lon="…" lat="…"><ele>…</ele><time>…</time><extensions><speed>…</speed><course>…</course><hAcc>…</hAcc>
/// <vAcc>…</vAcc></extensions></trkpt>`.
///
/// It works on the whole file in memory (route files are a few hundred KB to a few MB) with `memchr` jumps between
/// tags: no `String`, no array, no object per point. Numbers are parsed exactly (the same `Double` as the standard
/// library's), times are ISO 8601 (`2020-02-24T18:00:45Z`, fractions and `±hh:mm` offsets accepted). A point without
/// a readable `lat`, `lon` or `time` is skipped and counted, never fatal; other elements (`metadata`, `name`, `rtept`,
/// `wpt`, unknown extensions) are ignored.
///
/// ```swift
/// var distance = 0
/// let result = data.withUnsafeBytes { bytes in
///     GPXScanner.scan(bytes) { point in distance += 1 }
/// }
/// print(result.points, result.skipped)
/// ```
public enum GPXScanner {
    /// Calls `body` with every track point of the document, in file order.
    @discardableResult
    public static func scan(_ bytes: UnsafeRawBufferPointer, _ body: (GPXTrackPoint) throws -> Void) rethrows
        -> GPXScanResult
    {
        var result = GPXScanResult()
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return result }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let end = bytes.count
        var i = 0
        while let open = nextTag(base, from: i, end: end) {
            i = open + 1
            // `<trkpt` followed by a space, `>` or `/` (or by the end of a truncated file).
            guard matches(base, open + 1, end, "trkpt"), open + 6 == end || isNameEnd(base[open + 6]) else { continue }
            var scan = PointScan(start: open)
            i = scan.read(base, from: open + 6, end: end)
            if let point = scan.point {
                result.points += 1
                try body(point)
            } else {
                result.skipped += 1
                if result.firstProblem == nil { result.firstProblem = scan.problem + " (track point at byte \(open))" }
            }
        }
        return result
    }

    /// The index of the next `<` at or after `from`.
    @inline(__always)
    static func nextTag(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> Int? {
        guard from < end, let hit = memchr(base + from, Int32(UInt8(ascii: "<")), end - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    static func matches(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= end else { return false }
        return memcmp(base + at, word.utf8Start, count) == 0
    }

    @inline(__always)
    static func isNameEnd(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "/")
    }

    /// One `trkpt` being read.
    struct PointScan {
        let start: Int
        var latitude = Double.nan
        var longitude = Double.nan
        var time = Double.nan
        var values = (elevation: Double.nan, speed: Double.nan, course: Double.nan, hAcc: Double.nan, vAcc: Double.nan)
        var closed = false
        var problem = ""

        init(start: Int) { self.start = start }

        var point: GPXTrackPoint? {
            guard closed else { return nil }
            guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { return nil }
            guard time.isFinite else { return nil }
            var point = GPXTrackPoint(time: time, latitude: latitude, longitude: longitude)
            point.elevation = values.elevation
            point.speed = values.speed
            point.course = values.course
            point.horizontalAccuracy = values.hAcc
            point.verticalAccuracy = values.vAcc
            return point
        }

        /// Reads the attributes from `from` (just after `<trkpt`) and the children up to `</trkpt>`; returns where
        /// scanning resumes.
        mutating func read(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
            guard let tagEnd = memchr(base + from, Int32(UInt8(ascii: ">")), end - from).map({
                base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
            }) else {
                problem = "the file ends inside a <trkpt> tag"
                return end
            }
            attributes(base, from: from, end: tagEnd)
            if base[tagEnd - 1] == UInt8(ascii: "/") {
                closed = true
                finishProblem()
                return tagEnd + 1
            }
            var i = tagEnd + 1
            while let open = GPXScanner.nextTag(base, from: i, end: end) {
                i = open + 1
                guard open + 1 < end else { break }
                let first = base[open + 1]
                if first == UInt8(ascii: "/") {
                    if GPXScanner.matches(base, open + 2, end, "trkpt") {
                        closed = true
                        finishProblem()
                        return open + 8
                    }
                    continue
                }
                // The children the iPhone writes, `<ele>85.651855<`…, read in one pass without searching for the
                // text's end first; anything else takes the general path below.
                if let (field, textStart) = GPXScanner.knownChild(base, open + 1, end) {
                    let (value, stop) = field == .time
                        ? GPXScanner.timeValue(base, textStart, end) : GPXScanner.numberValue(base, textStart, end)
                    switch field {
                    case .time: time = value
                    case .elevation: values.elevation = value
                    case .speed: values.speed = value
                    case .course: values.course = value
                    case .horizontalAccuracy: values.hAcc = value
                    case .verticalAccuracy: values.vAcc = value
                    }
                    i = stop
                    continue
                }
                // A child: `<name>` then its text up to the next `<`.
                let nameStart = open + 1
                var nameEnd = nameStart
                while nameEnd < end, !GPXScanner.isNameEnd(base[nameEnd]) { nameEnd += 1 }
                guard nameEnd < end else { break }
                let nameLength = nameEnd - nameStart
                if nameLength == 5, GPXScanner.matches(base, nameStart, end, "trkpt") {
                    // A new point before this one was closed: this one is cut off.
                    problem = "a <trkpt> without its end tag"
                    return open
                }
                guard let close = memchr(base + nameEnd, Int32(UInt8(ascii: ">")), end - nameEnd).map({
                    base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                }) else { break }
                i = close + 1
                if base[close - 1] == UInt8(ascii: "/") { continue }
                guard let textEnd = GPXScanner.nextTag(base, from: close + 1, end: end) else { break }
                let text = UnsafeRawBufferPointer(start: base + close + 1, count: textEnd - close - 1)
                switch nameLength {
                case 3 where GPXScanner.matches(base, nameStart, end, "ele"):
                    values.elevation = _NumberParser.parseDouble(text) ?? .nan
                case 4 where GPXScanner.matches(base, nameStart, end, "time"):
                    time = GPXTime.parse(text) ?? .nan
                case 4 where GPXScanner.matches(base, nameStart, end, "hAcc"):
                    values.hAcc = _NumberParser.parseDouble(text) ?? .nan
                case 4 where GPXScanner.matches(base, nameStart, end, "vAcc"):
                    values.vAcc = _NumberParser.parseDouble(text) ?? .nan
                case 5 where GPXScanner.matches(base, nameStart, end, "speed"):
                    values.speed = _NumberParser.parseDouble(text) ?? .nan
                case 6 where GPXScanner.matches(base, nameStart, end, "course"):
                    values.course = _NumberParser.parseDouble(text) ?? .nan
                default:
                    break
                }
                i = textEnd
            }
            problem = "the file ends inside a <trkpt>"
            return end
        }

        mutating func finishProblem() {
            if !latitude.isFinite || !longitude.isFinite { problem = "no readable lat/lon" }
            else if !(-90...90).contains(latitude) || !(-180...180).contains(longitude) { problem = "lat/lon out of range" }
            else if !time.isFinite { problem = "no readable <time>" }
        }

        /// `lat="…"` and `lon="…"` in any order, either quote.
        mutating func attributes(_ base: UnsafePointer<UInt8>, from: Int, end: Int) {
            var i = from
            while i < end {
                while i < end, base[i] == 0x20 || base[i] == 0x09 || base[i] == 0x0A || base[i] == 0x0D { i += 1 }
                let nameStart = i
                while i < end, base[i] != UInt8(ascii: "="), base[i] != 0x20, base[i] != UInt8(ascii: "/") { i += 1 }
                let nameEnd = i
                while i < end, base[i] != UInt8(ascii: "\""), base[i] != UInt8(ascii: "'") {
                    if base[i] == UInt8(ascii: "/") && nameStart == nameEnd { return }
                    i += 1
                }
                guard i < end else { return }
                let quote = base[i]
                let valueStart = i + 1
                i = valueStart
                while i < end, base[i] != quote { i += 1 }
                guard i < end else { return }
                let value = UnsafeRawBufferPointer(start: base + valueStart, count: i - valueStart)
                i += 1
                if nameEnd - nameStart == 3 {
                    if GPXScanner.matches(base, nameStart, nameEnd, "lat") {
                        latitude = _NumberParser.parseDouble(value) ?? .nan
                    } else if GPXScanner.matches(base, nameStart, nameEnd, "lon") {
                        longitude = _NumberParser.parseDouble(value) ?? .nan
                    }
                }
            }
        }
    }
}

extension GPXScanner {
    enum Field { case time, elevation, speed, course, horizontalAccuracy, verticalAccuracy }

    @inline(__always)
    static func word(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard at + count <= end else { return false }
        let bytes = text.utf8Start
        for offset in 0..<count where base[at + offset] != bytes[offset] { return false }
        return true
    }

    /// `ele>`, `time>`, `speed>`, `course>`, `hAcc>` or `vAcc>` at `at` (just after `<`): the field and where its text
    /// starts.
    @inline(__always)
    static func knownChild(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int) -> (Field, Int)? {
        guard at < end else { return nil }
        switch base[at] {
        case UInt8(ascii: "e"): return word(base, at, end, "ele>") ? (.elevation, at + 4) : nil
        case UInt8(ascii: "t"): return word(base, at, end, "time>") ? (.time, at + 5) : nil
        case UInt8(ascii: "s"): return word(base, at, end, "speed>") ? (.speed, at + 6) : nil
        case UInt8(ascii: "c"): return word(base, at, end, "course>") ? (.course, at + 7) : nil
        case UInt8(ascii: "h"): return word(base, at, end, "hAcc>") ? (.horizontalAccuracy, at + 5) : nil
        case UInt8(ascii: "v"): return word(base, at, end, "vAcc>") ? (.verticalAccuracy, at + 5) : nil
        default: return nil
        }
    }

    /// The number written at `at` and the index of the `<` after it (NaN when it is not a number). A plain decimal
    /// (`-118.232524`) directly followed by `<` is read in one pass, exactly (at most 19 digits, a mantissa up to
    /// 2^53 and 22 decimals, as in ``_NumberParser/parseDouble(_:)``); anything else goes to that parser.
    @inline(__always)
    static func numberValue(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int) -> (Double, Int) {
        var i = at
        let negative = i < end && base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0, digits = 0, decimals = 0
        var dot = false
        while i < end {
            let digit = base[i] &- UInt8(ascii: "0")
            if digit < 10 {
                guard digits < 19 else { digits = 99; break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                digits += 1
                if dot { decimals += 1 }
            } else if base[i] == UInt8(ascii: "."), !dot {
                dot = true
            } else {
                break
            }
            i += 1
        }
        if i < end, base[i] == UInt8(ascii: "<"), digits > 0, digits < 99, mantissa <= 1 << 53, decimals <= 22 {
            let value = Double(mantissa) / _NumberParser._powerOfTen(decimals)
            return (negative ? -value : value, i)
        }
        let stop = nextTag(base, from: at, end: end) ?? end
        return (_NumberParser.parseDouble(UnsafeRawBufferPointer(start: base + at, count: stop - at)) ?? .nan, stop)
    }

    /// The time written at `at` and the index of the `<` after it: `yyyy-MM-ddTHH:mm:ssZ<` in one pass, any other
    /// form through ``GPXTime/parse(_:)``.
    @inline(__always)
    static func timeValue(_ base: UnsafePointer<UInt8>, _ at: Int, _ end: Int) -> (Double, Int) {
        if at + 20 < end, base[at + 19] == UInt8(ascii: "Z"), base[at + 20] == UInt8(ascii: "<") {
            let text = UnsafeRawBufferPointer(start: base + at, count: 20)
            if let value = GPXTime.parse(text) { return (value, at + 20) }
        }
        let stop = nextTag(base, from: at, end: end) ?? end
        return (GPXTime.parse(UnsafeRawBufferPointer(start: base + at, count: stop - at)) ?? .nan, stop)
    }
}

/// ISO 8601 times of GPX files: `yyyy-MM-ddTHH:mm:ss[.fff](Z|±hh:mm|±hhmm)`, a missing zone read as UTC.
enum GPXTime {
    static func parse(_ text: UnsafeRawBufferPointer) -> Double? {
        let (start, end) = _NumberParser._trimmed(text)
        guard end - start >= 19 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for k in at..<(at + count) {
                let digit = text[k] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        let s = start
        guard text[s + 4] == UInt8(ascii: "-"), text[s + 7] == UInt8(ascii: "-"),
              text[s + 10] == UInt8(ascii: "T") || text[s + 10] == UInt8(ascii: " "),
              text[s + 13] == UInt8(ascii: ":"), text[s + 16] == UInt8(ascii: ":"),
              let year = digits(s, 4), let month = digits(s + 5, 2), let day = digits(s + 8, 2),
              let hour = digits(s + 11, 2), let minute = digits(s + 14, 2), let second = digits(s + 17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = s + 19
        var fraction = 0.0
        if i < end, text[i] == UInt8(ascii: ".") {
            i += 1
            var numerator = 0, denominator = 1
            let fractionStart = i
            while i < end {
                let digit = text[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if denominator < 1_000_000_000 { numerator = numerator * 10 + Int(digit); denominator *= 10 }
                i += 1
            }
            guard i > fractionStart else { return nil }
            fraction = Double(numerator) / Double(denominator)
        }
        if i < end, text[i] == 0x20 { i += 1 }
        var offset = 0
        if i < end {
            let sign = text[i]
            if sign == UInt8(ascii: "Z") {
                i += 1
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                guard i + 3 <= end, let hours = digits(i + 1, 2) else { return nil }
                var j = i + 3
                if j < end, text[j] == UInt8(ascii: ":") { j += 1 }
                guard j + 2 <= end, let minutes = digits(j, 2) else { return nil }
                offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
                i = j + 2
            } else {
                return nil
            }
        }
        guard i == end else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Double(seconds) + fraction
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). The same as
    /// `HealthModel.ISO8601.daysFromCivil`: HealthXML depends on nothing, so it keeps its own copy of these lines.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
