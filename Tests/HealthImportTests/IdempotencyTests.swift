import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing

/// `n` step records, one a minute from `startMinute`, with a device address that changes per record as in real exports.
func stepRecords(_ n: Int, startMinute: Int = 0, source: String = "Alex’s iPhone", addressSeed: Int = 0) -> [String] {
    (0..<n).map { i in
        let minute = startMinute + i
        let stamp = String(format: "2024-03-%02d %02d:%02d", 1 + minute / 1440, minute / 60 % 24, minute % 60)
        let device = X.device("iPhone", model: "iPhone", hardware: "iPhone15,2",
                              address: String(format: "0x%x", 0x2810_0000 + addressSeed * 7919 + i * 48))
        return X.steps(10 + i % 90, start: stamp + ":00 +0100", end: stamp + ":45 +0100", source: source, device: device)
    }
}

@Suite("Idempotency: re-imports and newer exports")
struct IdempotencyTests {
    /// How fast (well under a second) is measured by `scripts/import_bench.py`, not asserted here.
    @Test("the same file again is recognised by its content, without importing it again")
    func sameFile() async throws {
        let dir = try TempDir()
        let url = try FullExport.fixture.writeZip(in: dir.url)
        let store = try SQLiteHealthStore.inMemory()
        let importer = ExportImporter(store: store)
        let first = try await importer.run(url)
        let before = try await StoreSnapshot.of(store)
        #expect(first.alreadyImported == false)

        let anchor = try await store.currentAnchor()
        let second = try await importer.run(url)
        #expect(second.alreadyImported)
        #expect(try await store.currentAnchor() == anchor, "nothing was written again")
        #expect(second.contentHash == first.contentHash)
        #expect(second.records == first.records)
        #expect(try await StoreSnapshot.of(store) == before)

        // The same content under another name and path is the same import.
        let copyDir = try TempDir()
        let copy = copyDir.file("renamed.zip")
        try FileManager.default.copyItem(at: url, to: copy)
        #expect(try await importer.run(copy).alreadyImported)
    }

    @Test("--force reads the file again and inserts nothing new")
    func force() async throws {
        let dir = try TempDir()
        let url = try FullExport.fixture.writeZip(in: dir.url)
        let store = try SQLiteHealthStore.inMemory()
        let first = try await ExportImporter(store: store).run(url)
        let before = try await StoreSnapshot.of(store)
        let forced = try await ExportImporter(store: store, options: ImportOptions(force: true)).run(url)
        #expect(forced.alreadyImported == false)
        #expect(forced.records == first.records)
        #expect(forced.samplesInserted == 0)
        #expect(forced.samplesAlreadyStored == first.samplesInserted + first.samplesAlreadyStored)
        #expect(forced.workoutsInserted == 0)
        #expect(forced.correlationsInserted == 0)
        #expect(forced.documentsInserted == 0)
        #expect(forced.routePoints == first.routePoints)
        #expect(try await StoreSnapshot.of(store) == before)
    }

    @Test("a newer export that contains the older one adds only the new records")
    func newerExport() async throws {
        let dir = try TempDir()
        var older = ExportFixture(stepRecords(40))
        older.add(FullExport.fixture.elements[2])  // the step record with metadata
        var newer = ExportFixture(stepRecords(40, addressSeed: 5) + stepRecords(15, startMinute: 40, addressSeed: 9))
        newer.add(FullExport.fixture.elements[2])
        newer.add(X.record("HKQuantityTypeIdentifierBodyMass", source: "Health", unit: "kg", value: "61.2",
                           start: "2024-03-02 07:00:00 +0100"))
        let olderURL = try older.writeXML(in: dir.url, name: "older.xml")
        let newerURL = try newer.writeXML(in: dir.url, name: "newer.xml")

        let store = try SQLiteHealthStore.inMemory()
        let first = try await ExportImporter(store: store).run(olderURL)
        #expect(first.samplesInserted == 41)
        let second = try await ExportImporter(store: store).run(newerURL)
        #expect(second.alreadyImported == false)
        #expect(second.samplesInserted == 16)
        #expect(second.samplesAlreadyStored == 41)
        #expect(try await sampleCount(store) == 57)

        // The same as importing only the newer export.
        let (clean, _) = try await importFresh(newerURL)
        #expect(try await StoreSnapshot.of(store) == StoreSnapshot.of(clean))
        // One iPhone source, whatever the per-sample device addresses.
        #expect(try await store.sources(type: "stepCount").count == 1)
    }

    @Test("a newer export with a higher HKMetadataKeySyncVersion replaces the older version of the sample")
    func syncVersion() async throws {
        let dir = try TempDir()
        func weight(_ value: String, version: Int) -> String {
            X.record("HKQuantityTypeIdentifierBodyMass", source: "Withings", unit: "kg", value: value,
                     start: "2024-03-02 07:00:00 +0100",
                     children: [X.metadata("HKMetadataKeySyncIdentifier", "withings-123"),
                                X.metadata("HKMetadataKeySyncVersion", "\(version)")])
        }
        let older = try ExportFixture(stepRecords(3) + [weight("61.2", version: 1)]).writeXML(in: dir.url, name: "older.xml")
        let newer = try ExportFixture(stepRecords(3) + [weight("60.8", version: 2)]).writeXML(in: dir.url, name: "newer.xml")
        let store = try SQLiteHealthStore.inMemory()
        _ = try await ExportImporter(store: store).run(older)
        let report = try await ExportImporter(store: store).run(newer)
        #expect(report.samplesReplaced == 1)
        #expect(report.samplesInserted == 0)
        #expect(report.samplesAlreadyStored == 3)
        let weights = try await allSamples(store, "bodyMass")
        #expect(weights.map(\.value) == [.quantity(60.8, unit: "kg")])
        // The older export again changes nothing.
        let again = try await ExportImporter(store: store).run(older, progress: nil)
        #expect(again.alreadyImported)
        let forced = try await ExportImporter(store: store, options: ImportOptions(force: true)).run(older)
        #expect(forced.samplesInserted == 0 && forced.samplesReplaced == 0)
        #expect(try await allSamples(store, "bodyMass").map(\.value) == [.quantity(60.8, unit: "kg")])
    }
}
