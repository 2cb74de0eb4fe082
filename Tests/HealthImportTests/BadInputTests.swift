import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing
import ZIPFoundation

/// A small export whose elements are cut at every kind of boundary.
enum SmallExport {
    static let a = X.steps(100, start: "2024-05-01 09:00:00 +0200", end: "2024-05-01 09:10:00 +0200")
    static let b = X.record("HKQuantityTypeIdentifierBodyMass", source: "Health", unit: "kg", value: "61.5",
                            start: "2024-05-01 07:00:00 +0200",
                            children: [X.metadata("HKWasUserEntered", "1"), X.metadata("HKTimeZone", "Europe/Paris")])
    static let systolic = X.record("HKQuantityTypeIdentifierBloodPressureSystolic", source: "Health", unit: "mmHg",
                                   value: "125", start: "2024-05-01 08:00:00 +0200")
    static let diastolic = X.record("HKQuantityTypeIdentifierBloodPressureDiastolic", source: "Health", unit: "mmHg",
                                    value: "81", start: "2024-05-01 08:00:00 +0200")
    static let correlation = X.element("Correlation", [("type", "HKCorrelationTypeIdentifierBloodPressure"),
                                                      ("sourceName", "Health"), ("startDate", "2024-05-01 08:00:00 +0200"),
                                                      ("endDate", "2024-05-01 08:00:00 +0200")],
                                       children: [X.metadata("HKWasUserEntered", "1"), systolic, diastolic])
    static let d = X.record("HKQuantityTypeIdentifierHeartRate", source: "Alex’s Apple Watch", device: X.watchDevice,
                            unit: "count/min", value: "64", start: "2024-05-01 10:00:00 +0200")
    static let workout = X.element("Workout", [("workoutActivityType", "HKWorkoutActivityTypeWalking"), ("duration", "12"),
                                              ("durationUnit", "min"), ("sourceName", "Alex’s Apple Watch"),
                                              ("startDate", "2024-05-01 11:00:00 +0200"), ("endDate", "2024-05-01 11:12:00 +0200")],
                                   children: [X.metadata("HKIndoorWorkout", "0")])
    static let e = X.steps(42, start: "2024-05-01 12:00:00 +0200", end: "2024-05-01 12:01:00 +0200")

    static let elements = [X.element("ExportDate", [("value", "2024-05-02 09:00:00 +0200")]), a, b, systolic, diastolic,
                           correlation, d, workout, e]

    static var fixture: ExportFixture { ExportFixture(elements) }

    /// Byte offset (UTF-8) and 1-based line of the first occurrence of `needle` at or after `from`.
    static func locate(_ needle: String, in text: String, after anchor: String? = nil) -> (offset: Int, line: Int) {
        let start = anchor.flatMap { text.range(of: $0)?.lowerBound } ?? text.startIndex
        guard let range = text.range(of: needle, range: start..<text.endIndex) else { fatalError("\(needle) not found") }
        let prefix = text[..<range.lowerBound]
        return (prefix.utf8.count, prefix.filter { $0 == "\n" }.count + 1)
    }
}

@Suite("Bad input: truncated, malformed, hostile")
struct BadInputTests {
    static let text = SmallExport.fixture.xml

    /// A truncation point: where to cut, which leading elements are complete before it, and where the report must point.
    struct Cut: CustomTestStringConvertible, Sendable {
        var name: String
        /// Bytes kept.
        var length: Int
        /// Elements of `SmallExport.elements` complete before the cut.
        var complete: Int
        /// The element and position the report must name (nil: only check that something is reported).
        var element: String?
        var at: (offset: Int, line: Int)?
        var testDescription: String { name }
    }

    static let cuts: [Cut] = {
        let t = text
        let dStart = SmallExport.locate("<Record type=\"HKQuantityTypeIdentifierHeartRate\"", in: t)
        let bStart = SmallExport.locate("<Record type=\"HKQuantityTypeIdentifierBodyMass\"", in: t)
        let correlation = SmallExport.locate("<Correlation ", in: t)
        let workout = SmallExport.locate("<Workout ", in: t)
        let afterD = SmallExport.locate("\n", in: t, after: "<Record type=\"HKQuantityTypeIdentifierHeartRate\"")
        let insideCorrelation = SmallExport.locate("<Record ", in: t, after: "<Correlation ")
        let secondChild = SmallExport.locate("<Record type=\"HKQuantityTypeIdentifierBloodPressureDiastolic\"", in: t,
                                             after: "<Correlation ")
        let bMetadata = SmallExport.locate("<MetadataEntry key=\"HKTimeZone\"", in: t)
        let dValue = SmallExport.locate("value=\"64\"", in: t)
        let dSource = SmallExport.locate("sourceName=", in: t, after: "<Record type=\"HKQuantityTypeIdentifierHeartRate\"")
        let workoutChild = SmallExport.locate("<MetadataEntry key=\"HKIndoorWorkout\"", in: t)
        return [
            Cut(name: "inside a tag (after an attribute name)", length: dSource.offset + 11, complete: 6,
                element: nil, at: dStart),
            Cut(name: "inside an attribute value", length: dValue.offset + 8, complete: 6, element: nil, at: dStart),
            Cut(name: "inside the element name", length: dStart.offset + 4, complete: 6, element: nil, at: dStart),
            Cut(name: "between elements", length: afterD.offset + 1, complete: 7, element: nil, at: nil),
            Cut(name: "inside a Correlation, after its first child", length: secondChild.offset, complete: 5,
                element: "Correlation", at: correlation),
            Cut(name: "inside a Correlation, before its children", length: insideCorrelation.offset, complete: 5,
                element: "Correlation", at: correlation),
            Cut(name: "inside a Record with children", length: bMetadata.offset, complete: 2, element: "Record", at: bStart),
            Cut(name: "inside a Workout's child tag", length: workoutChild.offset + 20, complete: 7, element: "Workout",
                at: workoutChild),
            Cut(name: "inside a Workout, between its children", length: workoutChild.offset, complete: 7, element: "Workout",
                at: workout),
        ]
    }()

    @Test("a truncated export: everything before the cut is imported, the cut is reported with line and byte",
          arguments: cuts)
    func truncated(_ cut: Cut) async throws {
        let dir = try TempDir()
        let url = dir.file("export.xml")
        try Data(Self.text.utf8).prefix(cut.length).write(to: url)
        let (store, report) = try await importFresh(url)

        // The same store as an intact export of the complete elements.
        let expectedURL = try ExportFixture(Array(SmallExport.elements.prefix(cut.complete))).writeXML(in: dir.url, name: "expected.xml")
        let (expected, _) = try await importFresh(expectedURL)
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot.of(expected))

        #expect(report.skippedCount >= 1)
        let skipped = try #require(report.skipped.first)
        #expect(skipped.reason.contains("end") || skipped.reason.contains("truncat"), "\(skipped)")
        if let element = cut.element { #expect(skipped.element == element, "\(report.skipped)") }
        if let at = cut.at {
            #expect(skipped.offset == at.offset, "\(report.skipped)")
            #expect(skipped.line == at.line, "\(report.skipped)")
        } else {
            #expect(skipped.offset > 0 && skipped.offset <= cut.length)
            #expect(skipped.line >= 1)
        }
    }

    @Test("truncated inside the DTD: not an export yet, rejected, nothing written")
    func truncatedInDTD() async throws {
        let dir = try TempDir()
        let url = dir.file("export.xml")
        let cut = SmallExport.locate("<!ATTLIST Record", in: Self.text).offset + 12
        try Data(Self.text.utf8).prefix(cut).write(to: url)
        let store = try SQLiteHealthStore.inMemory()
        await expectHealthError(.importRejected) { _ = try await ExportImporter(store: store).run(url) }
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot())
    }

    @Test("--strict stops with importMalformed at the first malformed element")
    func strict() async throws {
        let dir = try TempDir()
        var broken = SmallExport.fixture
        broken.elements.insert("<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"x\" value=5 startDate=\"2024-05-01 09:00:00 +0200\" endDate=\"2024-05-01 09:00:00 +0200\"/>", at: 3)
        let url = try broken.writeXML(in: dir.url)
        let store = try SQLiteHealthStore.inMemory()
        let error = await expectHealthError(.importMalformed) {
            _ = try await ExportImporter(store: store, options: ImportOptions(strict: true)).run(url)
        }
        #expect(error?.message.contains("strict") == true)
        // Without --strict the same file imports, the bad element reported.
        let (_, report) = try await importFresh(url)
        #expect(report.skippedCount == 1)
        #expect(report.skipped.first?.line == SmallExport.locate("value=5", in: broken.xml).line)

        // A record that ends before it starts also stops a strict import.
        var inverted = SmallExport.fixture
        inverted.add(X.steps(5, start: "2024-05-01 09:00:00 +0200", end: "2024-05-01 08:00:00 +0200"))
        let invertedURL = try inverted.writeXML(in: dir.url, name: "inverted.xml")
        await expectHealthError(.importMalformed) {
            _ = try await ExportImporter(store: try SQLiteHealthStore.inMemory(), options: ImportOptions(strict: true)).run(invertedURL)
        }
    }

    @Test("a record that ends before it starts, or a non-numeric quantity, is skipped and reported; the rest is imported")
    func badRecords() async throws {
        let dir = try TempDir()
        var export = SmallExport.fixture
        let inverted = X.steps(5, start: "2024-05-01 09:00:00 +0200", end: "2024-05-01 08:59:00 +0200")
        let nonNumeric = X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "sixty",
                                  start: "2024-05-01 09:30:00 +0200")
        let badDate = X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "60",
                               start: "yesterday at noon")
        export.elements.insert(inverted, at: 2)
        export.elements.insert(nonNumeric, at: 5)
        export.add(badDate)
        let text = export.xml
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        let (clean, _) = try await importFresh(try SmallExport.fixture.writeXML(in: dir.url, name: "clean.xml"))
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot.of(clean))
        #expect(report.skippedCount == 3)
        #expect(report.skipped.map(\.element) == ["Record", "Record", "Record"])
        let positions = [SmallExport.locate("value=\"sixty\"", in: text),
                         SmallExport.locate("yesterday at noon", in: text)]
        // The step record's own start: the last `<Record` before its inverted end date.
        let invertedStart = text.range(of: "<Record", options: .backwards,
                                       range: text.startIndex..<text.range(of: "2024-05-01 08:59:00")!.lowerBound)!.lowerBound
        #expect(report.skipped[0].offset == text[..<invertedStart].utf8.count)
        #expect(report.skipped[0].reason.contains("before"), "\(report.skipped[0])")
        #expect(report.skipped[1].line == positions[0].line)
        #expect(report.skipped[1].reason.contains("sixty"), "\(report.skipped[1])")
        #expect(report.skipped[2].line == positions[1].line)
        #expect(report.skipped[2].reason.contains("yesterday at noon"), "\(report.skipped[2])")
        #expect(report.elements["Record"] == 6 + 3)
    }

    @Test("a Record whose </Record> is missing does not swallow the rest of the file")
    func unclosedRecord() async throws {
        let dir = try TempDir()
        var export = SmallExport.fixture
        // `b` with its closing tag removed: the next elements look like its children to the scanner.
        let index = try #require(export.elements.firstIndex(of: SmallExport.b))
        export.elements[index] = SmallExport.b.replacingOccurrences(of: "\n </Record>", with: "")
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        #expect(report.skippedCount >= 1, "the unclosed element is reported")
        let (clean, _) = try await importFresh(try SmallExport.fixture.writeXML(in: dir.url, name: "clean.xml"))
        let expected = try await StoreSnapshot.of(clean)
        let got = try await StoreSnapshot.of(store)
        #expect(got.samples["bodyMass"] == expected.samples["bodyMass"])
        // The next top-level element closes the open Record; nothing after it is lost.
        #expect(got == expected, "\(got)")
        #expect(report.elements["Record"] == 6)
        #expect(report.elements["Workout"] == 1)
        #expect(report.skipped.contains { $0.reason.contains("missing </Record>") }, "\(report.skipped)")
    }

    @Test("iOS 16 DTD with an unclosed ATTLIST VisionPrescription imports fine")
    func brokenDTD() async throws {
        let dir = try TempDir()
        var export = SmallExport.fixture
        export.version = 12
        export.customDTD = ExportFixture.standardDTD.replacingOccurrences(
            of: "<!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>",
            with: """
                <!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>
                <!ATTLIST VisionPrescription
                  type             CDATA #REQUIRED
                  dateIssued       CDATA #REQUIRED
                  expirationDate   CDATA #IMPLIED
                  brand            CDATA #IMPLIED
                <!ELEMENT RightEye EMPTY>
                <!ATTLIST RightEye
                  sphere           CDATA #IMPLIED
                >

                """)
        #expect(export.xml.contains("brand            CDATA #IMPLIED\n<!ELEMENT RightEye"))
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        let (clean, _) = try await importFresh(try SmallExport.fixture.writeXML(in: dir.url, name: "clean.xml"))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        #expect(report.exportVersion == 12)
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot.of(clean))
    }

    @Test("an entity bomb in the DTD stays literal and costs nothing")
    func entityBomb() async throws {
        let dir = try TempDir()
        var export = SmallExport.fixture
        var dtd = "<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            dtd += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        export.customDTD = dtd + ExportFixture.standardDTD
        export.add("<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"&lol9;\" unit=\"count/min\" value=\"70\" startDate=\"2024-05-01 13:00:00 +0200\" endDate=\"2024-05-01 13:00:00 +0200\"><MetadataEntry key=\"note\" value=\"&lol9;&amp;&lol;\"/></Record>")
        let url = try export.writeXML(in: dir.url)
        let started = ContinuousClock.now
        let (store, report) = try await importFresh(url)
        // Expanding &lol9; would mean 10⁹ copies (gigabytes, minutes); the literal import takes milliseconds. The bound
        // is loose because tests run in parallel on a loaded 2-core machine.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        let heart = try await allSamples(store, "heartRate")
        let bomb = try #require(heart.first { $0.metadata["note"] != nil })
        #expect(bomb.metadata["note"] == "&lol9;&&lol;")
        #expect(bomb.source.name == "&lol9;")
    }

    @Test("a \\x0b control character inside an attribute value is tolerated")
    func controlCharacter() async throws {
        let dir = try TempDir()
        var export = SmallExport.fixture
        export.add("<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Alex\u{0B}s Watch\" unit=\"count/min\" value=\"71\" startDate=\"2024-05-01 13:00:00 +0200\" endDate=\"2024-05-01 13:00:00 +0200\"><MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"1\u{0B}\"/></Record>")
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        let heart = try await allSamples(store, "heartRate")
        #expect(heart.count == 2)
        #expect(heart.contains { $0.value == .quantity(71, unit: "count/min") && $0.source.name.hasPrefix("Alex") })
    }

    // MARK: Hostile or foreign archives: rejected, nothing written

    static func expectRejected(_ url: URL, limits: ArchiveLimits = ArchiveLimits(),
                               sourceLocation: SourceLocation = #_sourceLocation) async throws -> HealthError? {
        let store = try SQLiteHealthStore.inMemory()
        var options = ImportOptions()
        options.limits = limits
        let error = await expectHealthError(.importRejected, sourceLocation: sourceLocation) {
            _ = try await ExportImporter(store: store, options: options).run(url)
        }
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot(), sourceLocation: sourceLocation)
        #expect(try await store.typeSummaries().isEmpty, sourceLocation: sourceLocation)
        return error
    }

    @Test("zip slip: an entry path with ../ is rejected before anything is read or written",
          arguments: ["../evil.xml", "apple_health_export/../../evil.gpx", "apple_health_export/workout-routes/../../../evil.gpx",
                      "..\\evil.xml", "apple_health_export\\..\\..\\evil.gpx", "C:/evil.xml"])
    func zipSlip(_ path: String) async throws {
        let dir = try TempDir()
        let nested = dir.url.appendingPathComponent("a/b", isDirectory: true)
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let url = try SmallExport.fixture.writeZip(in: nested, extraEntries: [(path, Data("<HealthData/>".utf8))])
        let archive = try Archive(url: url, accessMode: .read)
        #expect(archive.contains { $0.path == path }, "the hostile entry is in the archive")
        let error = try await Self.expectRejected(url)
        #expect(error?.message.contains("zip slip") == true)
        for candidate in ["evil.xml", "evil.gpx", "a/evil.gpx", "a/evil.xml"] {
            #expect(!FileManager.default.fileExists(atPath: dir.file(candidate).path))
        }
    }

    @Test("zip bomb: a 64 MB entry of zeros is refused by the ratio limit; nothing written", arguments: [false, true])
    func zipBomb(asMainFile: Bool) async throws {
        let dir = try TempDir()
        let size = 64 << 20
        let zeros = Data(count: 1 << 20)
        let url: URL
        let bombPath = asMainFile ? "apple_health_export/export.xml" : "apple_health_export/workout-routes/route.gpx"
        if asMainFile {
            url = dir.file("export.zip")
            let archive = try Archive(url: url, accessMode: .create)
            try archive.addEntry(with: bombPath, type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate,
                                 bufferSize: 1 << 20) { (_: Int64, chunk: Int) -> Data in zeros.prefix(chunk) }
        } else {
            url = try SmallExport.fixture.writeZip(in: dir.url)
            let archive = try Archive(url: url, accessMode: .update)
            try archive.addEntry(with: bombPath, type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate,
                                 bufferSize: 1 << 20) { (_: Int64, chunk: Int) -> Data in zeros.prefix(chunk) }
        }
        let entry = try #require(try Archive(url: url, accessMode: .read)[bombPath])
        #expect(entry.uncompressedSize == UInt64(size))
        #expect(entry.compressedSize < UInt64(size / 500))
        var limits = ArchiveLimits()
        limits.ratioThreshold = 1 << 20
        limits.maximumRatio = 100
        // Refused from the central directory's sizes, before a byte is inflated.
        let error = try await Self.expectRejected(url, limits: limits)
        #expect(error?.message.contains("decompression bomb") == true, "\(String(describing: error))")

        // The absolute size limit refuses it too.
        var sizeLimit = ArchiveLimits()
        sizeLimit.maximumEntrySize = 8 << 20
        _ = try await Self.expectRejected(url, limits: sizeLimit)
    }

    @Test("a zip without a Health export is rejected; nothing written")
    func zipWithoutExport() async throws {
        let dir = try TempDir()
        let url = dir.file("photos.zip")
        let archive = try Archive(url: url, accessMode: .create)
        try ExportFixture.add(archive, "apple_health_export/export_cda.xml", Data(ExportFixture.cdaDocument.utf8))
        try ExportFixture.add(archive, "notes/notes.xml", Data("<?xml version=\"1.0\"?><notes><note/></notes>".utf8))
        try ExportFixture.add(archive, "__MACOSX/apple_health_export/._export.xml", ExportFixture.appleDouble)
        try ExportFixture.add(archive, "IMG_0001.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 500)))
        _ = try await Self.expectRejected(url)
    }

    @Test("a random binary file, a fake zip, an empty file, a foreign XML root: rejected, nothing written")
    func notAnExport() async throws {
        let dir = try TempDir()
        var generator = SystemRandomNumberGenerator()
        let random = dir.file("export.xml")
        try Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
        _ = try await Self.expectRejected(random)

        let fakeZip = dir.file("export.zip")
        try Data([0x50, 0x4B, 0x03, 0x04] + (0..<5_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: fakeZip)
        _ = try await Self.expectRejected(fakeZip)

        let empty = dir.file("empty.xml")
        try Data().write(to: empty)
        _ = try await Self.expectRejected(empty)

        let foreign = dir.file("other.xml")
        try Data(SmallExport.fixture.xml.replacingOccurrences(of: "HealthData", with: "FitnessData").utf8).write(to: foreign)
        _ = try await Self.expectRejected(foreign)

        let missing = dir.file("does-not-exist.zip")
        _ = try await Self.expectRejected(missing)
    }
}
