import Foundation
import HealthModel

/// The storage seam every layer above talks to: what HealthKit itself can answer.
///
/// Three stores plug in here: ``SQLiteHealthStore`` (the embedded default, a file or memory), a PostgreSQL store
/// (many people, several app servers) and, on Apple platforms, a store over `HKHealthStore`. Each requirement names
/// the HealthKit API it corresponds to, so that an implementer knows what to write:
///
/// | requirement | HealthKit |
/// |---|---|
/// | ``save(_:)``, ``save(workouts:)``, ``save(correlations:)`` | `HKHealthStore.save(_:)` (workouts through `HKWorkoutBuilder`) |
/// | ``save(documents:)`` | `HKHealthStore.save(_:)` of an `HKDocumentSample`; activity summaries are read-only in HealthKit (throw) |
/// | ``saveRoute(_:points:)`` | `HKWorkoutRouteBuilder.insertRouteData(_:)` + `finishRoute(with:metadata:)` |
/// | ``delete(uuids:)`` | `HKHealthStore.delete(_:)` |
/// | ``delete(matching:)`` | `HKHealthStore.deleteObjects(of:predicate:)` |
/// | ``commit(_:)`` | the above in turn (default implementation); a store with transactions makes it atomic |
/// | ``samples(_:)`` | `HKSampleQuery` (type, `predicateForSamples(withStart:end:options:)`, `predicateForObjects(from:)`, `predicateForObjects(withMetadataKey:allowedValues:)`, sort by start) |
/// | ``sample(_:)`` | `HKSampleQuery` with `predicateForObject(with:)` |
/// | ``sample(syncIdentifier:sourceKey:)`` | `HKSampleQuery` with `predicateForObjects(withMetadataKey: HKMetadataKeySyncIdentifier, allowedValues:)` and the source |
/// | ``workouts(_:)``, ``workout(_:)`` | `HKSampleQuery` of `HKObjectType.workoutType()` (`predicateForWorkouts(with:)`) |
/// | ``routePoints(_:offset:limit:)`` | `HKWorkoutRouteQuery` (the route's `CLLocation`s) |
/// | ``correlations(type:start:end:limit:)`` | `HKCorrelationQuery` |
/// | ``documents(kind:start:end:limit:)`` | `HKActivitySummaryQuery`, `HKDocumentQuery` |
/// | ``scan(_:_:)`` | `HKSampleQuery` sorted by start, streamed: the engine computes what `HKStatisticsCollectionQuery` would (buckets, source-priority merge) itself, so a store only hands over rows |
/// | ``typeSummaries()`` | per type, `HKSampleQuery` (limit 1, both sort orders) and `HKStatisticsQuery` (`.discreteAverage`/`.cumulativeSum` count) |
/// | ``presentTypes()`` | per type, `HKSampleQuery` (limit 1) |
/// | ``sources(type:)``, ``priority(type:counts:)`` | `HKSourceQuery`; the order is HealthBridge's (the Health app's Data Sources order is not public API) |
/// | ``setPriority(type:sources:)``, ``resetPriority(type:)`` | none: kept with the settings |
/// | ``currentAnchor()``, ``changes(since:types:limit:)`` | `HKAnchoredObjectQuery` (its `HKQueryAnchor` kept behind a local sequence number) |
/// | ``changeNotifications()`` | `HKObserverQuery` (with `enableBackgroundDelivery(for:frequency:)`) |
/// | ``setting(_:)``, ``settings(prefix:)``, ``updateSetting(_:_:)`` | none: **settings are HealthBridge's, not HealthKit's** (home time zone, priority orders, import records, node subscriptions); a HealthKit store keeps them in a small file or `UserDefaults` |
///
/// Nothing here is SQLite's: no interned ids beyond the opaque source number of ``SourceSummary/id`` and
/// ``ScanRow/sourceID``, no packed batches, no transactions of the import's size. Those are ``BulkImportStore``'s,
/// which a store adopts only when it has a faster path for an import; ``BulkWriter`` takes it when it is there and
/// falls back to this protocol otherwise.
///
/// All methods are safe to call concurrently; readers are never blocked by a writer.
///
/// ```swift
/// let store = try SQLiteHealthStore(location: .inMemory)
/// try await store.save([sample])
/// let newest = try await store.samples(SampleQuery(type: "stepCount", limit: 10, ascending: false))
/// ```
public protocol HealthStore: Sendable {
    // MARK: Writing
    /// Saves samples in one transaction. A sample whose UUID is already stored is ignored; a sample with a sync
    /// identifier replaces the stored sample of the same source with that identifier when its sync version is greater.
    @discardableResult
    func save(_ samples: [HealthSample]) async throws -> SaveResult
    @discardableResult
    func save(workouts: [HealthWorkout]) async throws -> SaveResult
    @discardableResult
    func save(correlations: [HealthCorrelation]) async throws -> SaveResult
    @discardableResult
    func save(documents: [HealthDocument]) async throws -> SaveResult
    /// Replaces the points of a route.
    func saveRoute(_ route: UUID, points: [RoutePoint]) async throws
    /// Deletes objects by UUID, leaving tombstones. Returns how many were deleted.
    @discardableResult
    func delete(uuids: [UUID]) async throws -> Int
    /// Deletes the samples a predicate matches (type, range, sources, metadata key with allowed values). The default
    /// implementation pages through ``samples(_:)`` and deletes what it found with ``delete(uuids:)``.
    @discardableResult
    func delete(matching query: SampleQuery) async throws -> Int
    /// Saves samples, correlations and workouts and deletes objects, all or nothing: one write of the service
    /// (a meal's nutrients with their food correlation, a newer version replacing an older one). The default
    /// implementation does the parts one after the other.
    @discardableResult
    func commit(_ transaction: StoreTransaction) async throws -> TransactionResult

    // MARK: Reading
    func samples(_ query: SampleQuery) async throws -> SamplePage
    /// One sample by UUID (nil when there is none).
    func sample(_ uuid: UUID) async throws -> HealthSample?
    /// The stored sample of a source with a sync identifier (`HKMetadataKeySyncIdentifier`), nil when there is none.
    func sample(syncIdentifier: String, sourceKey: String) async throws -> HealthSample?
    func workouts(_ query: WorkoutQuery) async throws -> [HealthWorkout]
    func workout(_ uuid: UUID) async throws -> HealthWorkout?
    /// The points `[offset, offset + limit)` of a route, in order; empty for an unknown route.
    func routePoints(_ route: UUID, offset: Int, limit: Int) async throws -> [RoutePoint]
    func correlations(type: String, start: Date?, end: Date?, limit: Int?) async throws -> [HealthCorrelation]
    func documents(kind: HealthDocument.Kind, start: Date?, end: Date?, limit: Int?) async throws -> [HealthDocument]
    /// Streams the rows the statistics engine needs, in ascending start order, values converted to `unit`.
    /// The closure runs on the reading thread; it must be fast and must not call back into the store.
    func scan(_ request: ScanRequest, _ body: (ScanRow) throws -> Void) async throws
    /// The types present in the store with counts, spans and units.
    func typeSummaries() async throws -> [TypeSummary]
    /// The identifiers of the types present in the store (samples, correlations, workouts): the types of
    /// ``typeSummaries()`` without counting them, at a cost that must not grow with the number of samples (one index
    /// probe per known type). The paired API's `status` asks it on every request. HealthKit: per type, an
    /// `HKSampleQuery` with limit 1.
    func presentTypes() async throws -> Set<String>
    /// The sources of a type (all types when nil) with their priority ranks in force for that type.
    func sources(type: String?) async throws -> [SourceSummary]

    // MARK: Source priority
    /// The sources of `type` from highest to lowest priority: the stored user order first, then the default order.
    /// Sample counts are filled only when `counts` is true (it costs a scan of the type). What the statistics engine
    /// merges by: the first source is rank 0.
    func priority(type: String, counts: Bool) async throws -> [SourceSummary]
    /// Stores a user order for `type`, naming sources by name or key; unnamed sources keep the default order after them.
    func setPriority(type: String, sources: [String]) async throws
    func resetPriority(type: String) async throws

    // MARK: Change feed
    /// The current anchor: the last change sequence number.
    func currentAnchor() async throws -> Int64
    /// Samples added and objects deleted since `anchor` (nil: everything), at most `limit` of each.
    func changes(since anchor: Int64?, types: [String]?, limit: Int) async throws -> ChangeSet
    /// Emits the changed types after every commit to the store, from this process or another one.
    func changeNotifications() -> AsyncStream<ChangeNotification>

    // MARK: Settings (HealthBridge's, not HealthKit's)
    func setting(_ key: String) async throws -> String?
    /// Every setting whose key starts with `prefix`, by key.
    func settings(prefix: String) async throws -> [String: String]
    /// Reads a setting and writes what `transform` makes of it, in one transaction (nil removes it): two processes
    /// or tasks updating the same key never lose each other's change. Returns the new value.
    @discardableResult
    func updateSetting(_ key: String, _ transform: @escaping @Sendable (String?) throws -> String?) async throws -> String?
}

/// What ``HealthStore/commit(_:)`` writes, in this order: deletions first, then samples, correlations, workouts and
/// the workouts' route points.
public struct StoreTransaction: Sendable {
    public var deletions: [UUID]
    public var samples: [HealthSample]
    public var correlations: [HealthCorrelation]
    public var workouts: [HealthWorkout]
    /// Route points by route UUID (``HealthWorkout/Route/uuid``), replacing any stored for that route.
    public var routes: [UUID: [RoutePoint]]

    public init(deletions: [UUID] = [], samples: [HealthSample] = [], correlations: [HealthCorrelation] = [],
                workouts: [HealthWorkout] = [], routes: [UUID: [RoutePoint]] = [:]) {
        self.deletions = deletions; self.samples = samples; self.correlations = correlations
        self.workouts = workouts; self.routes = routes
    }
}

/// What ``HealthStore/commit(_:)`` did: the saves, the deletions, and the anchor after the commit.
public struct TransactionResult: Sendable, Hashable {
    public var saved: SaveResult
    public var deleted: Int
    public var anchor: Int64
    public init(saved: SaveResult, deleted: Int, anchor: Int64) {
        self.saved = saved; self.deleted = deleted; self.anchor = anchor
    }
}

extension HealthStore {
    /// The types of ``typeSummaries()``: a store whose summaries are not cheap (they count every sample) answers it
    /// with a probe per type instead, as ``SQLiteHealthStore`` does.
    ///
    /// ```swift
    /// let present = try await store.presentTypes()   // ["heartRate", "stepCount"]
    /// ```
    public func presentTypes() async throws -> Set<String> {
        Set(try await typeSummaries().map(\.type))
    }

    /// Does the parts one after the other: a store that cannot write them atomically (SQLite's can) documents it.
    @discardableResult
    public func commit(_ transaction: StoreTransaction) async throws -> TransactionResult {
        let deleted = try await delete(uuids: transaction.deletions)
        var saved = try await save(transaction.samples)
        saved = saved + (try await save(correlations: transaction.correlations))
        saved = saved + (try await save(workouts: transaction.workouts))
        for (route, points) in transaction.routes { try await saveRoute(route, points: points) }
        return TransactionResult(saved: saved, deleted: deleted, anchor: try await currentAnchor())
    }

    /// Finds the matching samples page by page, then deletes them by UUID.
    @discardableResult
    public func delete(matching query: SampleQuery) async throws -> Int {
        var found: [UUID] = []
        var page = query
        page.limit = 10_000
        page.cursor = nil
        repeat {
            let result = try await samples(page)
            found += result.samples.map(\.uuid)
            page.cursor = result.nextCursor
        } while page.cursor != nil
        return found.isEmpty ? 0 : try await delete(uuids: found)
    }

    /// Sets (nil: removes) one setting, through ``updateSetting(_:_:)``.
    ///
    /// ```swift
    /// try await store.setSetting("home_time_zone", "Europe/Paris")
    /// ```
    public func setSetting(_ key: String, _ value: String?) async throws {
        try await updateSetting(key) { _ in value }
    }

    /// The sources of `type` in priority order, with their sample counts.
    public func priority(type: String) async throws -> [SourceSummary] {
        try await priority(type: type, counts: true)
    }
}

/// What a save did.
public struct SaveResult: Sendable, Hashable, Codable {
    public var inserted: Int = 0
    /// Older versions replaced through a sync identifier.
    public var replaced: Int = 0
    /// Already stored (same UUID), or an older sync version.
    public var ignored: Int = 0
    public init(inserted: Int = 0, replaced: Int = 0, ignored: Int = 0) {
        self.inserted = inserted; self.replaced = replaced; self.ignored = ignored
    }
    public static func + (a: SaveResult, b: SaveResult) -> SaveResult {
        SaveResult(inserted: a.inserted + b.inserted, replaced: a.replaced + b.replaced, ignored: a.ignored + b.ignored)
    }
}

/// How a sample's dates must relate to a query range, as HealthKit's predicate options.
public enum DateMatching: String, Sendable, Hashable, Codable, CaseIterable {
    /// `sample.end >= start && sample.start < end` (HealthKit's default).
    case overlap
    /// `start <= sample.start < end`.
    case strictStartDate
    /// `start < sample.end <= end`.
    case strictEndDate
}

/// A sample predicate with sorting and paging.
public struct SampleQuery: Sendable, Hashable {
    public var type: String
    public var start: Date?
    public var end: Date?
    public var matching: DateMatching
    /// Source names or keys; nil for all.
    public var sources: [String]?
    /// A metadata key and the values it may have (`[]` means any value as long as the key is present).
    public var metadataKey: String?
    public var metadataValues: [String]
    public var limit: Int?
    public var ascending: Bool
    /// An opaque cursor from a previous page.
    public var cursor: String?

    public init(type: String, start: Date? = nil, end: Date? = nil, matching: DateMatching = .overlap,
                sources: [String]? = nil, metadataKey: String? = nil, metadataValues: [String] = [],
                limit: Int? = nil, ascending: Bool = true, cursor: String? = nil) {
        self.type = type; self.start = start; self.end = end; self.matching = matching; self.sources = sources
        self.metadataKey = metadataKey; self.metadataValues = metadataValues; self.limit = limit
        self.ascending = ascending; self.cursor = cursor
    }
}

/// One page of samples.
public struct SamplePage: Sendable, Hashable {
    public var samples: [HealthSample]
    /// Present when more samples match: pass it back as `SampleQuery.cursor`.
    public var nextCursor: String?
    public init(samples: [HealthSample], nextCursor: String?) { self.samples = samples; self.nextCursor = nextCursor }
}

public struct WorkoutQuery: Sendable, Hashable {
    public var activityTypes: [String]?
    public var start: Date?
    public var end: Date?
    public var limit: Int?
    public var ascending: Bool
    public init(activityTypes: [String]? = nil, start: Date? = nil, end: Date? = nil, limit: Int? = nil,
                ascending: Bool = false) {
        self.activityTypes = activityTypes; self.start = start; self.end = end; self.limit = limit
        self.ascending = ascending
    }
}

/// What the statistics engine reads: one type, the samples overlapping `[start, end)`, values in `unit`.
public struct ScanRequest: Sendable, Hashable {
    public var type: String
    public var start: Date
    public var end: Date
    /// The unit quantity values are converted to (the type's canonical unit). Ignored for category types.
    public var unit: String?
    /// Restrict to these source IDs (from ``SourceSummary/id``); nil for all.
    public var sourceIDs: [Int64]?
    public init(type: String, start: Date, end: Date, unit: String?, sourceIDs: [Int64]? = nil) {
        self.type = type; self.start = start; self.end = end; self.unit = unit; self.sourceIDs = sourceIDs
    }
}

/// A row of a statistics scan: seconds since 1970, a value (a quantity in the requested unit, or a category raw
/// value; NaN when the sample has none), and the source's number (``SourceSummary/id``): the engine compares numbers
/// per row, not keys.
public struct ScanRow: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public var value: Double
    public var sourceID: Int64
    public init(start: Double, end: Double, value: Double, sourceID: Int64) {
        self.start = start; self.end = end; self.value = value; self.sourceID = sourceID
    }
}

/// A type present in the store.
public struct TypeSummary: Sendable, Hashable, Codable {
    public var type: String
    public var kind: SampleKind
    public var count: Int
    public var first: Date?
    public var last: Date?
    /// Units the samples were recorded in.
    public var units: [String]
    public init(type: String, kind: SampleKind, count: Int, first: Date?, last: Date?, units: [String]) {
        self.type = type; self.kind = kind; self.count = count; self.first = first; self.last = last; self.units = units
    }
}

extension SourceSummary {
    /// HealthBridge's default priority order, the same in every store: user-entered → Apple Watch → iPhone → other
    /// devices → apps (``SourceCategory``), then by name, then by ``HealthSource/key`` — content, never a store's own
    /// numbering, so two sources with one name (two watches called "Alex's Apple Watch") rank alike everywhere.
    ///
    /// ```swift
    /// let ranked = summaries.sorted(by: SourceSummary.defaultOrder)
    /// ```
    public static func defaultOrder(_ a: SourceSummary, _ b: SourceSummary) -> Bool {
        (a.category.rawValue, a.source.name, a.source.key) < (b.category.rawValue, b.source.name, b.source.key)
    }

    /// The sources of a type in priority order with their ranks (0 highest): those with a stored user rank first,
    /// by that rank, then the others in ``defaultOrder(_:_:)``. What every store's ``HealthStore/priority(type:counts:)``
    /// answers, whatever it keeps the ranks in.
    ///
    /// ```swift
    /// let ranked = SourceSummary.ranked(summaries, userRanks: [watchID: 0])   // the watch first, then the default order
    /// ```
    public static func ranked(_ entries: [SourceSummary], userRanks: [Int64: Int]) -> [SourceSummary] {
        let sorted = entries.sorted { a, b in
            switch (userRanks[a.id], userRanks[b.id]) {
            case let (x?, y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return defaultOrder(a, b)
            }
        }
        return sorted.enumerated().map { index, entry in
            var ranked = entry
            ranked.rank = index
            ranked.userOrdered = userRanks[entry.id] != nil
            return ranked
        }
    }
}

/// A source as the store knows it.
public struct SourceSummary: Sendable, Hashable, Codable {
    /// The store's number for the source: opaque, and the same in ``ScanRow/sourceID`` and
    /// ``ScanRequest/sourceIDs`` for as long as the store is open (SQLite: its interned id; a store without one
    /// numbers sources as it first meets them). Nothing outside the store keeps it: sources are named by
    /// ``HealthSource/key`` everywhere else.
    public var id: Int64
    public var source: HealthSource
    public var category: SourceCategory
    /// Samples of the type asked about (all types when none).
    public var count: Int
    /// 0 is the highest priority. Set when the summary answers a per-type question.
    public var rank: Int?
    /// True when the rank comes from a stored user order, false when from the default order.
    public var userOrdered: Bool
    public init(id: Int64, source: HealthSource, category: SourceCategory, count: Int, rank: Int? = nil,
                userOrdered: Bool = false) {
        self.id = id; self.source = source; self.category = category; self.count = count; self.rank = rank
        self.userOrdered = userOrdered
    }
}

/// A deleted object, as reported by the change feed.
public struct Tombstone: Sendable, Hashable, Codable {
    public var uuid: UUID
    public var type: String
    public var syncIdentifier: String?
    public var syncVersion: Int?
    public var deletedAt: Date
    public var anchor: Int64
    public init(uuid: UUID, type: String, syncIdentifier: String?, syncVersion: Int?, deletedAt: Date, anchor: Int64) {
        self.uuid = uuid; self.type = type; self.syncIdentifier = syncIdentifier; self.syncVersion = syncVersion
        self.deletedAt = deletedAt; self.anchor = anchor
    }
}

/// The answer to an anchored query.
public struct ChangeSet: Sendable, Hashable {
    public var added: [HealthSample]
    public var addedWorkouts: [HealthWorkout]
    public var deleted: [Tombstone]
    /// Pass it back to get what changed after this answer.
    public var anchor: Int64
    /// True when `limit` cut the answer: ask again from ``anchor``.
    public var hasMore: Bool
    public init(added: [HealthSample], addedWorkouts: [HealthWorkout], deleted: [Tombstone], anchor: Int64, hasMore: Bool) {
        self.added = added; self.addedWorkouts = addedWorkouts; self.deleted = deleted; self.anchor = anchor
        self.hasMore = hasMore
    }
}

/// Sent after a commit: which types changed and the anchor after the commit.
public struct ChangeNotification: Sendable, Hashable {
    public var types: Set<String>
    public var anchor: Int64
    public init(types: Set<String>, anchor: Int64) { self.types = types; self.anchor = anchor }
}
