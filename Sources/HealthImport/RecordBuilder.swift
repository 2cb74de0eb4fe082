import Foundation
import HealthModel
import HealthStore
import HealthXML

/// A `Record` being read: its attributes decoded once, its children (metadata, HRV beats) added as they come, and
/// finally one ``SampleBatch/Row`` appended to the batch — no `HealthSample`, no string or dictionary per record.
struct RecordBuilder {
    let line: Int
    let offset: Int
    var info = TypeInfo.missing
    /// Index in the caches' tables; -1 when the record has no `unit`.
    var unit: Int32 = -1
    var number: Double?
    var valueText: String?
    var category: Int?
    var source: Int32 = -1
    var hasSourceName = false
    /// The natural-UUID hash state after the type and source, computed once per type and source by the caches.
    var uuidPrefix = StableHasher()
    var creation: Double?
    var start: ExportDate.Parsed?
    var end: ExportDate.Parsed?
    var badDate: String?
    var beats: [(bpm: Double?, time: String)] = []

    init(_ element: XMLStartElement, caches: inout ParserCaches) {
        line = element.line
        offset = element.offset
        var sourceName: XMLAttributeValue? = nil, version: XMLAttributeValue? = nil, device: XMLAttributeValue? = nil
        var value: XMLAttributeValue? = nil
        for attribute in element.attributes {
            let name = attribute.name
            let v = attribute.value
            switch name.count {
            case 4:
                if name == "type" { info = caches.type(v) } else if name == "unit" { unit = caches.unit(v) }
            case 5:
                if name == "value" { value = v }
            case 6:
                if name == "device" { device = v } else if name == "source" { sourceName = v }
            case 7:
                if name == "endDate" { end = Self.date(v, &badDate) }
            case 9:
                if name == "startDate" { start = Self.date(v, &badDate) }
            case 10:
                if name == "sourceName" { sourceName = v }
            case 12:
                if name == "creationDate" { creation = ExportDate.parse(v.rawBytes)?.seconds }
            case 13:
                if name == "sourceVersion" { version = v }
            default:
                break
            }
        }
        hasSourceName = !(sourceName?.isEmpty ?? true)
        source = caches.sourceIndex(name: sourceName, version: version, device: device)
        uuidPrefix = caches.uuidPrefix(type: info)
        if let value {
            if info.isCategory {
                category = caches.category(value, type: info)
                if category == nil { valueText = value.string }
            } else if let number = value.double {
                self.number = number
            } else {
                valueText = value.string
            }
        }
    }

    static func date(_ value: XMLAttributeValue, _ bad: inout String?) -> ExportDate.Parsed? {
        if let parsed = ExportDate.parse(value.rawBytes) { return parsed }
        bad = value.string
        return nil
    }

    func addMetadata(_ element: XMLStartElement, to metadata: inout MetadataAccumulator, caches: inout ParserCaches) {
        guard let key = element.attribute(named: "key") else { return }
        metadata.add(key: caches.metadataKey(key), value: element.attribute(named: "value"))
    }

    mutating func addBeat(_ element: XMLStartElement) {
        beats.append((element.attribute(named: "bpm")?.double, element.attribute(named: "time")?.string ?? ""))
    }

    /// Appends the record's row (with the metadata gathered for it) to `batch` and returns its UUID, or says why
    /// the record cannot be a sample.
    func build(_ metadata: inout MetadataAccumulator, into batch: inout SampleBatch,
               caches: inout ParserCaches) -> Result<UUID, HealthError> {
        guard !info.written.isEmpty else { return .failure(HealthError(.importMalformed, "has no type")) }
        guard let start, let end else {
            return .failure(HealthError(.importMalformed, "has no readable startDate/endDate" + (badDate.map { " ('\($0)')" } ?? "")))
        }
        guard end.seconds >= start.seconds else {
            return .failure(HealthError(.importMalformed, "of \(info.identifier) ends before it starts"))
        }
        guard hasSourceName else { return .failure(HealthError(.importMalformed, "has no sourceName")) }
        if !beats.isEmpty {
            // `[{"bpm":62,"time":"6:14:48.94 PM"},…]`, written directly (JSONSerialization cost 0.5 ms per record).
            var list = "["
            list.reserveCapacity(beats.count * 36)
            for (index, beat) in beats.enumerated() {
                list += index == 0 ? "{\"bpm\":" : ",{\"bpm\":"
                if let bpm = beat.bpm { JSONText.appendNumber(bpm, to: &list) } else { list += "null" }
                list += ",\"time\":"
                JSONText.appendString(beat.time, to: &list)
                list += "}"
            }
            list += "]"
            metadata.add(key: "HKHeartRateVariabilityBeats", string: list)
        }
        var kind = SampleBatch.ValueKind.none
        var number = 0.0
        var unitIndex: Int32 = -1
        switch info.type?.kind {
        case .category?:
            if let category {
                kind = .category
                number = Double(category)
            } else if let valueText {
                metadata.add(key: "HKExportValue", string: valueText)
            }
        case .quantity?:
            guard let value = self.number else {
                return .failure(HealthError(.importMalformed,
                                            "of \(info.identifier) has no numeric value" + (valueText.map { " ('\($0)')" } ?? "")))
            }
            kind = .quantity
            number = value
            unitIndex = unit >= 0 ? unit : caches.unit(info.type?.canonicalUnit ?? "count")
        default:
            // An identifier the registry cannot classify: keep whatever it carries.
            if let value = self.number, unit >= 0 {
                kind = .quantity
                number = value
                unitIndex = unit
            } else if let value = self.number, Int(exactly: value) != nil {
                kind = .category
                number = value
            } else if let value = self.number {
                kind = .quantity
                number = value
                unitIndex = caches.unit("count")
            } else if let valueText {
                metadata.add(key: "HKExportValue", string: valueText)
            }
        }
        let value: SampleValue
        switch kind {
        case .quantity: value = .quantity(number, unit: caches.tables.units[Int(unitIndex)])
        case .category: value = .category(Int(number))
        case .none: value = .none
        }
        let uuid = HealthSample.naturalUUID(prefix: uuidPrefix, start: Date(timeIntervalSince1970: start.seconds),
                                            end: Date(timeIntervalSince1970: end.seconds), value: value,
                                            created: creation)
        var row = SampleBatch.Row(
            uuid: uuid, start: start.seconds, end: end.seconds, value: number, created: creation ?? .nan,
            type: info.tableIndex, source: source, unit: unitIndex,
            utcOffset: Int32(clamping: start.offset), kind: kind)
        metadata.write(into: &batch, row: &row)
        batch.append(row)
        return .success(uuid)
    }
}

/// A `Correlation` being read.
struct CorrelationBuilder {
    let line: Int
    let offset: Int
    var info = TypeInfo.missing
    var source = HealthSource(name: "")
    var creation: Double?
    var start: ExportDate.Parsed?
    var end: ExportDate.Parsed?
    var badDate: String?
    var metadata: [String: String] = [:]
    var members: [UUID] = []

    init(_ element: XMLStartElement, caches: inout ParserCaches) {
        line = element.line
        offset = element.offset
        var common = SourceAndDates()
        for attribute in element.attributes {
            if common.take(attribute) { continue }
            if attribute.name == "type" { info = caches.type(attribute.value) }
        }
        source = common.source(&caches)
        (creation, start, end, badDate) = (common.creation, common.start, common.end, common.badDate)
    }

    mutating func addMetadata(_ element: XMLStartElement) {
        guard let key = element.attribute(named: "key")?.string else { return }
        metadata[key] = element.attribute(named: "value")?.string ?? ""
    }

    func build() -> Result<HealthCorrelation, HealthError> {
        guard !info.written.isEmpty else { return .failure(HealthError(.importMalformed, "has no type")) }
        guard let start, let end, end.seconds >= start.seconds else {
            return .failure(HealthError(.importMalformed, "has no readable, ordered startDate/endDate" + (badDate.map { " ('\($0)')" } ?? "")))
        }
        return .success(HealthCorrelation(
            type: info.identifier, start: Date(timeIntervalSince1970: start.seconds),
            end: Date(timeIntervalSince1970: end.seconds), source: source,
            creationDate: creation.map(Date.init(timeIntervalSince1970:)), metadata: metadata, members: members))
    }
}

/// The attributes every sample-like element carries besides its own: source (name — `source` in iOS 8 exports —,
/// version, device) and dates. Collected while iterating an element's attributes once; the raw values are used
/// before the scanner's callback returns. (`RecordBuilder` reads the same attributes through its own switch on the
/// name's length, the hot path of an import.)
struct SourceAndDates {
    var sourceName: XMLAttributeValue?
    var version: XMLAttributeValue?
    var device: XMLAttributeValue?
    var creation: Double?
    var start: ExportDate.Parsed?
    var end: ExportDate.Parsed?
    var badDate: String?

    /// Takes the attribute when it is one of these; false otherwise.
    mutating func take(_ attribute: XMLAttribute) -> Bool {
        let name = attribute.name, v = attribute.value
        if name == "sourceName" || name == "source" { sourceName = v }
        else if name == "sourceVersion" { version = v }
        else if name == "device" { device = v }
        else if name == "creationDate" { creation = ExportDate.parse(v.rawBytes)?.seconds }
        else if name == "startDate" { start = RecordBuilder.date(v, &badDate) }
        else if name == "endDate" { end = RecordBuilder.date(v, &badDate) }
        else { return false }
        return true
    }

    func source(_ caches: inout ParserCaches) -> HealthSource {
        caches.source(name: sourceName, version: version, device: device)
    }
}
