import Foundation
import HealthModel
import HealthStore
import Synchronization

/// A store that forwards every call to another one and records which requirements were called: a test sees what a
/// request asked of the store — the paired API's `status` must ask nothing whose cost grows with the samples, the
/// current anchor must read no stored object.
///
/// ```swift
/// let store = RecordingHealthStore(demo)
/// _ = try await service.changesAnchor()
/// #expect(store.dataReads.isEmpty)
/// ```
public final class RecordingHealthStore: HealthStore {
    public let base: any HealthStore
    private let recorded = Mutex<[String: Int]>([:])

    public init(_ base: any HealthStore) { self.base = base }

    /// The requirements called since the last ``reset()``, with how many times.
    public var calls: [String: Int] { recorded.withLock { $0 } }
    public func reset() { recorded.withLock { $0 = [:] } }

    /// The requirements that read stored objects (samples, workouts, correlations, documents, type summaries, sources
    /// or the change feed), among ``calls``.
    public var dataReads: [String: Int] { calls.filter { Self.dataReading.contains($0.key) } }
    public static let dataReading: Set<String> = [
        "samples", "sample", "sampleBySyncIdentifier", "workouts", "workout", "routePoints", "correlations", "documents",
        "scan", "typeSummaries", "sources", "priority", "changes",
    ]
    private func note(_ name: String) { recorded.withLock { $0[name, default: 0] += 1 } }

    public func save(_ samples: [HealthSample]) async throws -> SaveResult { note("save"); return try await base.save(samples) }
    public func save(workouts: [HealthWorkout]) async throws -> SaveResult { note("saveWorkouts"); return try await base.save(workouts: workouts) }
    public func save(correlations: [HealthCorrelation]) async throws -> SaveResult {
        note("saveCorrelations")
        return try await base.save(correlations: correlations)
    }
    public func save(documents: [HealthDocument]) async throws -> SaveResult { note("saveDocuments"); return try await base.save(documents: documents) }
    public func saveRoute(_ route: UUID, points: [RoutePoint]) async throws { note("saveRoute"); try await base.saveRoute(route, points: points) }
    public func delete(uuids: [UUID]) async throws -> Int { note("delete"); return try await base.delete(uuids: uuids) }
    public func delete(matching query: SampleQuery) async throws -> Int { note("deleteMatching"); return try await base.delete(matching: query) }
    public func commit(_ transaction: StoreTransaction) async throws -> TransactionResult { note("commit"); return try await base.commit(transaction) }
    public func samples(_ query: SampleQuery) async throws -> SamplePage { note("samples"); return try await base.samples(query) }
    public func sample(_ uuid: UUID) async throws -> HealthSample? { note("sample"); return try await base.sample(uuid) }
    public func sample(syncIdentifier: String, sourceKey: String) async throws -> HealthSample? {
        note("sampleBySyncIdentifier")
        return try await base.sample(syncIdentifier: syncIdentifier, sourceKey: sourceKey)
    }
    public func workouts(_ query: WorkoutQuery) async throws -> [HealthWorkout] { note("workouts"); return try await base.workouts(query) }
    public func workout(_ uuid: UUID) async throws -> HealthWorkout? { note("workout"); return try await base.workout(uuid) }
    public func routePoints(_ route: UUID, offset: Int, limit: Int) async throws -> [RoutePoint] {
        note("routePoints")
        return try await base.routePoints(route, offset: offset, limit: limit)
    }
    public func correlations(type: String, start: Date?, end: Date?, limit: Int?) async throws -> [HealthCorrelation] {
        note("correlations")
        return try await base.correlations(type: type, start: start, end: end, limit: limit)
    }
    public func documents(kind: HealthDocument.Kind, start: Date?, end: Date?, limit: Int?) async throws -> [HealthDocument] {
        note("documents")
        return try await base.documents(kind: kind, start: start, end: end, limit: limit)
    }
    public func scan(_ request: ScanRequest, _ body: (ScanRow) throws -> Void) async throws {
        note("scan")
        try await base.scan(request, body)
    }
    public func typeSummaries() async throws -> [TypeSummary] { note("typeSummaries"); return try await base.typeSummaries() }
    public func presentTypes() async throws -> Set<String> { note("presentTypes"); return try await base.presentTypes() }
    public func sources(type: String?) async throws -> [SourceSummary] { note("sources"); return try await base.sources(type: type) }
    public func priority(type: String, counts: Bool) async throws -> [SourceSummary] {
        note("priority")
        return try await base.priority(type: type, counts: counts)
    }
    public func setPriority(type: String, sources: [String]) async throws { note("setPriority"); try await base.setPriority(type: type, sources: sources) }
    public func resetPriority(type: String) async throws { note("resetPriority"); try await base.resetPriority(type: type) }
    public func currentAnchor() async throws -> Int64 { note("currentAnchor"); return try await base.currentAnchor() }
    public func changes(since anchor: Int64?, types: [String]?, limit: Int) async throws -> ChangeSet {
        note("changes")
        return try await base.changes(since: anchor, types: types, limit: limit)
    }
    public func changeNotifications() -> AsyncStream<ChangeNotification> { base.changeNotifications() }
    public func setting(_ key: String) async throws -> String? { note("setting"); return try await base.setting(key) }
    public func settings(prefix: String) async throws -> [String: String] { note("settings"); return try await base.settings(prefix: prefix) }
    public func updateSetting(_ key: String, _ transform: @escaping @Sendable (String?) throws -> String?) async throws -> String? {
        note("updateSetting")
        return try await base.updateSetting(key, transform)
    }
}
