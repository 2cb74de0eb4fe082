import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing

/// How records become store rows: metadata gathered from the file's bytes, sync identifiers, unclassified values,
/// and batches of every size.
@Suite("Records to rows")
struct RecordRowTests {
    @Test("metadata: the last of equal keys wins, values are unescaped from XML and kept exactly")
    func metadataEntries() async throws {
        let dir = try TempDir()
        let export = ExportFixture([
            X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "61", start: "2024-05-01 08:00:00 +0200",
                     children: [X.metadata("zeta", "1"), X.metadata("HKMetadataKeyHeartRateMotionContext", "0"),
                                X.metadata("zeta", "2 & <3> \"quoted\" \\ back"), X.metadata("alpha", "é ✓"),
                                X.metadata("HKTimeZone", "Europe/Paris")]),
            X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "62", start: "2024-05-01 08:01:00 +0200"),
        ])
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        let samples = try await allSamples(store, "heartRate")
        #expect(samples.count == 2)
        #expect(samples[0].metadata == ["zeta": "2 & <3> \"quoted\" \\ back", "HKMetadataKeyHeartRateMotionContext": "0",
                                        "alpha": "é ✓", "HKTimeZone": "Europe/Paris"])
        #expect(samples[0].timeZone == "Europe/Paris")
        // A record's metadata never leaks into the next one.
        #expect(samples[1].metadata.isEmpty)
        #expect(samples[1].timeZone == nil)
    }

    @Test("records with a sync identifier: the highest version is kept, the others count as replaced or ignored")
    func syncIdentifiers() async throws {
        let dir = try TempDir()
        func weight(_ value: String, version: String, at start: String) -> String {
            X.record("HKQuantityTypeIdentifierBodyMass", source: "Withings", unit: "kg", value: value, start: start,
                     children: [X.metadata("HKMetadataKeySyncIdentifier", "w-1"),
                                X.metadata("HKMetadataKeySyncVersion", version)])
        }
        let export = ExportFixture([
            weight("71.0", version: "1", at: "2024-05-01 07:00:00 +0200"),
            weight("70.5", version: "3", at: "2024-05-01 07:05:00 +0200"),
            weight("70.8", version: "2", at: "2024-05-01 07:10:00 +0200"),
        ])
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        let kept = try await allSamples(store, "bodyMass")
        #expect(kept.map(\.value) == [.quantity(70.5, unit: "kg")])
        #expect(kept.first?.syncIdentifier == "w-1")
        #expect(kept.first?.syncVersion == 3)
        #expect(report.samplesReplaced == 1)
        #expect(report.samplesAlreadyStored == 1)
    }

    @Test("a type the registry cannot classify keeps whole numbers as categories and fractions as counts")
    func unclassifiedValues() async throws {
        let dir = try TempDir()
        let export = ExportFixture([
            X.record("HKDataTypeIdentifierFutureThing", value: "3", start: "2024-05-01 08:00:00 +0000"),
            X.record("HKDataTypeIdentifierFutureThing", value: "2.5", start: "2024-05-01 08:01:00 +0000"),
            X.record("HKDataTypeIdentifierFutureThing", unit: "ms", value: "12", start: "2024-05-01 08:02:00 +0000"),
            X.record("HKDataTypeIdentifierFutureThing", value: "high", start: "2024-05-01 08:03:00 +0000"),
        ])
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        let samples = try await allSamples(store, "HKDataTypeIdentifierFutureThing")
        #expect(samples.map(\.value) == [.category(3), .quantity(2.5, unit: "count"), .quantity(12, unit: "ms"), .none])
        #expect(samples[3].metadata["HKExportValue"] == "high")
    }

    @Test("every batch size gives the same store, interleaved sources and types included", arguments: [1, 7, 2_000, 20_000])
    func batchSizes(_ size: Int) async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        for (i, record) in stepRecords(1_500).enumerated() {
            export.add(record)
            if i % 3 == 0 {
                export.add(X.record("HKQuantityTypeIdentifierHeartRate", source: "Alex’s Apple Watch", device: X.watchDevice,
                                    unit: "count/min", value: "\(60 + i % 40)",
                                    start: String(format: "2024-03-%02d %02d:%02d:10 +0100", 1 + i / 1440, i / 60 % 24, i % 60),
                                    children: i % 2 == 0 ? [X.metadata("HKMetadataKeyHeartRateMotionContext", "1")] : []))
            }
        }
        let url = try export.writeXML(in: dir.url)
        var options = ImportOptions()
        options.batchSize = size
        let (store, report) = try await importFresh(url, options: options)
        let (reference, _) = try await importFresh(url)
        #expect(report.samplesInserted == 2_000)
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot.of(reference))
        let hearts = try await allSamples(store, "heartRate")
        #expect(hearts.count == 500)
        #expect(hearts.filter { $0.metadata["HKMetadataKeyHeartRateMotionContext"] == "1" }.count == 250)
    }
}
