import Foundation
import HealthAPI
import Synchronization
import HealthModel
import HealthStore
@testable import HealthService

enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static let now = ISO8601.date("2024-06-01T00:00:00Z")!
    /// The zone of the fixtures' dates (+01:00 in March).
    static let zone = TimeZone(identifier: "Europe/Berlin")!

    static func service(zone: TimeZone = Fixture.zone) throws -> HealthService {
        HealthService(store: try SQLiteHealthStore.inMemory(), homeTimeZone: zone, clock: { now })
    }

    static let phone = Principal(kind: .ingest, name: "phone")

    /// The service acting as an ingest token granted every type HAE sends.
    static func ingestService() async throws -> HealthService {
        let owner = try service()
        try await owner.updateGrants(GrantsUpdate(principal: phone.id, allowWrite: HAEWritable.types))
        return owner.acting(as: phone)
    }

    /// Every stored sample of a type, oldest first.
    static func samples(_ service: HealthService, _ type: String) async throws -> [HealthSample] {
        try await service.store.samples(SampleQuery(type: type)).samples
    }
}

import HealthAutoExport
enum HAEWritable { static let types = HAEMetricCatalog.writableTypes }

/// Collects audit entries.
final class AuditRecorder: HealthAuditor, Sendable {
    private let stored = Mutex<[WriteAuditEntry]>([])
    var entries: [WriteAuditEntry] { stored.withLock { $0 } }
    func record(_ entry: WriteAuditEntry) async { stored.withLock { $0.append(entry) } }
    func record(_ change: ConsentAuditEntry) async {}
}

extension HealthService {
    /// What the Health Auto Export receiver does with a body: the reader's batch (with the request's grouping), then
    /// the service's ingest.
    func ingestHealthAutoExport(_ body: [UInt8], info: IngestBatchInfo = IngestBatchInfo()) async throws -> IngestReport {
        try await ingest(try HAEPayloadReader(aggregation: HAEBucket(header: info.aggregation)).batch(body), info: info)
    }

    /// What the Health Connect receiver does with a body: the reader's batch, then the service's ingest.
    func ingestHealthConnect(_ body: [UInt8], info: IngestBatchInfo = IngestBatchInfo()) async throws -> IngestReport {
        try await ingest(try HealthConnectPayloadReader().batch(body), info: info)
    }
}
