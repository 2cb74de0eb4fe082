import Foundation
import HealthModel

/// Reads the track points of a GPX 1.1 route file written by the Health app:
/// `<trkpt lat lon><ele/><time/><extensions><speed/><course/><hAcc/><vAcc/></extensions></trkpt>`.
///
/// The files are small (a few hundred KB), so this works on the whole buffer with plain byte searches.
enum GPXReader {
    static func points(_ data: Data) -> [RoutePoint] {
        let bytes = [UInt8](data)
        var points: [RoutePoint] = []
        var index = 0
        let open = Array("<trkpt".utf8), close = Array("</trkpt>".utf8)
        while let start = find(open, in: bytes, from: index) {
            let tagEnd = find([UInt8(ascii: ">")], in: bytes, from: start) ?? bytes.count
            let selfClosing = tagEnd > 0 && bytes[tagEnd - 1] == UInt8(ascii: "/")
            let end = selfClosing ? tagEnd : (find(close, in: bytes, from: tagEnd) ?? bytes.count)
            let tag = String(decoding: bytes[start..<min(tagEnd, bytes.count)], as: UTF8.self)
            let body = end > tagEnd ? String(decoding: bytes[(tagEnd + 1)..<end], as: UTF8.self) : ""
            index = min(bytes.count, end + 1)
            guard let lat = attribute("lat", in: tag).flatMap(Double.init),
                  let lon = attribute("lon", in: tag).flatMap(Double.init),
                  let timeText = element("time", in: body), let time = ISO8601.date(timeText) ?? ExportDate.parse(timeText)
                    .map({ Date(timeIntervalSince1970: $0.seconds) }) else { continue }
            points.append(RoutePoint(time: time, latitude: lat, longitude: lon,
                                     elevation: element("ele", in: body).flatMap(Double.init),
                                     speed: element("speed", in: body).flatMap(Double.init),
                                     course: element("course", in: body).flatMap(Double.init),
                                     horizontalAccuracy: element("hAcc", in: body).flatMap(Double.init),
                                     verticalAccuracy: element("vAcc", in: body).flatMap(Double.init)))
        }
        return points
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        var i = from
        let first = needle[0]
        while i <= haystack.count - needle.count {
            if haystack[i] == first {
                var match = true
                for k in 1..<needle.count where haystack[i + k] != needle[k] { match = false; break }
                if match { return i }
            }
            i += 1
        }
        return nil
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        for quote in ["\"", "'"] {
            if let range = tag.range(of: " \(name)=\(quote)") ?? tag.range(of: "\t\(name)=\(quote)")
                ?? tag.range(of: "\n\(name)=\(quote)"),
               let close = tag[range.upperBound...].firstIndex(of: Character(quote)) {
                return String(tag[range.upperBound..<close])
            }
        }
        return nil
    }

    static func element(_ name: String, in body: String) -> String? {
        guard let open = body.range(of: "<\(name)>"), let close = body.range(of: "</\(name)>", range: open.upperBound..<body.endIndex)
        else { return nil }
        return body[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Reads an electrocardiogram CSV of the export: a key/value header (Recorded Date, Classification, Device,
/// Sample Rate, Lead, Unit…) then one voltage per line.
enum ECGReader {
    static func document(_ data: Data, path: String) -> HealthDocument? {
        let text = String(decoding: data, as: UTF8.self)
        var header: [String: String] = [:]
        var samples: [Double] = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if let value = Double(line.replacingOccurrences(of: ",", with: ".")), header.count > 0 || samples.count > 0 {
                samples.append(value)
                continue
            }
            guard let comma = line.firstIndex(of: ",") else { continue }
            let key = String(line[..<comma])
            var value = String(line[line.index(after: comma)...])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            header[key] = value
        }
        guard !header.isEmpty || !samples.isEmpty else { return nil }
        let recorded = header["Recorded Date"].flatMap { ExportDate.parse($0) }.map { Date(timeIntervalSince1970: $0.seconds) }
        let rate = header["Sample Rate"].flatMap { Double($0.split(separator: " ").first ?? "") }
        let end = recorded.flatMap { start in rate.map { start.addingTimeInterval(Double(samples.count) / $0) } }
        let object: [String: Any] = ["file": path, "header": header, "samples": samples]
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        var hasher = StableHasher()
        hasher.combine("ecg:" + path)
        hasher.combine(header["Recorded Date"] ?? "")
        hasher.combine(UInt64(samples.count))
        return HealthDocument(uuid: hasher.uuid(), kind: .electrocardiogram, start: recorded, end: end,
                              sourceName: header["Device"], json: json)
    }
}
