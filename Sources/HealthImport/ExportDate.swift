import HealthModel

/// Fast parsing of the dates in Apple Health exports, straight from the bytes.
///
/// Accepted forms: `2019-06-17 21:07:11 -0400` (every modern export), `2019-06-17T21:07:11-04:00`, and the compact
/// iOS 8 form `20140114084347-0800`. Returns seconds since 1970 and the UTC offset the date was written with.
///
/// ```swift
/// ExportDate.parse(bytes)   // (1560820031, -14400)
/// ```
enum ExportDate {
    struct Parsed: Equatable {
        var seconds: Double
        var offset: Int
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed? {
        let n = bytes.count
        guard n >= 15 else { return nil }
        @inline(__always) func digit(_ i: Int) -> Int? {
            guard i < n else { return nil }
            let b = bytes[i]
            return b >= 48 && b <= 57 ? Int(b - 48) : nil
        }
        @inline(__always) func number(_ i: Int, _ count: Int) -> Int? {
            var value = 0
            for k in 0..<count {
                guard let d = digit(i + k) else { return nil }
                value = value * 10 + d
            }
            return value
        }
        var y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0
        var i: Int
        if bytes[4] == UInt8(ascii: "-") {
            guard n >= 19, let yy = number(0, 4), let mm = number(5, 2), bytes[7] == UInt8(ascii: "-"),
                  let dd = number(8, 2), bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
                  let hh = number(11, 2), bytes[13] == UInt8(ascii: ":"), let mn = number(14, 2),
                  bytes[16] == UInt8(ascii: ":"), let ss = number(17, 2) else { return nil }
            (y, mo, d, h, mi, s) = (yy, mm, dd, hh, mn, ss)
            i = 19
        } else {
            // Compact: yyyyMMddHHmmss±HHMM
            guard let yy = number(0, 4), let mm = number(4, 2), let dd = number(6, 2), let hh = number(8, 2),
                  let mn = number(10, 2), let ss = number(12, 2) else { return nil }
            (y, mo, d, h, mi, s) = (yy, mm, dd, hh, mn, ss)
            i = 14
        }
        guard (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var fraction = 0.0
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            while let dg = digit(i) { fraction += Double(dg) * scale; scale /= 10; i += 1 }
        }
        while i < n, bytes[i] == UInt8(ascii: " ") { i += 1 }
        var offset = 0
        if i < n {
            let sign = bytes[i]
            if sign == UInt8(ascii: "Z") {
                i += 1
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                guard let oh = number(i + 1, 2) else { return nil }
                var j = i + 3
                if j < n, bytes[j] == UInt8(ascii: ":") { j += 1 }
                guard let om = number(j, 2) else { return nil }
                offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
                i = j + 2
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        let days = ISO8601.daysFromCivil(y, mo, d)
        return Parsed(seconds: Double(days * 86_400 + h * 3600 + mi * 60 + s - offset) + fraction, offset: offset)
    }

    static func parse(_ string: String) -> Parsed? {
        var copy = string
        return copy.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }
}
