import Foundation
import HealthModel

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
