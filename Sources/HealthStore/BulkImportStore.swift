import Foundation
import HealthModel

/// A store's fast path for imports and large pushes, apart from ``HealthStore``: packed sample batches, routes as
/// columns, one transaction of a whole push with a page-cache hint, and housekeeping moved off the writer while an
/// import runs.
///
/// ``SQLiteHealthStore`` adopts it. A PostgreSQL store may (COPY is its bulk path); a HealthKit store has no reason
/// to. Nobody calls it directly: the Apple Health importer and the service's ingest write through ``BulkWriter``,
/// which takes this path when the store has it and the plain ``HealthStore`` API otherwise. Every requirement has a
/// default implementation over ``HealthStore``, so a store adopts it for the one operation it does faster.
///
/// ```swift
/// let writer = BulkWriter(store)                   // any HealthStore
/// await writer.beginBulkWrites()
/// let saved = try await writer.save(batch)         // SQLite binds the packed rows; another store gets samples
/// await writer.endBulkWrites()
/// ```
public protocol BulkImportStore: HealthStore {
    /// Saves a packed batch in one transaction, exactly as ``HealthStore/save(_:)`` saves its samples.
    @discardableResult
    func save(_ batch: SampleBatch) async throws -> SaveResult
    /// Replaces the points of a route, given as columns.
    func saveRoute(_ route: UUID, columns: RoutePointColumns) async throws
    /// The points `[offset, offset + limit)` of a route as columns, for computations over a whole route (summaries)
    /// without an object per point.
    func routeColumns(_ route: UUID, offset: Int, limit: Int) async throws -> RoutePointColumns
    /// Writes a bulk transaction all or nothing, like ``HealthStore/commit(_:)``.
    @discardableResult
    func commit(_ transaction: BulkTransaction) async throws -> TransactionResult
    /// The objects of one type and source that carry a sync identifier and start in `start..<end`, by sync
    /// identifier: what a bulk writer compares its items with (lighter than whole samples).
    func syncedObjects(type: String, sourceKey: String, start: Date, end: Date) async throws -> [String: SyncedObject]
    /// Announces a run of large write transactions (an import): the store may move housekeeping off the writer
    /// while it lasts (``SQLiteHealthStore`` checkpoints its WAL on another thread). Balanced by
    /// ``endBulkWrites()``; calls nest.
    func beginBulkWrites() async
    /// Ends what ``beginBulkWrites()`` began, once every write of the run has returned.
    func endBulkWrites() async
}

extension BulkImportStore {
    @discardableResult
    public func save(_ batch: SampleBatch) async throws -> SaveResult { try await save(batch.samples) }

    public func saveRoute(_ route: UUID, columns: RoutePointColumns) async throws {
        try await saveRoute(route, points: columns.points)
    }

    public func routeColumns(_ route: UUID, offset: Int, limit: Int) async throws -> RoutePointColumns {
        RoutePointColumns(try await routePoints(route, offset: offset, limit: limit))
    }

    @discardableResult
    public func commit(_ transaction: BulkTransaction) async throws -> TransactionResult {
        try await commit(transaction.unpacked)
    }

    public func syncedObjects(type: String, sourceKey: String, start: Date, end: Date) async throws
        -> [String: SyncedObject]
    {
        try await syncedObjectsFromSamples(type: type, sourceKey: sourceKey, start: start, end: end)
    }

    public func beginBulkWrites() async {}
    public func endBulkWrites() async {}
}

/// What ``BulkImportStore/commit(_:)`` writes, in this order: deletions first, then the packed samples,
/// correlations, workouts and the workouts' route points.
///
/// ```swift
/// var transaction = BulkTransaction(deletions: replaced, batch: batch, workouts: workouts, routes: routes)
/// transaction.pageCacheMegabytes = 8      // a large push spills to the WAL as it goes
/// let result = try await BulkWriter(store).commit(transaction)
/// ```
public struct BulkTransaction: Sendable {
    public var deletions: [UUID]
    /// The samples, packed (a bulk ingest): saved without a `HealthSample` per row where the store allows.
    public var batch: SampleBatch
    public var correlations: [HealthCorrelation]
    public var workouts: [HealthWorkout]
    /// Route points by route UUID (``HealthWorkout/Route/uuid``), replacing any stored for that route.
    public var routes: [UUID: RoutePointColumns]
    /// A cap on the writer's page cache during this transaction, in MB (nil: the store's, 64 MB): a large push on a
    /// server spills its pages to the WAL instead of holding them all in memory until the commit. A hint: a store
    /// without a page cache ignores it.
    public var pageCacheMegabytes: Int?

    public init(deletions: [UUID] = [], batch: SampleBatch = SampleBatch(), correlations: [HealthCorrelation] = [],
                workouts: [HealthWorkout] = [], routes: [UUID: RoutePointColumns] = [:]) {
        self.deletions = deletions; self.batch = batch; self.correlations = correlations
        self.workouts = workouts; self.routes = routes
    }

    /// The same writes for the plain ``HealthStore/commit(_:)``: the batch as samples, the routes as points.
    public var unpacked: StoreTransaction {
        StoreTransaction(deletions: deletions, samples: batch.samples, correlations: correlations, workouts: workouts,
                         routes: routes.mapValues(\.points))
    }
}

/// A stored object's sync version, value and dates (``BulkImportStore/syncedObjects(type:sourceKey:start:end:)``).
public struct SyncedObject: Sendable, Hashable {
    public var uuid: UUID
    public var version: Int
    /// The quantity (canonical unit) or the category's raw value.
    public var value: Double
    public var start: Date
    public var end: Date

    public init(uuid: UUID, version: Int, value: Double, start: Date, end: Date) {
        self.uuid = uuid; self.version = version; self.value = value; self.start = start; self.end = end
    }
}

/// The bulk path of any store: the store's own when it is a ``BulkImportStore``, else the plain ``HealthStore`` API
/// (batches unpacked to samples, route columns to points).
///
/// The one place that decides between the two, so that the importer and the service's ingest hold `any HealthStore`,
/// never cast, and import into a store without a fast path (a HealthKit store, a test store) just the same.
///
/// ```swift
/// let writer = BulkWriter(store)
/// let result = try await writer.commit(BulkTransaction(batch: batch))
/// ```
public struct BulkWriter: Sendable {
    public let store: any HealthStore
    /// The store's fast path, when it has one.
    let bulk: (any BulkImportStore)?

    public init(_ store: any HealthStore) {
        self.store = store
        self.bulk = store as? any BulkImportStore
    }

    /// True when the store has its own bulk path.
    public var isBulk: Bool { bulk != nil }

    @discardableResult
    public func save(_ batch: SampleBatch) async throws -> SaveResult {
        if let bulk { return try await bulk.save(batch) }
        return try await store.save(batch.samples)
    }

    @discardableResult
    public func commit(_ transaction: BulkTransaction) async throws -> TransactionResult {
        if let bulk { return try await bulk.commit(transaction) }
        return try await store.commit(transaction.unpacked)
    }

    public func saveRoute(_ route: UUID, columns: RoutePointColumns) async throws {
        if let bulk { return try await bulk.saveRoute(route, columns: columns) }
        try await store.saveRoute(route, points: columns.points)
    }

    public func routeColumns(_ route: UUID, offset: Int, limit: Int) async throws -> RoutePointColumns {
        if let bulk { return try await bulk.routeColumns(route, offset: offset, limit: limit) }
        return RoutePointColumns(try await store.routePoints(route, offset: offset, limit: limit))
    }

    public func syncedObjects(type: String, sourceKey: String, start: Date, end: Date) async throws
        -> [String: SyncedObject]
    {
        if let bulk { return try await bulk.syncedObjects(type: type, sourceKey: sourceKey, start: start, end: end) }
        return try await store.syncedObjectsFromSamples(type: type, sourceKey: sourceKey, start: start, end: end)
    }

    public func beginBulkWrites() async { await bulk?.beginBulkWrites() }
    public func endBulkWrites() async { await bulk?.endBulkWrites() }
}

extension HealthStore {
    /// ``BulkImportStore/syncedObjects(type:sourceKey:start:end:)`` over ``HealthStore/samples(_:)``.
    func syncedObjectsFromSamples(type: String, sourceKey: String, start: Date, end: Date) async throws
        -> [String: SyncedObject]
    {
        var found: [String: SyncedObject] = [:]
        var cursor: String?
        repeat {
            let page = try await samples(SampleQuery(type: type, start: start, end: end, matching: .strictStartDate,
                                                     sources: [sourceKey], limit: 10_000, cursor: cursor))
            for sample in page.samples {
                guard let id = sample.syncIdentifier else { continue }
                let value: Double
                switch sample.value {
                case .quantity(let v, _): value = v
                case .category(let c): value = Double(c)
                case .none: value = .nan
                }
                found[id] = SyncedObject(uuid: sample.uuid, version: sample.syncVersion ?? 0, value: value,
                                         start: sample.start, end: sample.end)
            }
            cursor = page.nextCursor
        } while cursor != nil
        return found
    }
}
