import Foundation
import GRDB
import HealthModel
@testable import HealthStore
import Testing

/// The `v3-export-key-creation` migration: export samples stored under the version-1 natural UUID get the
/// version-2 one (with the creation date); every other UUID is left alone.
/// SQLite only: a migration of the SQLite schema (rekeying stored export samples).
@Suite("Export natural key migration")
struct ExportKeyMigrationTests {
    static let exportPhone = HealthSource(
        name: "iPhone de Marie", version: "17.4",
        deviceDescription: "<<HKDevice: 0x2801>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.4>")

    @Test("rekeys export samples with a creation date; client, principal and undated UUIDs stay")
    func rekey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hb-rekey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.sqlite")
        let created = at(300)
        // As a version-1 import stored them: natural UUIDs without the creation date.
        let imported = HealthSample(type: "stepCount", start: at(0), end: at(60), value: .quantity(80, unit: "count"),
                                    source: Self.exportPhone, creationDate: created)
        let undated = HealthSample(type: "stepCount", start: at(60), end: at(120), value: .quantity(90, unit: "count"),
                                   source: Self.exportPhone)
        let sleep = HealthSample(type: "sleepAnalysis", start: at(0), end: at(3_600), value: .category(3),
                                 source: Self.exportPhone, creationDate: created)
        let clientChosen = HealthSample(uuid: UUID(), type: "stepCount", start: at(200), end: at(260),
                                        value: .quantity(5, unit: "count"), source: Self.exportPhone, creationDate: created)
        let written = HealthSample(type: "bodyMass", start: at(0), end: at(0), value: .quantity(61, unit: "kg"),
                                   source: HealthSource(name: "HealthBridge", bundleIdentifier: "org.healthbridge.owner"),
                                   creationDate: created)
        let correlationMember = HealthSample(type: "bloodPressureSystolic", start: at(0), end: at(0),
                                             value: .quantity(120, unit: "mmHg"), source: Self.exportPhone,
                                             creationDate: created)
        do {
            let store = try SQLiteHealthStore(location: .file(file))
            try await store.save([imported, undated, sleep, clientChosen, written, correlationMember])
            try await store.save(correlations: [HealthCorrelation(type: "bloodPressure", start: at(0), end: at(0),
                                                                  source: Self.exportPhone, creationDate: created,
                                                                  members: [correlationMember.uuid])])
        }
        let queue = try DatabaseQueue(path: file.path)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3-export-key-creation'")
        }
        try queue.close()

        let store = try SQLiteHealthStore(location: .file(file))
        let anchor = try await store.currentAnchor()
        #expect(anchor > 6, "the rekey is on the change feed")

        func v2(_ sample: HealthSample) -> UUID {
            HealthSample.naturalUUID(prefix: HealthSample.naturalUUIDPrefix(type: sample.type, sourceKey: sample.source.key),
                                     start: sample.start, end: sample.end, value: sample.value,
                                     created: sample.creationDate?.timeIntervalSince1970)
        }
        #expect(try await store.sample(imported.uuid) == nil)
        #expect(try await store.sample(v2(imported)) != nil)
        #expect(try await store.sample(v2(sleep)) != nil)
        #expect(try await store.sample(undated.uuid) != nil, "no creation date: the version-1 UUID is the version-2 one")
        #expect(try await store.sample(clientChosen.uuid) != nil)
        #expect(try await store.sample(written.uuid) != nil)
        let correlation = try #require(try await store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil).first)
        #expect(correlation.members == [v2(correlationMember)])

        let changes = try await store.changes(since: 0, types: nil, limit: 100)
        #expect(Set(changes.deleted.map(\.uuid)) == [imported.uuid, sleep.uuid, correlationMember.uuid])
        #expect(try await store.setting("export_natural_key_version") == "2")
    }
}
