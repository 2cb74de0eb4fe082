import Foundation
import GRDB
import GRDBSQLite
import HealthModel

/// SQLite's "copy this buffer now" destructor.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension SQLiteHealthStore {
    @discardableResult
    public func save(_ samples: [HealthSample]) async throws -> SaveResult {
        if samples.isEmpty { return SaveResult() }
        return try await save(SampleBatch(samples))
    }

    @discardableResult
    public func save(_ batch: SampleBatch) async throws -> SaveResult {
        if batch.isEmpty { return SaveResult() }
        let (result, types, anchor) = try await write { db in try self.insert(batch, db) }
        notify(types: types, anchor: anchor)
        return result
    }

    /// Rows bound into one multi-row INSERT: amortises SQLite's per-statement work (cursor open/close, halt).
    static let rowsPerStatement = 32

    /// One row with all 15 columns bound.
    static let insertOneSQL = insertSQL(rows: 1, values: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    /// `rowsPerStatement` rows without a sync identifier: 13 parameters each, the sync columns NULL.
    static let insertPlainSQL = insertSQL(rows: rowsPerStatement, values: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)")
    /// `rowsPerStatement` rows with all 15 columns (``SampleBatch/syncIdentifiersChecked`` batches).
    static let insertSyncedSQL = insertSQL(rows: rowsPerStatement, values: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")

    static func insertSQL(rows: Int, values: String) -> String {
        """
        INSERT OR IGNORE INTO samples
        (seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name,
         source_version, sync_id, sync_version, metadata)
        VALUES \(Array(repeating: values, count: rows).joined(separator: ", "))
        """
    }

    /// Where a row's UUID bytes lie, so that they are bound in place (nil: bind a copy).
    static let uuidOffset = MemoryLayout<SampleBatch.Row>.offset(of: \SampleBatch.Row.uuid)

    /// Inserts a batch inside the caller's transaction. Returns what happened, the changed types and the new anchor.
    ///
    /// Rows are bound straight from the batch's buffers (no copies: SQLite reads them during the step), 32 rows per
    /// statement; change numbers are given out as rows are bound and taken back when nothing was inserted, so that
    /// saving only known samples leaves the anchor where it was.
    func insert(_ batch: SampleBatch, _ db: Database) throws -> (SaveResult, Set<String>, Int64) {
        let plan = try BatchPlan(batch, store: self, db)
        var state = InsertState(seq: try currentSequence(db), plan: plan)
        let single = try db.cachedStatement(sql: Self.insertOneSQL).sqliteStatement
        let multi = try db.cachedStatement(sql: Self.insertPlainSQL).sqliteStatement
        let synced = batch.syncIdentifiersChecked ? try db.cachedStatement(sql: Self.insertSyncedSQL).sqliteStatement : nil
        defer {
            // The statements point into the batch's buffers: forget them before the buffers go.
            sqlite3_clear_bindings(single)
            sqlite3_clear_bindings(multi)
            if let synced { sqlite3_clear_bindings(synced) }
        }
        try batch.rows.withUnsafeBufferPointer { rows in
            try batch.text.withUnsafeBytes { text in
                try plan.versions.withUnsafeBytes { versions in
                    let binder = RowBinder(rows: rows, text: text, versions: versions, plan: plan)
                    var chunk: [Int] = []
                    chunk.reserveCapacity(Self.rowsPerStatement)
                    var syncedChunk: [Int] = []
                    syncedChunk.reserveCapacity(Self.rowsPerStatement)

                    func step(_ stmt: OpaquePointer?) throws -> Int {
                        let code = sqlite3_step(stmt)
                        guard code == SQLITE_DONE else {
                            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                            sqlite3_reset(stmt)
                            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
                        }
                        let changes = Int(sqlite3_changes(db.sqliteConnection))
                        sqlite3_reset(stmt)
                        return changes
                    }

                    func insertOne(_ index: Int) throws {
                        state.seq += 1
                        binder.bind(single, base: 0, row: index, seq: state.seq)
                        if try step(single) == 1 {
                            state.result.inserted += 1
                            state.noteInserted(rows[index])
                        } else {
                            state.seq -= 1
                            state.result.ignored += 1
                        }
                    }

                    func flushChunk() throws {
                        defer { chunk.removeAll(keepingCapacity: true) }
                        guard chunk.count == Self.rowsPerStatement else {
                            for index in chunk { try insertOne(index) }
                            return
                        }
                        for (position, index) in chunk.enumerated() {
                            binder.bindPlain(multi, base: Int32(position * 13), row: index, seq: state.seq + Int64(position) + 1)
                        }
                        let inserted = try step(multi)
                        if inserted > 0 { state.seq += Int64(chunk.count) }
                        state.result.inserted += inserted
                        state.result.ignored += chunk.count - inserted
                        // Which rows were ignored is not known here; noting all is safe (a notification more, a wider
                        // scan bound), and ignored rows are rare outside re-imports.
                        if inserted > 0 { for index in chunk { state.noteInserted(rows[index]) } }
                    }

                    /// Checked sync identifiers: 32 rows with their 15 columns per statement.
                    func flushSynced() throws {
                        defer { syncedChunk.removeAll(keepingCapacity: true) }
                        guard syncedChunk.count == Self.rowsPerStatement, let synced else {
                            for index in syncedChunk { try insertOne(index) }
                            return
                        }
                        for (position, index) in syncedChunk.enumerated() {
                            binder.bind(synced, base: Int32(position * 15), row: index, seq: state.seq + Int64(position) + 1)
                        }
                        let inserted = try step(synced)
                        if inserted > 0 { state.seq += Int64(syncedChunk.count) }
                        state.result.inserted += inserted
                        state.result.ignored += syncedChunk.count - inserted
                        if inserted > 0 { for index in syncedChunk { state.noteInserted(rows[index]) } }
                    }

                    for index in rows.indices {
                        let row = rows[index]
                        state.notePair(row)
                        if synced != nil, !row.syncIdentifier.isEmpty {
                            syncedChunk.append(index)
                            if syncedChunk.count == Self.rowsPerStatement { try flushSynced() }
                            continue
                        }
                        guard !row.syncIdentifier.isEmpty else {
                            chunk.append(index)
                            if chunk.count == Self.rowsPerStatement { try flushChunk() }
                            continue
                        }
                        // Sync identifiers need a lookup: write what is pending first, then this row on its own.
                        try flushChunk()
                        let syncID = String(decoding: binder.bytes(row.syncIdentifier), as: UTF8.self)
                        if let existing = try Row.fetchOne(
                            db, sql: "SELECT seq, sync_version FROM samples WHERE sync_id = ? AND source_id = ?",
                            arguments: [syncID, plan.sourceIDs[Int(row.source)]]) {
                            let existingVersion: Int64 = existing[1] ?? 0
                            if existingVersion >= (row.syncVersion == .min ? 0 : row.syncVersion) {
                                state.result.ignored += 1
                                continue
                            }
                            state.seq += 1
                            try tombstone(sampleSeq: existing[0], newSeq: state.seq, db)
                            state.result.replaced += 1
                            state.result.inserted -= 1  // counted as inserted below; a replacement is not a new sample
                        }
                        try insertOne(index)
                    }
                    try flushChunk()
                    try flushSynced()
                }
            }
        }
        for (type, duration) in state.maxDuration.enumerated() where duration >= 0 {
            try db.execute(sql: "UPDATE types SET max_duration = max(max_duration, ?) WHERE id = ?",
                           arguments: [duration, plan.typeIDs[type]])
        }
        for pair in state.pairs {
            try db.execute(sql: "INSERT OR IGNORE INTO type_sources (type_id, source_id) VALUES (?, ?)",
                           arguments: [pair.type, pair.source])
        }
        try setSequence(state.seq, db)
        let changed = Set(state.maxDuration.indices.filter { state.maxDuration[$0] >= 0 }.map { batch.tables.types[$0] })
        return (state.result, changed, state.seq)
    }

    /// Moves a stored sample to the tombstones under the change number `newSeq`.
    func tombstone(sampleSeq: Int64, newSeq: Int64, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO tombstones (seq, uuid, type_id, sync_id, sync_version, deleted)
            SELECT ?, uuid, type_id, sync_id, sync_version, ? FROM samples WHERE seq = ?
            """, arguments: [newSeq, Date().timeIntervalSince1970, sampleSeq])
        try db.execute(sql: "DELETE FROM samples WHERE seq = ?", arguments: [sampleSeq])
    }

    func currentSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'seq'") ?? 0
    }

    func setSequence(_ seq: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE counters SET value = ? WHERE name = 'seq' AND value < ?", arguments: [seq, seq])
    }
}

/// A batch's tables resolved to database IDs, once per batch.
struct BatchPlan {
    var typeIDs: [Int64]
    var sourceIDs: [Int64]
    var unitIDs: [Int64]
    /// Every source's version, laid out once: rows bind their source's range.
    var versions: [UInt8] = []
    var versionRanges: [SampleBatch.TextRange] = []

    /// Checks every row, then interns the types, sources and units the rows use (and only those).
    init(_ batch: SampleBatch, store: SQLiteHealthStore, _ db: Database) throws {
        let tables = batch.tables
        var usedTypes = [Bool](repeating: false, count: tables.types.count)
        var usedSources = [Bool](repeating: false, count: tables.sources.count)
        var usedUnits = [Bool](repeating: false, count: tables.units.count)
        for row in batch.rows {
            try SampleBatch.validate(row, types: tables.types, sources: usedSources.count, units: usedUnits.count,
                              textCount: batch.text.count)
            usedTypes[Int(row.type)] = true
            usedSources[Int(row.source)] = true
            if row.kind == .quantity { usedUnits[Int(row.unit)] = true }
        }
        typeIDs = try tables.types.indices.map { usedTypes[$0] ? try store.internType(tables.types[$0], db) : -1 }
        sourceIDs = try tables.sources.indices.map { usedSources[$0] ? try store.internSource(tables.sources[$0], db) : -1 }
        unitIDs = try tables.units.indices.map { usedUnits[$0] ? try store.internUnit(tables.units[$0], db) : -1 }
        for (index, source) in tables.sources.enumerated() {
            if usedSources[index], let version = source.version, !version.isEmpty {
                let offset = Int32(versions.count)
                versions.append(contentsOf: version.utf8)
                versionRanges.append(SampleBatch.TextRange(offset: offset, count: Int32(version.utf8.count)))
            } else {
                versionRanges.append(.none)
            }
        }
    }

}

/// What an insert accumulates: counts, the change number, per-type durations and the (type, source) pairs seen.
struct InsertState {
    var seq: Int64
    var result = SaveResult()
    /// Per type index: the longest inserted duration, -1 when nothing of the type was inserted.
    var maxDuration: [Double]
    var pairs = Set<TypeSourcePair>()
    private var pairSeen: [Bool]
    private let sourceCount: Int
    private let plan: BatchPlan

    init(seq: Int64, plan: BatchPlan) {
        self.seq = seq
        self.plan = plan
        maxDuration = Array(repeating: -1, count: plan.typeIDs.count)
        sourceCount = plan.sourceIDs.count
        // A flag per (type, source) of the batch's tables: no hashing per row.
        pairSeen = Array(repeating: false, count: plan.typeIDs.count * plan.sourceIDs.count)
    }

    @inline(__always)
    mutating func notePair(_ row: SampleBatch.Row) {
        let flag = Int(row.type) * sourceCount + Int(row.source)
        if pairSeen[flag] { return }
        pairSeen[flag] = true
        pairs.insert(TypeSourcePair(type: plan.typeIDs[Int(row.type)], source: plan.sourceIDs[Int(row.source)]))
    }

    @inline(__always)
    mutating func noteInserted(_ row: SampleBatch.Row) {
        let type = Int(row.type)
        maxDuration[type] = max(maxDuration[type], row.end - row.start)
    }
}

/// Binds a batch's rows from its buffers, which outlive every step that reads them.
struct RowBinder {
    let rows: UnsafeBufferPointer<SampleBatch.Row>
    let text: UnsafeRawBufferPointer
    let versions: UnsafeRawBufferPointer
    let plan: BatchPlan

    @inline(__always)
    func bytes(_ range: SampleBatch.TextRange) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: text[Int(range.offset)..<Int(range.offset) + Int(range.count)])
    }

    /// Binds row `index`'s 15 columns starting at parameter `base + 1`.
    @inline(__always)
    func bind(_ stmt: OpaquePointer?, base: Int32, row index: Int, seq: Int64) {
        bindCommon(stmt, base: base, row: index, seq: seq)
        let row = rows[index]
        bindText(stmt, base + 11, text, row.timeZone)
        bindText(stmt, base + 12, versions, plan.versionRanges[Int(row.source)])
        bindText(stmt, base + 13, text, row.syncIdentifier)
        if row.syncIdentifier.isEmpty || row.syncVersion == .min { sqlite3_bind_null(stmt, base + 14) } else {
            sqlite3_bind_int64(stmt, base + 14, row.syncVersion)
        }
        bindText(stmt, base + 15, text, row.metadata)
    }

    /// Binds the 13 parameters of ``SQLiteHealthStore/insertPlainSQL``'s row (no sync identifier).
    @inline(__always)
    func bindPlain(_ stmt: OpaquePointer?, base: Int32, row index: Int, seq: Int64) {
        bindCommon(stmt, base: base, row: index, seq: seq)
        let row = rows[index]
        bindText(stmt, base + 11, text, row.timeZone)
        bindText(stmt, base + 12, versions, plan.versionRanges[Int(row.source)])
        bindText(stmt, base + 13, text, row.metadata)
    }

    /// The first ten columns, the same in both statements.
    @inline(__always)
    func bindCommon(_ stmt: OpaquePointer?, base: Int32, row index: Int, seq: Int64) {
        let row = rows[index]
        sqlite3_bind_int64(stmt, base + 1, seq)
        if let offset = SQLiteHealthStore.uuidOffset, let start = rows.baseAddress {
            _ = sqlite3_bind_blob(stmt, base + 2, UnsafeRawPointer(start + index) + offset, 16, nil)
        } else {
            withUnsafeBytes(of: row.uuid.uuid) { _ = sqlite3_bind_blob(stmt, base + 2, $0.baseAddress, 16, sqliteTransient) }
        }
        sqlite3_bind_int64(stmt, base + 3, plan.typeIDs[Int(row.type)])
        sqlite3_bind_int64(stmt, base + 4, plan.sourceIDs[Int(row.source)])
        sqlite3_bind_double(stmt, base + 5, row.start)
        sqlite3_bind_double(stmt, base + 6, row.end)
        switch row.kind {
        case .quantity:
            sqlite3_bind_double(stmt, base + 7, row.value)
            sqlite3_bind_int64(stmt, base + 8, plan.unitIDs[Int(row.unit)])
        case .category:
            sqlite3_bind_int64(stmt, base + 7, row.value.clampedInt64())
            sqlite3_bind_null(stmt, base + 8)
        case .none:
            sqlite3_bind_null(stmt, base + 7)
            sqlite3_bind_null(stmt, base + 8)
        }
        if row.created.isNaN { sqlite3_bind_null(stmt, base + 9) } else { sqlite3_bind_double(stmt, base + 9, row.created) }
        if row.utcOffset == .min { sqlite3_bind_null(stmt, base + 10) } else {
            sqlite3_bind_int64(stmt, base + 10, Int64(row.utcOffset))
        }
    }

    @inline(__always)
    func bindText(_ stmt: OpaquePointer?, _ index: Int32, _ buffer: UnsafeRawBufferPointer, _ range: SampleBatch.TextRange) {
        guard !range.isEmpty, let base = buffer.baseAddress else { sqlite3_bind_null(stmt, index); return }
        _ = sqlite3_bind_text(stmt, index, (base + Int(range.offset)).assumingMemoryBound(to: CChar.self),
                              range.count, nil)
    }
}

struct TypeSourcePair: Hashable {
    var type: Int64
    var source: Int64
}
