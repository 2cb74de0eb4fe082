import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing
import ZIPFoundation

// MARK: - Generated exports

/// A small Apple Health export built in the test: a DTD-headed `export.xml` with any elements, written bare, as an
/// unzipped folder, or zipped (localised main file name, `export_cda.xml`, `__MACOSX/` junk, workout-route GPX files,
/// electrocardiogram CSVs, clinical-record JSON).
///
/// ```swift
/// var export = ExportFixture()
/// export.add(X.record("HKQuantityTypeIdentifierStepCount", value: "120", start: "2024-05-01 10:00:00 +0200"))
/// let url = try export.writeZip(in: dir, mainName: "导出.xml")
/// ```
struct ExportFixture {
    var version = 14
    var locale = "en_US"
    /// Everything between `<HealthData …>` and `</HealthData>`, one element (with its children) per entry.
    var elements: [String] = []
    /// Replaces the standard internal subset (the text between `[` and `]>`), e.g. for a broken or hostile DTD.
    var customDTD: String?
    /// Extra files of the export, by path relative to the export root (`workout-routes/route_….gpx`).
    var files: [String: Data] = [:]

    init(version: Int = 14, _ elements: [String] = []) {
        self.version = version
        self.elements = elements
    }

    mutating func add(_ element: String) { elements.append(element) }

    /// The full document.
    var xml: String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: \(version) -->\n"
        text += customDTD ?? Self.standardDTD
        text += "]>\n"
        text += "<HealthData locale=\"\(locale)\">\n"
        for element in elements { text += " " + element + "\n" }
        text += "</HealthData>\n"
        return text
    }

    var data: Data { Data(xml.utf8) }

    /// Writes `export.xml` (or `name`) into `directory`, with the extra files next to it.
    @discardableResult
    func writeXML(in directory: URL, name: String = "export.xml") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        for (path, content) in files {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: file)
        }
        return url
    }

    /// Writes an unzipped export folder `apple_health_export/` and returns it.
    func writeFolder(in directory: URL, mainName: String = "export.xml") throws -> URL {
        let root = directory.appendingPathComponent("apple_health_export")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try writeXML(in: root, name: mainName)
        return root
    }

    /// Writes `export.zip`: `apple_health_export/<mainName>`, optionally an `export_cda.xml` (listed first, so that a
    /// name-based importer would pick it) and `__MACOSX/` AppleDouble entries, and the extra files.
    @discardableResult
    func writeZip(in directory: URL, zipName: String = "export.zip", mainName: String = "export.xml",
                  root: String = "apple_health_export", cda: Bool = true, macJunk: Bool = true,
                  extraEntries: [(String, Data)] = []) throws -> URL {
        let url = directory.appendingPathComponent(zipName)
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        let prefix = root.isEmpty ? "" : root + "/"
        if !root.isEmpty { try Self.addDirectory(archive, prefix) }
        if cda { try Self.add(archive, prefix + "export_cda.xml", Data(Self.cdaDocument.utf8)) }
        if macJunk {
            try Self.add(archive, "__MACOSX/._" + root, Self.appleDouble)
            try Self.add(archive, "__MACOSX/" + prefix + "._" + mainName, Self.appleDouble)
            // AppleDouble junk with an .xml name: never a candidate, even though it ends in .xml.
            try Self.add(archive, "__MACOSX/" + prefix + "._export_cda.xml", Self.appleDouble)
        }
        try Self.add(archive, prefix + mainName, data, compressed: true)
        for path in files.keys.sorted() {
            try Self.add(archive, prefix + path, files[path]!, compressed: true)
        }
        for (path, content) in extraEntries { try Self.add(archive, path, content, compressed: true) }
        return url
    }

    static func add(_ archive: Archive, _ path: String, _ content: Data, compressed: Bool = false) throws {
        try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(content.count),
                             compressionMethod: compressed ? .deflate : .none) { (position: Int64, size: Int) -> Data in
            content.subdata(in: Int(position)..<Int(position) + size)
        }
    }

    static func addDirectory(_ archive: Archive, _ path: String) throws {
        try archive.addEntry(with: path, type: .directory, uncompressedSize: Int64(0)) { (_: Int64, _: Int) -> Data in Data() }
    }

    /// What a Mac writes as `__MACOSX/._name`: an AppleDouble header, binary.
    static let appleDouble = Data([0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00] + Array(repeating: 0, count: 76))

    /// A clinical (CDA) document: XML, but not the export.
    static let cdaDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ClinicalDocument xmlns="urn:hl7-org:v3"><title>Health summary</title>
        <HealthData locale="en_US"><Record type="HKQuantityTypeIdentifierStepCount" sourceName="CDA" value="9999" startDate="2020-01-01 00:00:00 +0000" endDate="2020-01-01 00:01:00 +0000"/></HealthData>
        </ClinicalDocument>
        """

    /// The DTD of a modern export (abridged but of the same shape: ELEMENT and ATTLIST declarations, comments).
    static let standardDTD = """
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate
          value CDATA #REQUIRED
        >
        <!ELEMENT Me EMPTY>
        <!ATTLIST Me
          HKCharacteristicTypeIdentifierDateOfBirth         CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBiologicalSex       CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBloodType           CDATA #REQUIRED
          HKCharacteristicTypeIdentifierFitzpatrickSkinType CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
        <!ELEMENT Correlation ((MetadataEntry|Record)*)>
        <!ATTLIST Correlation
          type          CDATA #REQUIRED
          sourceName    CDATA #REQUIRED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics|WorkoutActivity)*)>
        <!ATTLIST Workout
          workoutActivityType   CDATA #REQUIRED
          duration              CDATA #IMPLIED
          durationUnit          CDATA #IMPLIED
          sourceName            CDATA #REQUIRED
          startDate             CDATA #REQUIRED
          endDate               CDATA #REQUIRED
        >
        <!ELEMENT WorkoutRoute ((MetadataEntry|FileReference|Location)*)>
        <!ELEMENT FileReference EMPTY>
        <!ATTLIST FileReference
          path CDATA #REQUIRED
        >
        <!ELEMENT ActivitySummary EMPTY>
        <!ELEMENT ClinicalRecord EMPTY>
        <!ELEMENT Audiogram ((MetadataEntry|SensitivityPoint)*)>
        <!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>

        """
}

// MARK: - Elements

/// Builders for the elements of an export, with XML escaping.
enum X {
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    /// `name="value"` pairs in order; nil values are left out.
    static func attributes(_ pairs: [(String, String?)]) -> String {
        pairs.compactMap { key, value in value.map { "\(key)=\"\(escape($0))\"" } }.joined(separator: " ")
    }

    static func element(_ name: String, _ pairs: [(String, String?)], children: [String] = []) -> String {
        let head = "<\(name) \(attributes(pairs))"
        if children.isEmpty { return head + "/>" }
        return head + ">\n  " + children.joined(separator: "\n  ") + "\n </\(name)>"
    }

    /// The `device` attribute of a record, with its per-sample `HKDevice: 0x…` address.
    static func device(_ name: String, model: String, hardware: String, software: String = "17.4",
                       address: String = "0x281038280") -> String {
        "<<HKDevice: \(address)>, name:\(name), manufacturer:Apple Inc., model:\(model), hardware:\(hardware), software:\(software)>"
    }

    static let iPhoneDevice = device("iPhone", model: "iPhone", hardware: "iPhone15,2")
    static let watchDevice = device("Apple Watch", model: "Watch", hardware: "Watch6,2", software: "10.4",
                                    address: "0x2813d5c20")

    static func record(_ type: String, source: String = "Alex’s iPhone", version: String? = "17.4",
                       device: String? = nil, unit: String? = nil, value: String? = nil,
                       creation: String? = nil, start: String, end: String? = nil,
                       sourceAttribute: String = "sourceName", children: [String] = []) -> String {
        element("Record", [("type", type), (sourceAttribute, source), ("sourceVersion", version), ("device", device),
                           ("unit", unit), ("creationDate", creation), ("startDate", start), ("endDate", end ?? start),
                           ("value", value)], children: children)
    }

    static func steps(_ value: Int, start: String, end: String, source: String = "Alex’s iPhone",
                      device: String? = X.iPhoneDevice) -> String {
        record("HKQuantityTypeIdentifierStepCount", source: source, device: device, unit: "count", value: "\(value)",
               start: start, end: end)
    }

    static func metadata(_ key: String, _ value: String) -> String {
        element("MetadataEntry", [("key", key), ("value", value)])
    }
}

// MARK: - Temporary directories and stores

/// A temporary directory removed when the value goes away.
final class TempDir: @unchecked Sendable {
    let url: URL

    init(_ label: String = "hb-import") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Imports `url` into a fresh in-memory store.
func importFresh(_ url: URL, options: ImportOptions = ImportOptions()) async throws -> (SQLiteHealthStore, ImportReport) {
    let store = try SQLiteHealthStore.inMemory()
    let report = try await ExportImporter(store: store, options: options).run(url)
    return (store, report)
}

/// Every sample of a type (by store identifier).
func allSamples(_ store: some HealthStore, _ type: String) async throws -> [HealthSample] {
    try await store.samples(SampleQuery(type: type)).samples
}

/// The number of samples in the store, all types.
func sampleCount(_ store: some HealthStore) async throws -> Int {
    try await store.typeSummaries().filter { $0.kind == .quantity || $0.kind == .category }.reduce(0) { $0 + $1.count }
}

/// What a store holds, by identity: enough to tell two imports apart.
struct StoreSnapshot: Equatable, CustomStringConvertible {
    var samples: [String: Set<UUID>] = [:]
    var correlations: [String: Set<UUID>] = [:]
    var workouts: Set<UUID> = []
    var documents: [String: Set<UUID>] = [:]
    var routePoints: [UUID: Int] = [:]

    var sampleCount: Int { samples.values.reduce(0) { $0 + $1.count } }

    var description: String {
        "samples \(samples.mapValues(\.count)), correlations \(correlations.mapValues(\.count)), workouts \(workouts.count), documents \(documents.mapValues(\.count)), route points \(routePoints)"
    }

    static func of(_ store: some HealthStore) async throws -> StoreSnapshot {
        var snapshot = StoreSnapshot()
        for summary in try await store.typeSummaries() {
            switch summary.kind {
            case .correlation:
                let found = try await store.correlations(type: summary.type, start: nil, end: nil, limit: nil)
                snapshot.correlations[summary.type] = Set(found.map(\.uuid))
            case .workout:
                break
            default:
                snapshot.samples[summary.type] = Set(try await allSamples(store, summary.type).map(\.uuid))
            }
        }
        for workout in try await store.workouts(WorkoutQuery()) {
            snapshot.workouts.insert(workout.uuid)
            for route in workout.routes {
                snapshot.routePoints[route.uuid] = try await store.routePoints(route.uuid, offset: 0, limit: 1_000_000).count
            }
        }
        for kind in HealthDocument.Kind.allCases {
            let found = try await store.documents(kind: kind, start: nil, end: nil, limit: nil)
            if !found.isEmpty { snapshot.documents[kind.rawValue] = Set(found.map(\.uuid)) }
        }
        return snapshot
    }
}

// MARK: - Real fixtures

/// `/work/shared/fixtures`, found from this file's real location (the test folder is reached through a symlink).
enum RealFixtures {
    static let directory: URL = {
        let thisFile = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        return thisFile.deletingLastPathComponent()
            .appendingPathComponent("../../../shared/fixtures", isDirectory: true).standardizedFileURL
    }()

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
    /// Whether a test of this fixture runs: when the file is there, and always when
    /// `HEALTHBRIDGE_REQUIRE_FIXTURES=1` (CI), so that a missing fixture fails the test instead of skipping it.
    static func exists(_ name: String) -> Bool {
        ProcessInfo.processInfo.environment["HEALTHBRIDGE_REQUIRE_FIXTURES"] == "1"
            || FileManager.default.isReadableFile(atPath: url(name).path)
    }

    static let iphone2019 = "real-iphone-2019-export.xml"
    static let v14 = "realistic-v14-export.xml"
    static let routeZip = "real-route-export.zip"
}

// MARK: - Counting in bytes

/// Counts in the raw bytes of a document, independent of the importer's parser.
enum ByteCount {
    /// Occurrences of `needle` in `data`.
    static func occurrences(of needle: String, in data: Data) -> Int {
        let pattern = Array(needle.utf8)
        let bytes = [UInt8](data)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return 0 }
        var count = 0, i = 0
        let first = pattern[0]
        while i <= bytes.count - pattern.count {
            if bytes[i] == first, Array(bytes[i..<i + pattern.count]) == pattern {
                count += 1
                i += pattern.count
            } else {
                i += 1
            }
        }
        return count
    }

    /// `<Record … type="X"` counts by X, every Record element (top level or inside a Correlation), after the DTD.
    static func recordTypes(in data: Data) -> [String: Int] {
        let text = body(data)
        var counts: [String: Int] = [:]
        var search = text.startIndex
        while let open = text.range(of: "<Record ", range: search..<text.endIndex) {
            let tagEnd = text.range(of: ">", range: open.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
            let tag = text[open.upperBound..<tagEnd]
            if let typeRange = tag.range(of: "type=\""),
               let close = tag[typeRange.upperBound...].firstIndex(of: "\"") {
                counts[String(tag[typeRange.upperBound..<close]), default: 0] += 1
            }
            search = tagEnd
        }
        return counts
    }

    /// The document after its DTD (`]>`), where the elements are.
    static func body(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        guard let end = text.range(of: "]>") else { return text }
        return String(text[end.upperBound...])
    }

    /// Top-level `Record` elements: all `<Record ` minus those inside `<Correlation>…</Correlation>`.
    static func recordsInCorrelations(in data: Data) -> Int {
        let text = body(data)
        var count = 0
        var search = text.startIndex
        while let open = text.range(of: "<Correlation ", range: search..<text.endIndex) {
            let close = text.range(of: "</Correlation>", range: open.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
            count += text[open.upperBound..<close].components(separatedBy: "<Record ").count - 1
            search = close
        }
        return count
    }
}

/// Asserts that `body` throws a `HealthError` with `code`, and returns it.
@discardableResult
func expectHealthError(_ code: HealthError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: () async throws -> Void) async -> HealthError? {
    do {
        try await body()
        Issue.record("expected HealthError(.\(code)), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as HealthError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected HealthError(.\(code)), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
