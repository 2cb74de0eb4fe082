import Foundation
import HealthImport
import HealthModel
@testable import HealthStore
import Testing

/// The natural key of an export's records includes the creation date (version 2): two entries equal in everything
/// but their creation date are two objects, and stores keyed under version 1 are rekeyed once.
@Suite("Natural key: the creation date")
struct CreationDateKeyTests {
    /// Two 250 mL glasses logged for the same time, minutes apart, plus a step record and a blood-pressure
    /// correlation whose member records also appear at top level.
    static var export: ExportFixture {
        func water(created: String) -> String {
            X.record("HKQuantityTypeIdentifierDietaryWater", source: "WaterMinder", version: "5.2", unit: "mL",
                     value: "250", creation: created, start: "2024-05-01 12:00:00 +0200")
        }
        let systolic = X.record("HKQuantityTypeIdentifierBloodPressureSystolic", source: "Health", unit: "mmHg",
                                value: "121", creation: "2024-05-01 08:01:00 +0200", start: "2024-05-01 08:00:00 +0200")
        let diastolic = X.record("HKQuantityTypeIdentifierBloodPressureDiastolic", source: "Health", unit: "mmHg",
                                 value: "79", creation: "2024-05-01 08:01:00 +0200", start: "2024-05-01 08:00:00 +0200")
        let correlation = X.element("Correlation", [
            ("type", "HKCorrelationTypeIdentifierBloodPressure"), ("sourceName", "Health"), ("sourceVersion", "17.4"),
            ("creationDate", "2024-05-01 08:01:00 +0200"), ("startDate", "2024-05-01 08:00:00 +0200"),
            ("endDate", "2024-05-01 08:00:00 +0200"),
        ], children: [systolic, diastolic])
        return ExportFixture([
            water(created: "2024-05-01 12:03:10 +0200"),
            water(created: "2024-05-01 12:09:42 +0200"),
            X.record("HKQuantityTypeIdentifierStepCount", device: X.iPhoneDevice, unit: "count", value: "420",
                     creation: "2024-05-01 10:20:00 +0200", start: "2024-05-01 10:00:00 +0200",
                     end: "2024-05-01 10:15:00 +0200"),
            systolic, diastolic, correlation,
        ])
    }

    @Test("two glasses equal but for their creation date are both stored")
    func pairKept() async throws {
        let dir = try TempDir()
        let (store, report) = try await importFresh(try Self.export.writeXML(in: dir.url))
        let water = try await allSamples(store, "dietaryWater")
        #expect(water.count == 2)
        #expect(Set(water.map(\.uuid)).count == 2)
        #expect(Set(water.compactMap(\.creationDate)).count == 2)
        #expect(report.samplesInserted == 5)
    }

    @Test("importing the same export twice stores the pair once")
    func idempotent() async throws {
        let dir = try TempDir()
        let url = try Self.export.writeXML(in: dir.url)
        let (store, _) = try await importFresh(url)
        let before = try await StoreSnapshot.of(store)
        let anchor = try await store.currentAnchor()
        let again = try await ExportImporter(store: store, options: ImportOptions(force: true)).run(url)
        #expect(again.samplesInserted == 0)
        #expect(again.correlationsInserted == 0)
        #expect(try await allSamples(store, "dietaryWater").count == 2)
        #expect(try await store.currentAnchor() == anchor)
        #expect(try await StoreSnapshot.of(store) == before)
    }

    @Test("a store keyed under version 1 is rekeyed when opened and re-imports without duplicates")
    func legacyStore() async throws {
        let dir = try TempDir()
        let url = try Self.export.writeXML(in: dir.url)
        let file = dir.file("legacy.sqlite")
        do {
            let legacy = try SQLiteHealthStore(location: .file(file))
            _ = try await ExportImporter(store: legacy).run(url)
            try await legacy.downgradeToExportKeyVersion1()
            // As version 1 stored it: one glass (the pair collapsed), every UUID the version-1 natural UUID.
            #expect(try await allSamples(legacy, "dietaryWater").count == 1)
            let steps = try #require(try await allSamples(legacy, "stepCount").first)
            #expect(steps.uuid == HealthSample.naturalUUID(type: "stepCount", sourceKey: steps.source.key,
                                                           start: steps.start, end: steps.end, value: steps.value))
        }
        // Opening runs the migration: stored UUIDs become version-2 UUIDs.
        let store = try SQLiteHealthStore(location: .file(file))
        let anchorBefore = try await store.currentAnchor()
        let stepsBefore = try await allSamples(store, "stepCount")
        let report = try await ExportImporter(store: store, options: ImportOptions(force: true)).run(url)
        // Only the glass version 1 had lost is new; nothing else is stored twice.
        #expect(report.samplesInserted == 1)
        #expect(report.correlationsInserted == 0)
        #expect(try await allSamples(store, "dietaryWater").count == 2)
        #expect(try await allSamples(store, "stepCount").map(\.uuid) == stepsBefore.map(\.uuid))
        #expect(try await allSamples(store, "stepCount").count == 1)
        #expect(try await allSamples(store, "bloodPressureSystolic").count == 1)
        #expect(try await allSamples(store, "bloodPressureDiastolic").count == 1)
        #expect(try await store.currentAnchor() > anchorBefore)
        // The correlation still names its (rekeyed) members.
        let correlation = try #require(try await store.correlations(type: "bloodPressure", start: nil, end: nil,
                                                                    limit: nil).first)
        let members = Set(try await allSamples(store, "bloodPressureSystolic").map(\.uuid)
            + allSamples(store, "bloodPressureDiastolic").map(\.uuid))
        #expect(Set(correlation.members) == members)
    }
}
