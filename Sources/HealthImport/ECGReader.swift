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
        if let classification = ECGClassification.classificationValue(in: header),
           let identifier = ECGClassification.identifier(for: classification) {
            header[ECGClassification.identifierKey] = identifier
        }
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

/// An electrocardiogram's classification as HealthKit names it (`HKElectrocardiogram.Classification`), whatever the
/// language the exporting iPhone was set to: the CSV header says "Sinus Rhythm", "Rythme sinusal" or
/// "Sinusrhythmus"; the document's header gets `Classification Identifier: sinusRhythm` next to it.
///
/// ```swift
/// ECGClassification.identifier(for: "Vorhofflimmern")   // "atrialFibrillation"
/// ```
enum ECGClassification {
    static let identifierKey = "Classification Identifier"

    /// The header keys that name the classification, by language.
    static let keys = ["Classification", "Klassifizierung", "Clasificación", "Classificação", "Classificazione",
                       "Classificatie", "Klassificering"]

    static let identifiers: [String: String] = {
        var table: [String: String] = [:]
        let names: [String: [String]] = [
            "sinusRhythm": ["Sinus Rhythm", "Rythme sinusal", "Sinusrhythmus", "Ritmo sinusal", "Ritmo sinusale",
                            "Sinusritme", "Sinusrytm"],
            "atrialFibrillation": ["Atrial Fibrillation", "Fibrillation auriculaire", "Fibrillation atriale",
                                   "Vorhofflimmern", "Fibrilación auricular", "Fibrilação auricular",
                                   "Fibrilação atrial", "Fibrillazione atriale", "Boezemfibrilleren", "Förmaksflimmer"],
            "inconclusiveHighHeartRate": ["Heart Rate Over 120", "Heart Rate Over 150", "High Heart Rate",
                                          "Inconclusive High Heart Rate", "Fréquence cardiaque élevée",
                                          "Hohe Herzfrequenz", "Frecuencia cardíaca alta", "Frequenza cardiaca elevata"],
            "inconclusiveLowHeartRate": ["Heart Rate Under 50", "Low Heart Rate", "Inconclusive Low Heart Rate",
                                         "Fréquence cardiaque basse", "Niedrige Herzfrequenz",
                                         "Frecuencia cardíaca baja", "Frequenza cardiaca bassa"],
            "inconclusivePoorReading": ["Poor Recording", "Inconclusive Poor Reading", "Enregistrement de mauvaise qualité",
                                        "Schlechte Aufzeichnung", "Registro deficiente", "Registrazione scadente"],
            "inconclusiveOther": ["Inconclusive", "Non concluant", "Résultat non concluant", "Nicht eindeutig",
                                  "Unklar", "No concluyente", "Inconclusivo", "Non conclusivo", "Niet eenduidig"],
            "unrecognized": ["Unrecognized", "Unrecognised", "Non reconnu", "Nicht erkannt", "No reconocido"],
        ]
        for (identifier, spellings) in names {
            table[identifier.lowercased()] = identifier
            for spelling in spellings { table[spelling.lowercased()] = identifier }
        }
        return table
    }()

    /// The classification text of a header, under its key in any language.
    static func classificationValue(in header: [String: String]) -> String? {
        for key in keys { if let value = header[key] { return value } }
        return nil
    }

    /// HealthKit's identifier for a classification as written in any supported language; nil when unknown.
    static func identifier(for text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return identifiers[trimmed.lowercased()]
    }
}
