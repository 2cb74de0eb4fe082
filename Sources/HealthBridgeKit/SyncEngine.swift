import Foundation
import GRDB
import HealthModel
import Logging
import Synchronization

/// Keeps the app and HealthBridge in sync without losing or duplicating an entry (seed §6).
///
/// Meals, water and weights are written to a durable outbox in the app's own SQLite file first (in the same
/// transaction as the app's own record, if the app likes: ``enqueue(_:syncId:in:)``), then sent at once. A write that
/// fails for a reason that may pass (no network, a server restart, a timeout whose answer was lost, paused sharing)
/// stays queued and is retried with exponential backoff and jitter, also after the app restarts. Every entry carries
/// a sync id, so a retry of a write the server already stored changes nothing: each entry is stored exactly once.
/// A write the server refuses for good (not granted, invalid, conflicting) is kept with that status instead of
/// being retried forever.
///
/// ```swift
/// let db = try DatabaseQueue(path: "diet.sqlite")
/// let engine = try SyncEngine(manager: manager, database: db)
/// let task = Task { await engine.run() }            // retries in the background
/// try await engine.logFood(HealthBridgeMeal(id: "meal-1", calories: 500, protein: 20, carbs: 60, fat: 15))
/// try await engine.logWater(250)
/// ```
public final class SyncEngine: Sendable {
    public let manager: HealthBridgeManager
    public let database: any DatabaseWriter
    public let policy: RetryPolicy
    let logger: Logger
    let wakeStream: AsyncStream<Void>
    let wakeContinuation: AsyncStream<Void>.Continuation
    let flushing = Mutex(false)
    let counters = Mutex(SyncTotals())

    /// Opens the engine on the app's database, creating its two tables (`healthbridge_outbox`,
    /// `healthbridge_sync_state`) when missing. The app's own tables are not touched.
    ///
    /// ```swift
    /// let engine = try SyncEngine(manager: manager, database: try DatabaseQueue(path: "diet.sqlite"))
    /// ```
    public init(manager: HealthBridgeManager, database: any DatabaseWriter, policy: RetryPolicy = RetryPolicy(),
                logger: Logger = HealthBridgeManager.silentLogger) throws {
        self.manager = manager
        self.database = database
        self.policy = policy
        self.logger = logger
        (wakeStream, wakeContinuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try database.write { db in try Self.createTables(db) }
    }

    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS healthbridge_outbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                sync_id TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL,
                operation BLOB NOT NULL,
                status TEXT NOT NULL DEFAULT 'pending',
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at REAL NOT NULL,
                created_at REAL NOT NULL,
                synced_at REAL,
                last_error TEXT,
                last_code TEXT
            );
            CREATE INDEX IF NOT EXISTS healthbridge_outbox_due ON healthbridge_outbox (status, next_attempt_at, id);
            CREATE TABLE IF NOT EXISTS healthbridge_sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            """)
    }

    // MARK: Writing

    /// Logs a meal: queued durably, then sent at once. Returns the entry as it stands after that first attempt
    /// (`synced`, or `pending` when it will be retried).
    ///
    /// ```swift
    /// let entry = try await engine.logFood(meal)
    /// if entry.status == .pending { print("saved; will sync when HealthBridge is reachable") }
    /// ```
    @discardableResult
    public func logFood(_ meal: HealthBridgeMeal) async throws -> OutboxEntry {
        try await submit(.food(meal), syncId: Self.foodSyncId(meal))
    }

    /// Logs one measurement of any writable quantity type: queued durably, then sent at once (in a batch with the
    /// quantities queued before it). `unit` defaults to the type's first entry unit, `syncId` to a fresh one.
    ///
    /// ```swift
    /// try await engine.log(quantity: .bodyMass, value: 160, unit: "lb")
    /// ```
    @discardableResult
    public func log(quantity type: HealthDataType, value: Double, unit: String? = nil, date: Date = Date(),
                    metadata: [String: String]? = nil, syncId: String? = nil) async throws -> OutboxEntry {
        let entry = QuantityEntry(type: type, value: value, unit: unit ?? type.entryUnits.first?.name ?? "",
                                  date: HealthBridgeDates.wholeSecond(date), metadata: metadata)
        return try await submit(.quantity(entry), syncId: syncId ?? "\(type.rawValue)-" + UUID().uuidString.lowercased())
    }

    /// Logs water drunk (mL); `syncId` defaults to a fresh one.
    ///
    /// ```swift
    /// try await engine.logWater(250)
    /// ```
    @discardableResult
    public func logWater(_ milliliters: Double, date: Date = Date(), syncId: String? = nil) async throws -> OutboxEntry {
        try await submit(.water(milliliters: milliliters, date: HealthBridgeDates.wholeSecond(date)),
                         syncId: syncId ?? "water-" + UUID().uuidString.lowercased())
    }

    /// Logs a weight (kg); `syncId` defaults to a fresh one.
    ///
    /// ```swift
    /// try await engine.logWeight(72.4, date: Date(), syncId: "weight-\(entry.id)")
    /// ```
    @discardableResult
    public func logWeight(_ kilograms: Double, date: Date = Date(), syncId: String? = nil) async throws -> OutboxEntry {
        try await submit(.weight(kilograms: kilograms, date: HealthBridgeDates.wholeSecond(date)),
                         syncId: syncId ?? "weight-" + UUID().uuidString.lowercased())
    }

    /// Deletes a meal on the server, after its write (outbox order).
    ///
    /// ```swift
    /// try await engine.deleteFood(logId: "meal-42")
    /// ```
    @discardableResult
    public func deleteFood(logId: String) async throws -> OutboxEntry {
        try await submit(.deleteFood(logId: logId), syncId: "delete-\(logId)-" + UUID().uuidString.lowercased())
    }

    /// The sync id of a meal: its log id and version (an edited meal is a new version).
    ///
    /// ```swift
    /// let entry = try engine.entry(syncId: SyncEngine.foodSyncId(meal))
    /// ```
    public static func foodSyncId(_ meal: HealthBridgeMeal) -> String { "food-\(meal.id)-v\(meal.version)" }

    func submit(_ operation: OutboxOperation, syncId: String) async throws -> OutboxEntry {
        try await database.write { db in
            try self.enqueue(operation, syncId: syncId, in: db)
            // A new write is a good moment to try again: entries waiting for their backoff go first (in order).
            try db.execute(sql: "UPDATE healthbridge_outbox SET next_attempt_at = ? WHERE status = 'pending'",
                           arguments: [Date().timeIntervalSince1970])
        }
        _ = await flush()
        guard let entry = try entry(syncId: syncId) else {
            throw HealthBridgeError.saveFailed(HealthBridgeFailure(message: "outbox entry \(syncId) vanished", isTransient: false))
        }
        return entry
    }

    /// Queues a write inside the caller's transaction, so the app's own record and the outbox entry are saved
    /// together or not at all. Queuing the same sync id again does nothing. Call ``flush()`` (or let ``run()``
    /// do it) after the transaction commits.
    ///
    /// ```swift
    /// try db.write { db in
    ///     try meal.insert(db)
    ///     try engine.enqueue(.food(record), syncId: SyncEngine.foodSyncId(record), in: db)
    /// }
    /// ```
    public func enqueue(_ operation: OutboxOperation, syncId: String, in db: Database) throws {
        let now = Date().timeIntervalSince1970
        let data = try JSONEncoder().encode(operation)
        try db.execute(sql: """
            INSERT OR IGNORE INTO healthbridge_outbox (sync_id, kind, operation, next_attempt_at, created_at)
            VALUES (?, ?, ?, ?, ?)
            """, arguments: [syncId, operation.kind, data, now, now])
        wakeContinuation.yield()
    }

    // MARK: Outbox

    /// The outbox, in sending order; `status` keeps one kind.
    ///
    /// ```swift
    /// for entry in try engine.outbox(status: .invalid) { print(entry.syncId, entry.lastError ?? "") }
    /// ```
    public func outbox(status: OutboxStatus? = nil) throws -> [OutboxEntry] {
        try database.read { db in
            let rows = status.map { try? Row.fetchAll(db, sql: "SELECT * FROM healthbridge_outbox WHERE status = ? ORDER BY id",
                                                      arguments: [$0.rawValue]) }
                ?? (try? Row.fetchAll(db, sql: "SELECT * FROM healthbridge_outbox ORDER BY id"))
            return (rows ?? []).compactMap(Self.entry)
        }
    }

    /// How many entries are in each state.
    ///
    /// ```swift
    /// let pending = try engine.counts()[.pending] ?? 0
    /// ```
    public func counts() throws -> [OutboxStatus: Int] {
        try database.read { db in
            var counts: [OutboxStatus: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, count(*) AS n FROM healthbridge_outbox GROUP BY status") {
                if let status = OutboxStatus(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }

    /// The outbox entry of a sync id, nil when none.
    ///
    /// ```swift
    /// let status = try engine.entry(syncId: "water-1")?.status
    /// ```
    public func entry(syncId: String) throws -> OutboxEntry? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM healthbridge_outbox WHERE sync_id = ?", arguments: [syncId])
                .flatMap(Self.entry)
        }
    }

    /// Puts entries that stopped (`denied` after the owner granted the write, say) back in the queue.
    ///
    /// ```swift
    /// try engine.retry(status: .denied)   // after the owner granted the write
    /// await engine.flush()
    /// ```
    @discardableResult
    public func retry(status: OutboxStatus = .denied) throws -> Int {
        guard status != .pending, status != .synced else { return 0 }
        let count = try database.write { db in
            try db.execute(sql: """
                UPDATE healthbridge_outbox SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE status = ?
                """, arguments: [Date().timeIntervalSince1970, status.rawValue])
            return db.changesCount
        }
        wakeContinuation.yield()
        return count
    }

    static func entry(_ row: Row) -> OutboxEntry? {
        guard let data: Data = row["operation"],
              let operation = try? JSONDecoder().decode(OutboxOperation.self, from: data),
              let status = OutboxStatus(rawValue: row["status"]) else { return nil }
        return OutboxEntry(id: row["id"], syncId: row["sync_id"], operation: operation, status: status,
                           attempts: row["attempts"], nextAttemptAt: Date(timeIntervalSince1970: row["next_attempt_at"]),
                           createdAt: Date(timeIntervalSince1970: row["created_at"]),
                           syncedAt: (row["synced_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                           lastError: row["last_error"], lastCode: row["last_code"])
    }

    /// What this engine sent since it was opened: entries confirmed, and how many of them the server already
    /// had (a retry whose first answer was lost, applied once).
    ///
    /// ```swift
    /// print(engine.totals.alreadyStored)
    /// ```
    public var totals: SyncTotals { counters.withLock { $0 } }

    // MARK: State

    func state(_ key: String) throws -> String? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM healthbridge_sync_state WHERE key = ?", arguments: [key])
        }
    }

    func setState(_ key: String, _ value: String) throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO healthbridge_sync_state (key, value) VALUES (?, ?)",
                           arguments: [key, value])
        }
    }
}

/// Counters of a ``SyncEngine`` since it was opened.
///
/// ```swift
/// print("\(engine.totals.confirmed) confirmed, \(engine.totals.alreadyStored) were retries the server already had")
/// ```
public struct SyncTotals: Sendable, Hashable {
    /// Entries the server confirmed.
    public var confirmed = 0
    /// Entries the server answered as already stored: a retry after a lost answer, applied once.
    public var alreadyStored = 0
}
