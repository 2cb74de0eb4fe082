import Foundation
import HealthModel
import HealthXML

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an electrocardiogram CSV of the export: a key/value header (Recorded Date, Classification, Device,
/// Sample Rate, Lead, Unit…) then one voltage per line (a decimal comma is accepted), byte by byte.
///
/// The document's JSON is `{"file": path, "header": {…}, "samples": [numbers]}`, written directly (no
/// `JSONSerialization` of 15,000 boxed numbers).
///
/// ```swift
/// if let document = ECGReader.document(data, path: "electrocardiograms/ecg_2024-05-01.csv") { … }
/// ```
enum ECGReader {
    static func document(_ data: Data, path: String) -> HealthDocument? {
        var header: [String: String] = [:]
        var samples: [Double] = []
        samples.reserveCapacity(data.count / 8)
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let count = raw.count
            var scratch = [UInt8](repeating: 0, count: 64)
            var next = 0
            while next < count {
                let newline = memchr(base + next, Int32(UInt8(ascii: "\n")), count - next)
                    .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? count
                var start = next, end = newline
                next = newline + 1
                while start < end, base[start] == 0x20 || base[start] == 0x09 { start += 1 }
                while end > start, base[end - 1] == 0x20 || base[end - 1] == 0x09 || base[end - 1] == 0x0D { end -= 1 }
                guard start < end else { continue }
                let line = UnsafeRawBufferPointer(start: base + start, count: end - start)
                let comma = memchr(base + start, Int32(UInt8(ascii: ",")), end - start)
                    .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
                if !header.isEmpty || !samples.isEmpty {
                    if comma == nil, let value = DecimalText.double(line), value.isFinite {
                        samples.append(value)
                        continue
                    }
                    if comma != nil, line.count <= scratch.count {
                        // A decimal comma (`-12,25`).
                        let value: Double? = scratch.withUnsafeMutableBytes { buffer in
                            for index in 0..<line.count { buffer[index] = line[index] == UInt8(ascii: ",") ? UInt8(ascii: ".") : line[index] }
                            return DecimalText.double(UnsafeRawBufferPointer(rebasing: buffer[0..<line.count]))
                        }
                        if let value, value.isFinite {
                            samples.append(value)
                            continue
                        }
                    }
                }
                guard let comma else { continue }
                let key = String(decoding: UnsafeRawBufferPointer(start: base + start, count: comma - start), as: UTF8.self)
                var value = String(decoding: UnsafeRawBufferPointer(start: base + comma + 1, count: end - comma - 1),
                                   as: UTF8.self)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                header[key] = value
            }
        }
        guard !header.isEmpty || !samples.isEmpty else { return nil }
        let recorded = header["Recorded Date"].flatMap { ExportDate.parse($0) }.map { Date(timeIntervalSince1970: $0.seconds) }
        let rate = header["Sample Rate"].flatMap { Double($0.split(separator: " ").first ?? "") }
        let end = recorded.flatMap { start in rate.map { start.addingTimeInterval(Double(samples.count) / $0) } }
        var hasher = StableHasher()
        hasher.combine("ecg:" + path)
        hasher.combine(header["Recorded Date"] ?? "")
        hasher.combine(UInt64(samples.count))
        return HealthDocument(uuid: hasher.uuid(), kind: .electrocardiogram, start: recorded, end: end,
                              sourceName: header["Device"], json: json(path: path, header: header, samples: samples))
    }

    /// `{"file":…,"header":{…},"samples":[…]}` with sorted header keys.
    static func json(path: String, header: [String: String], samples: [Double]) -> String {
        var text = "{\"file\":"
        text.reserveCapacity(64 + samples.count * 9)
        JSONText.appendString(path, to: &text)
        text += ",\"header\":{"
        for (index, key) in header.keys.sorted().enumerated() {
            if index > 0 { text += "," }
            JSONText.appendString(key, to: &text)
            text += ":"
            JSONText.appendString(header[key] ?? "", to: &text)
        }
        text += "},\"samples\":["
        for (index, value) in samples.enumerated() {
            if index > 0 { text += "," }
            JSONText.appendNumber(value, to: &text)
        }
        text += "]}"
        return text
    }
}
