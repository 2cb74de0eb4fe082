import Foundation
import HealthEngine
import HealthImport
import HealthModel
import HealthStore
import Testing

/// Exports from iPhones set to other languages, and from an old and a new phone, merge like the English one.
@Suite("Exports in other languages and from several phones")
struct LocalisedExportTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// How one language writes what differs: the device names the user got at setup, the Health app's name, the
    /// locale and the decimal/time formats of localised metadata values.
    struct Language: Sendable, CustomStringConvertible {
        var locale: String
        var phone: String
        var watch: String
        var healthApp: String
        var description: String { locale }

        static let english = Language(locale: "en_US", phone: "Marie’s iPhone", watch: "Marie’s Apple Watch", healthApp: "Health")
        static let french = Language(locale: "fr_FR", phone: "iPhone de Marie", watch: "Apple Watch de Marie", healthApp: "Santé")
        static let german = Language(locale: "de_DE", phone: "iPhone von Max", watch: "Apple Watch von Max", healthApp: "Health")
        static let italian = Language(locale: "it_IT", phone: "iPhone di Giulia", watch: "Apple Watch di Giulia", healthApp: "Salute")
    }

    static func phoneDevice(_ hardware: String = "iPhone14,2", address: Int) -> String {
        X.device("iPhone", model: "iPhone", hardware: hardware, software: "17.4", address: String(format: "0x28%05x", address))
    }

    static func watchDevice(address: Int) -> String {
        X.device("Apple Watch", model: "Watch", hardware: "Watch6,1", software: "10.4", address: String(format: "0x29%05x", address))
    }

    /// Three days of walks: the phone and the watch record the same walks (overlapping), the watch alone in the
    /// evening, one entry typed into the Health app, and sleep and an HRV record with localised metadata values.
    static func export(_ language: Language, days: ClosedRange<Int> = 1...3) -> ExportFixture {
        var export = ExportFixture()
        export.locale = language.locale
        for day in days {
            let date = String(format: "2024-05-%02d", day)
            func stamp(_ time: String) -> String { "\(date) \(time):00 +0200" }
            for hour in [9, 13, 17] {
                let h = String(format: "%02d", hour)
                export.add(X.record("HKQuantityTypeIdentifierStepCount", source: language.phone, version: "17.4",
                                    device: phoneDevice(address: day * 100 + hour), unit: "count",
                                    value: "\(1_000 + day * 10 + hour)", creation: stamp("\(h):31"),
                                    start: stamp("\(h):00"), end: stamp("\(h):30")))
                export.add(X.record("HKQuantityTypeIdentifierStepCount", source: language.watch, version: "10.4",
                                    device: watchDevice(address: day * 100 + hour), unit: "count",
                                    value: "\(900 + day * 7 + hour)", creation: stamp("\(h):21"),
                                    start: stamp("\(h):05"), end: stamp("\(h):20")))
            }
            export.add(X.record("HKQuantityTypeIdentifierStepCount", source: language.watch, version: "10.4",
                                device: watchDevice(address: day * 100 + 21), unit: "count", value: "\(300 + day)",
                                creation: stamp("21:11"), start: stamp("21:00"), end: stamp("21:10")))
            export.add(X.record("HKQuantityTypeIdentifierStepCount", source: language.healthApp, version: "17.4",
                                unit: "count", value: "\(400 + day)", creation: stamp("12:30"),
                                start: stamp("13:10"), end: stamp("13:25"),
                                children: [X.metadata("HKWasUserEntered", "1")]))
            export.add(X.record("HKCategoryTypeIdentifierSleepAnalysis", source: language.watch, version: "10.4",
                                device: watchDevice(address: day * 100 + 1), value: "HKCategoryValueSleepAnalysisAsleepCore",
                                creation: stamp("07:01"), start: stamp("01:00"), end: stamp("06:30"),
                                children: [X.metadata("HKTimeZone", "Europe/Paris")]))
        }
        return export
    }

    /// The merged (source-priority) daily steps of a store over May 2024's first days, in Paris.
    static func dailySteps(_ store: SQLiteHealthStore, days: Int = 3) async throws -> [Double] {
        let start = date("2024-04-30T22:00:00Z")
        let stats = try await HealthEngine(store: store).statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: start, end: start.addingTimeInterval(Double(days) * 86_400),
            interval: StatisticsInterval(1, .day), timeZone: paris))
        return stats.buckets.map { $0.sum ?? 0 }
    }

    @Test("French, German and Italian exports give the English export's merged daily steps",
          arguments: [Language.french, .german, .italian])
    func sameMergedSteps(_ language: Language) async throws {
        let dir = try TempDir()
        let (english, _) = try await importFresh(try Self.export(.english).writeXML(in: dir.url, name: "en.xml"))
        let (localised, report) = try await importFresh(try Self.export(language).writeXML(in: dir.url, name: "\(language.locale).xml"))
        #expect(report.samplesInserted == 3 * 9)
        let expected = try await Self.dailySteps(english)
        #expect(expected.count == 3 && expected.allSatisfy { $0 > 0 })
        #expect(try await Self.dailySteps(localised) == expected)

        // The sources are classified by hardware and model, not by their localised names.
        let categories = Dictionary(uniqueKeysWithValues: try await localised.sources(type: "stepCount")
            .map { ($0.source.name, $0.source.category) })
        #expect(categories[language.phone] == .iPhone)
        #expect(categories[language.watch] == .appleWatch)
        #expect(categories[language.healthApp] == .userEntered)
        #expect(try await allSamples(localised, "sleepAnalysis").count == 3)
    }

    @Test("an old and a new phone's exports, a week in common, merge into one store without double counting")
    func oldAndNewPhone() async throws {
        let dir = try TempDir()
        // The old phone (iPhone10,6) exported days 1–10; the new one (iPhone15,2, set to French) days 4–14: the
        // old phone's and the watch's samples of days 4–10 are in both, under other HKDevice addresses, and the
        // new phone records from day 8 on.
        var old = Self.export(.english, days: 1...10)
        old.elements = old.elements.map { $0.replacingOccurrences(of: "hardware:iPhone14,2", with: "hardware:iPhone10,6") }
        var new = Self.export(.english, days: 4...14)
        new.locale = "fr_FR"
        new.elements = new.elements.map { element in
            element.replacingOccurrences(of: "hardware:iPhone14,2", with: "hardware:iPhone10,6")
                .replacingOccurrences(of: "HKDevice: 0x28", with: "HKDevice: 0x38")
                .replacingOccurrences(of: "HKDevice: 0x29", with: "HKDevice: 0x39")
        }
        for day in 8...14 {
            let date = String(format: "2024-05-%02d", day)
            new.add(X.record("HKQuantityTypeIdentifierStepCount", source: "Marie’s iPhone", version: "17.5",
                             device: Self.phoneDevice("iPhone15,2", address: 9_000 + day), unit: "count", value: "777",
                             creation: "\(date) 11:01:00 +0200", start: "\(date) 10:40:00 +0200",
                             end: "\(date) 11:00:00 +0200"))
        }
        // The reference: one export holding every record once.
        var union = Self.export(.english, days: 1...14)
        union.elements = union.elements.map { $0.replacingOccurrences(of: "hardware:iPhone14,2", with: "hardware:iPhone10,6") }
        union.elements += new.elements.filter { $0.contains("iPhone15,2") }

        let store = try SQLiteHealthStore.inMemory()
        let first = try await ExportImporter(store: store).run(try old.writeXML(in: dir.url, name: "old.xml"))
        let second = try await ExportImporter(store: store).run(try new.writeXML(in: dir.url, name: "new.xml"))
        #expect(first.samplesInserted == 10 * 9)
        #expect(second.samplesInserted == 4 * 9 + 7, "only days 11–14 and the new phone's records are new")
        #expect(second.samplesAlreadyStored == 7 * 9)

        let (reference, _) = try await importFresh(try union.writeXML(in: dir.url, name: "union.xml"))
        #expect(try await Self.dailySteps(store, days: 14) == Self.dailySteps(reference, days: 14))
        #expect(try await allSamples(store, "stepCount").count == allSamples(reference, "stepCount").count)
        let sources = try await store.sources(type: "stepCount").map(\.source)
        #expect(sources.count == 4, "old phone, new phone, watch, Health app: one source each")
        #expect(sources.filter { $0.category == .iPhone }.count == 2)
    }

    @Test("a localised ECG classification is normalised to HealthKit's identifier", arguments: [
        ("Classification", "Sinus Rhythm", "sinusRhythm"),
        ("Classification", "Rythme sinusal", "sinusRhythm"),
        ("Klassifizierung", "Vorhofflimmern", "atrialFibrillation"),
        ("Classification", "Non concluant", "inconclusiveOther"),
    ])
    func ecgClassification(_ key: String, _ text: String, _ identifier: String) async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        export.files["electrocardiograms/ecg_2024-05-01.csv"] = Data("""
            Name,Marie
            Recorded Date,2024-05-01 08:00:00 +0200
            \(key),\(text)
            Device,"Watch6,1"
            Sample Rate,512 hertz
            Unit,µV

            -12.25
            3.5

            """.utf8)
        let (store, _) = try await importFresh(try export.writeZip(in: dir.url))
        let ecg = try #require(try await store.documents(kind: .electrocardiogram, start: nil, end: nil, limit: nil).first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ecg.json.utf8)) as? [String: Any])
        let header = try #require(object["header"] as? [String: String])
        #expect(header[key] == text, "the text as written is kept")
        #expect(header["Classification Identifier"] == identifier)
    }
}
