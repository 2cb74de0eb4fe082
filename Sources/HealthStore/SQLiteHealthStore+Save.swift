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
        let (result, types, anchor) = try await write { db in try self.insert(samples, db) }
        notify(types: types, anchor: anchor)
        return result
    }

    /// Rows bound into one multi-row INSERT: amortises SQLite's per-statement work (cursor open/close, halt).
    static let rowsPerStatement = 32

    static func insertSQL(rows: Int) -> String {
        """
        INSERT OR IGNORE INTO samples
        (seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name,
         source_version, sync_id, sync_version, metadata)
        VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
        """
    }

    /// A sample with its interned IDs and change number, ready to bind.
    struct PreparedRow {
        var index: Int
        var seq: Int64
        var typeID: Int64
        var sourceID: Int64
        var unitID: Int64?
        var syncID: String?
        var syncVersion: Int?
    }

    /// Inserts samples inside the caller's transaction. Returns what happened, the changed types and the new anchor.
    func insert(_ samples: [HealthSample], _ db: Database) throws -> (SaveResult, Set<String>, Int64) {
        var result = SaveResult()
        var seq = try currentSequence(db)
        var changedTypes = Set<String>()
        var maxDuration: [Int64: Double] = [:]
        let single = try db.cachedStatement(sql: Self.insertSQL(rows: 1)).sqliteStatement
        let multi = try db.cachedStatement(sql: Self.insertSQL(rows: Self.rowsPerStatement)).sqliteStatement
        var lastType: (String, Int64)? = nil
        var lastSource: (HealthSource, Int64)? = nil
        var pairs = Set<TypeSourcePair>()
        var lastPair = TypeSourcePair(type: -1, source: -1)
        var lastUnit: (String, Int64)? = nil
        var metadataBuffer: [UInt8] = []
        metadataBuffer.reserveCapacity(256)
        var currentMax = (type: Int64(-1), duration: 0.0)
        var lastChangedType: Int64 = -1
        var chunk: [PreparedRow] = []
        chunk.reserveCapacity(Self.rowsPerStatement)

        /// Notes an inserted row's type and duration (for change notifications and the scan's lower bound).
        func noteInserted(_ row: PreparedRow) {
            let sample = samples[row.index]
            if row.typeID != lastChangedType {
                changedTypes.insert(sample.type)
                lastChangedType = row.typeID
            }
            let duration = sample.end.timeIntervalSince1970 - sample.start.timeIntervalSince1970
            if currentMax.type != row.typeID {
                if currentMax.type >= 0 { maxDuration[currentMax.type] = max(maxDuration[currentMax.type] ?? 0, currentMax.duration) }
                currentMax = (row.typeID, maxDuration[row.typeID] ?? 0)
            }
            if duration > currentMax.duration { currentMax.duration = duration }
        }

        func step(_ stmt: OpaquePointer?) throws -> Int {
            let code = sqlite3_step(stmt)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let changes = Int(sqlite3_changes(db.sqliteConnection))
            sqlite3_reset(stmt)
            return changes
        }

        // Change numbers are given out as rows are bound, and taken back when nothing was inserted, so that saving
        // only known samples leaves the anchor where it was.
        func flushChunk() throws {
            if chunk.count == Self.rowsPerStatement {
                for position in chunk.indices {
                    seq += 1
                    chunk[position].seq = seq
                    bind(multi, base: Int32(position * 15), samples[chunk[position].index], chunk[position], &metadataBuffer)
                }
                let inserted = try step(multi)
                if inserted == 0 { seq -= Int64(chunk.count) }
                result.inserted += inserted
                result.ignored += chunk.count - inserted
                // Which rows were ignored is not known here; noting all is safe (a notification more, a wider scan
                // bound), and ignored rows are rare outside re-imports.
                if inserted > 0 { for row in chunk { noteInserted(row) } }
            } else {
                for var row in chunk {
                    seq += 1
                    row.seq = seq
                    bind(single, base: 0, samples[row.index], row, &metadataBuffer)
                    if try step(single) == 1 {
                        result.inserted += 1
                        noteInserted(row)
                    } else {
                        seq -= 1
                        result.ignored += 1
                    }
                }
            }
            chunk.removeAll(keepingCapacity: true)
        }

        for index in samples.indices {
            let sample = samples[index]
            guard sample.start <= sample.end else {
                throw HealthError(.invalidArgument,
                                  "sample \(sample.uuid) of \(sample.type) ends before it starts; nothing was saved")
            }
            let typeID: Int64
            if let last = lastType, last.0 == sample.type { typeID = last.1 } else {
                typeID = try internType(sample.type, db)
                lastType = (sample.type, typeID)
            }
            let sourceID: Int64
            if let last = lastSource, last.0.hasSameIdentity(as: sample.source) { sourceID = last.1 } else {
                sourceID = try internSource(sample.source, db)
                lastSource = (sample.source, sourceID)
            }
            if lastPair.type != typeID || lastPair.source != sourceID {
                lastPair = TypeSourcePair(type: typeID, source: sourceID)
                pairs.insert(lastPair)
            }
            var unitID: Int64? = nil
            if case .quantity(_, let unit) = sample.value {
                if let last = lastUnit, last.0 == unit { unitID = last.1 } else {
                    unitID = try internUnit(unit, db)
                    lastUnit = (unit, unitID ?? 0)
                }
            }
            let syncID = sample.metadata.isEmpty ? nil : sample.syncIdentifier
            let syncVersion = syncID == nil ? nil : sample.syncVersion
            if let syncID {
                // Sync identifiers need a lookup: write what is pending first, then this row on its own.
                try flushChunk()
                if let existing = try Row.fetchOne(
                    db, sql: "SELECT seq, sync_version FROM samples WHERE sync_id = ? AND source_id = ?",
                    arguments: [syncID, sourceID]) {
                    let existingVersion: Int = existing[1] ?? 0
                    if existingVersion >= (syncVersion ?? 0) {
                        result.ignored += 1
                        continue
                    }
                    seq += 1
                    try tombstone(sampleSeq: existing[0], newSeq: seq, db)
                    result.replaced += 1
                    result.inserted -= 1  // counted as inserted below; a replacement is not a new sample
                }
                seq += 1
                let row = PreparedRow(index: index, seq: seq, typeID: typeID, sourceID: sourceID, unitID: unitID,
                                      syncID: syncID, syncVersion: syncVersion)
                bind(single, base: 0, sample, row, &metadataBuffer)
                if try step(single) == 1 {
                    result.inserted += 1
                    noteInserted(row)
                } else {
                    seq -= 1
                    result.ignored += 1
                }
                continue
            }
            chunk.append(PreparedRow(index: index, seq: 0, typeID: typeID, sourceID: sourceID, unitID: unitID,
                                     syncID: nil, syncVersion: nil))
            if chunk.count == Self.rowsPerStatement { try flushChunk() }
        }
        try flushChunk()
        if currentMax.type >= 0 { maxDuration[currentMax.type] = max(maxDuration[currentMax.type] ?? 0, currentMax.duration) }
        for (typeID, duration) in maxDuration {
            try db.execute(sql: "UPDATE types SET max_duration = max(max_duration, ?) WHERE id = ?",
                           arguments: [duration, typeID])
        }
        for pair in pairs {
            try db.execute(sql: "INSERT OR IGNORE INTO type_sources (type_id, source_id) VALUES (?, ?)",
                           arguments: [pair.type, pair.source])
        }
        try setSequence(seq, db)
        return (result, changedTypes, seq)
    }

    /// Binds one sample's 15 columns starting at parameter `base + 1`.
    @inline(__always)
    func bind(_ stmt: OpaquePointer?, base: Int32, _ sample: HealthSample, _ row: PreparedRow, _ buffer: inout [UInt8]) {
        sqlite3_bind_int64(stmt, base + 1, row.seq)
        withUnsafeBytes(of: sample.uuid.uuid) { raw in
            _ = sqlite3_bind_blob(stmt, base + 2, raw.baseAddress, 16, sqliteTransient)
        }
        sqlite3_bind_int64(stmt, base + 3, row.typeID)
        sqlite3_bind_int64(stmt, base + 4, row.sourceID)
        sqlite3_bind_double(stmt, base + 5, sample.start.timeIntervalSince1970)
        sqlite3_bind_double(stmt, base + 6, sample.end.timeIntervalSince1970)
        switch sample.value {
        case .quantity(let value, _):
            sqlite3_bind_double(stmt, base + 7, value)
            bind(stmt, base + 8, row.unitID)
        case .category(let raw):
            sqlite3_bind_int64(stmt, base + 7, Int64(raw))
            sqlite3_bind_null(stmt, base + 8)
        case .none:
            sqlite3_bind_null(stmt, base + 7)
            sqlite3_bind_null(stmt, base + 8)
        }
        bind(stmt, base + 9, sample.creationDate?.timeIntervalSince1970)
        bind(stmt, base + 10, sample.utcOffset.map(Int64.init))
        bind(stmt, base + 11, sample.timeZone)
        bind(stmt, base + 12, sample.source.version)
        bind(stmt, base + 13, row.syncID)
        bind(stmt, base + 14, row.syncVersion.map(Int64.init))
        if sample.metadata.isEmpty {
            sqlite3_bind_null(stmt, base + 15)
        } else {
            MetadataCoding.encode(sample.metadata, into: &buffer)
            buffer.withUnsafeBufferPointer { bytes in
                _ = sqlite3_bind_text(stmt, base + 15, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                      Int32(bytes.count), sqliteTransient)
            }
        }
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

    @inline(__always)
    func bind(_ stmt: OpaquePointer?, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(stmt, index, value) } else { sqlite3_bind_null(stmt, index) }
    }

    @inline(__always)
    func bind(_ stmt: OpaquePointer?, _ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(stmt, index, value) } else { sqlite3_bind_null(stmt, index) }
    }

    @inline(__always)
    func bind(_ stmt: OpaquePointer?, _ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(stmt, index); return }
        value.withUTF8 { utf8 in
            _ = sqlite3_bind_text(stmt, index, utf8.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                  Int32(utf8.count), sqliteTransient)
        }
    }

    @discardableResult
    public func save(workouts: [HealthWorkout]) async throws -> SaveResult {
        if workouts.isEmpty { return SaveResult() }
        let (result, anchor) = try await write { db in try self.insert(workouts: workouts, db) }
        if result.inserted > 0 { notify(types: ["workout"], anchor: anchor) }
        return result
    }

    func insert(workouts: [HealthWorkout], _ db: Database) throws -> (SaveResult, Int64) {
        var result = SaveResult()
        var seq = try currentSequence(db)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        for workout in workouts {
            guard workout.start <= workout.end else {
                throw HealthError(.invalidArgument, "workout \(workout.uuid) ends before it starts; nothing was saved")
            }
            let sourceID = try internSource(workout.source, db)
            let detail = WorkoutDetail(totalDistance: workout.totalDistance, totalEnergyBurned: workout.totalEnergyBurned,
                                       events: workout.events, statistics: workout.statistics,
                                       activities: workout.activities, routes: workout.routes,
                                       sourceVersion: workout.source.version)
            let detailJSON = String(decoding: try encoder.encode(detail), as: UTF8.self)
            seq += 1
            try db.execute(sql: """
                INSERT OR IGNORE INTO workouts
                (seq, uuid, activity, source_id, start, "end", duration, created, tz_offset, tz_name, metadata, detail)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [seq, workout.uuid.blob, workout.activityType, sourceID,
                                 workout.start.timeIntervalSince1970, workout.end.timeIntervalSince1970,
                                 workout.duration, workout.creationDate?.timeIntervalSince1970, workout.utcOffset,
                                 workout.timeZone, MetadataCoding.encode(workout.metadata), detailJSON])
            if db.changesCount == 1 { result.inserted += 1 } else { seq -= 1; result.ignored += 1 }
        }
        try setSequence(seq, db)
        return (result, seq)
    }

    @discardableResult
    public func save(correlations: [HealthCorrelation]) async throws -> SaveResult {
        if correlations.isEmpty { return SaveResult() }
        let (result, types, anchor) = try await write { db in try self.insert(correlations: correlations, db) }
        notify(types: types, anchor: anchor)
        return result
    }

    func insert(correlations: [HealthCorrelation], _ db: Database) throws -> (SaveResult, Set<String>, Int64) {
        var result = SaveResult()
        var types = Set<String>()
        var seq = try currentSequence(db)
        for correlation in correlations {
            let typeID = try internType(correlation.type, db)
            let sourceID = try internSource(correlation.source, db)
            let members = "[" + correlation.members.map { "\"\($0.uuidString)\"" }.joined(separator: ",") + "]"
            seq += 1
            try db.execute(sql: """
                INSERT OR IGNORE INTO correlations (seq, uuid, type_id, source_id, start, "end", created, metadata, members)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [seq, correlation.uuid.blob, typeID, sourceID, correlation.start.timeIntervalSince1970,
                                 correlation.end.timeIntervalSince1970, correlation.creationDate?.timeIntervalSince1970,
                                 MetadataCoding.encode(correlation.metadata), members])
            if db.changesCount == 1 {
                result.inserted += 1
                types.insert(correlation.type)
            } else {
                seq -= 1
                result.ignored += 1
            }
        }
        try setSequence(seq, db)
        return (result, types, seq)
    }

    @discardableResult
    public func save(documents: [HealthDocument]) async throws -> SaveResult {
        if documents.isEmpty { return SaveResult() }
        return try await write { db in try self.insert(documents: documents, db) }
    }

    func insert(documents: [HealthDocument], _ db: Database) throws -> SaveResult {
        var result = SaveResult()
        for document in documents {
            try db.execute(sql: """
                INSERT OR IGNORE INTO documents (uuid, kind, start, "end", source_name, json) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [document.uuid.blob, document.kind.rawValue, document.start?.timeIntervalSince1970,
                                 document.end?.timeIntervalSince1970, document.sourceName, document.json])
            if db.changesCount == 1 { result.inserted += 1 } else { result.ignored += 1 }
        }
        return result
    }

    public func saveRoute(_ route: UUID, points: [RoutePoint]) async throws {
        try await write { db in try self.insert(route: route, points: points, db) }
    }

    func insert(route: UUID, points: [RoutePoint], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM route_points WHERE route = ?", arguments: [route.blob])
        let statement = try db.cachedStatement(sql: """
            INSERT INTO route_points (route, idx, time, lat, lon, ele, speed, course, h_acc, v_acc)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (index, point) in points.enumerated() {
            try statement.execute(arguments: [route.blob, index, point.time.timeIntervalSince1970, point.latitude,
                                              point.longitude, point.elevation, point.speed, point.course,
                                              point.horizontalAccuracy, point.verticalAccuracy])
        }
    }
}

struct TypeSourcePair: Hashable {
    var type: Int64
    var source: Int64
}

/// The parts of a workout kept as one JSON column.
struct WorkoutDetail: Codable {
    var totalDistance: HealthWorkout.Measurement?
    var totalEnergyBurned: HealthWorkout.Measurement?
    var events: [HealthWorkout.Event]
    var statistics: [HealthWorkout.Statistic]
    var activities: [HealthWorkout.Activity]
    var routes: [HealthWorkout.Route]
    var sourceVersion: String?
}

extension UUID {
    /// The 16 raw bytes, as stored.
    var blob: Data { withUnsafeBytes(of: uuid) { Data($0) } }

    init?(blob: Data) {
        guard blob.count == 16 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: blob) }
        self.init(uuid: raw)
    }
}
