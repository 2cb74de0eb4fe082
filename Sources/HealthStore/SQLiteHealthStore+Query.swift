import Foundation
import GRDB
import GRDBSQLite
import HealthModel

extension SQLiteHealthStore {
    public func samples(_ query: SampleQuery) async throws -> SamplePage {
        try await read { db in try self.fetchSamples(query, db) }
    }

    public func sample(_ uuid: UUID) async throws -> HealthSample? {
        try await fetchOneSample("uuid = ?", [uuid.blob])
    }

    public func sample(syncIdentifier: String, sourceKey: String) async throws -> HealthSample? {
        try await fetchOneSample("sync_id = ? AND source_id = (SELECT id FROM sources WHERE key = ?)", [syncIdentifier, sourceKey])
    }

    public func syncedObjects(type: String, sourceKey: String, start: Date, end: Date) async throws
        -> [String: SyncedObject]
    {
        try await read { db in
            guard let typeID = try self.typeID(type, db),
                  let sourceID = try Int64.fetchOne(db, sql: "SELECT id FROM sources WHERE key = ?", arguments: [sourceKey])
            else { return [:] }
            var found: [String: SyncedObject] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT sync_id, sync_version, value, start, "end", uuid FROM samples
                WHERE type_id = ? AND start >= ? AND start < ? AND source_id = ? AND sync_id IS NOT NULL
                """, arguments: [typeID, start.timeIntervalSince1970, end.timeIntervalSince1970, sourceID])
            while let row = try rows.next() {
                guard let id = row[0] as String?, let uuid = (row[5] as Data?).flatMap(UUID.init(blob:)) else { continue }
                found[id] = SyncedObject(uuid: uuid, version: Int((row[1] as Int64?) ?? 0), value: (row[2] as Double?) ?? .nan,
                                         start: Date(timeIntervalSince1970: row[3]), end: Date(timeIntervalSince1970: row[4]))
            }
            return found
        }
    }

    func fetchOneSample(_ predicate: String, _ arguments: StatementArguments) async throws -> HealthSample? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name,
                       source_version, metadata FROM samples WHERE \(predicate)
                """, arguments: arguments) else { return nil }
            let table = try self.internTable(db) { t in
                t.sources[row[3]] != nil && t.typeNames[row[2]] != nil && (row[7] as Int64?).map { t.unitNames[$0] != nil } ?? true
            }
            guard let type = table.typeNames[row[2]] else { return nil }
            return self.decodeSample(row, type: type, table)
        }
    }

    func fetchSamples(_ query: SampleQuery, _ db: Database) throws -> SamplePage {
        guard let typeID = try typeID(query.type, db) else { return SamplePage(samples: [], nextCursor: nil) }
        var (sql, arguments) = try predicateSQL(query, typeID: typeID, db)
        if let cursor = query.cursor {
            guard let (start, seq) = SampleCursor.decode(cursor) else {
                throw HealthError(.invalidArgument, "the cursor '\(cursor)' is not one this store issued; start again without it")
            }
            sql += query.ascending ? " AND (start, seq) > (?, ?)" : " AND (start, seq) < (?, ?)"
            arguments += [start, seq]
        }
        let direction = query.ascending ? "ASC" : "DESC"
        sql += " ORDER BY start \(direction), seq \(direction)"
        if let limit = query.limit { sql += " LIMIT \(max(0, limit) + 1)" }
        let rows = try Row.fetchAll(db, sql: """
            SELECT seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name,
                   source_version, metadata FROM samples WHERE \(sql)
            """, arguments: arguments)
        let table = try internTable(db) { t in rows.allSatisfy { row in
            t.sources[row[3]] != nil && (row[7] as Int64?).map { t.unitNames[$0] != nil } ?? true
        } }
        var samples: [HealthSample] = []
        samples.reserveCapacity(rows.count)
        var next: String? = nil
        for (index, row) in rows.enumerated() {
            if let limit = query.limit, index == limit {
                if let last = samples.last, let lastRow = index > 0 ? rows[index - 1] : nil {
                    next = SampleCursor.encode(start: last.start.timeIntervalSince1970, seq: lastRow[0])
                }
                break
            }
            samples.append(decodeSample(row, type: query.type, table))
        }
        return SamplePage(samples: samples, nextCursor: next)
    }

    func decodeSample(_ row: Row, type: String, _ table: InternTable) -> HealthSample {
        let uuidData: Data = row[1]
        var source = table.sources[row[3]] ?? HealthSource(name: "unknown")
        source.version = row[11]
        let value: SampleValue
        if let unitID: Int64 = row[7], let unit = table.unitNames[unitID], let v: Double = row[6] {
            value = .quantity(v, unit: unit)
        } else if let raw: Int64 = row[6] {
            value = .category(Int(raw))
        } else {
            value = .none
        }
        let created: Double? = row[8]
        return HealthSample(
            uuid: UUID(blob: uuidData) ?? UUID(), type: type,
            start: Date(timeIntervalSince1970: row[4]), end: Date(timeIntervalSince1970: row[5]),
            value: value, source: source, creationDate: created.map(Date.init(timeIntervalSince1970:)),
            metadata: MetadataCoding.decode(row[12]), utcOffset: row[9], timeZone: row[10])
    }

    /// The WHERE clause (without the keyword) for a sample query.
    func predicateSQL(_ query: SampleQuery, typeID: Int64, _ db: Database) throws -> (String, StatementArguments) {
        var sql = "type_id = ?"
        var arguments: StatementArguments = [typeID]
        if let start = query.start, let end = query.end, end < start {
            throw HealthError(.invalidRange, "the range ends (\(end)) before it starts (\(start))")
        }
        let maxDuration = try Double.fetchOne(db, sql: "SELECT max_duration FROM types WHERE id = ?",
                                              arguments: [typeID]) ?? 0
        let s = query.start?.timeIntervalSince1970, e = query.end?.timeIntervalSince1970
        switch query.matching {
        case .overlap:
            if let s { sql += " AND \"end\" >= ? AND start >= ?"; arguments += [s, s - maxDuration] }
            if let e { sql += " AND start < ?"; arguments += [e] }
        case .strictStartDate:
            if let s { sql += " AND start >= ?"; arguments += [s] }
            if let e { sql += " AND start < ?"; arguments += [e] }
        case .strictEndDate:
            if let s { sql += " AND \"end\" > ? AND start >= ?"; arguments += [s, s - maxDuration] }
            if let e { sql += " AND \"end\" <= ?"; arguments += [e] }
        }
        if let names = query.sources {
            let ids = try sourceIDs(matching: names, db)
            if ids.isEmpty { sql += " AND 0" } else {
                sql += " AND source_id IN (\(ids.map { String($0) }.joined(separator: ",")))"
            }
        }
        if let key = query.metadataKey {
            let path = "$.\"" + key.replacingOccurrences(of: "\"", with: "") + "\""
            if query.metadataValues.isEmpty {
                sql += " AND json_extract(metadata, ?) IS NOT NULL"
                arguments += [path]
            } else {
                sql += " AND json_extract(metadata, ?) IN (\(query.metadataValues.map { _ in "?" }.joined(separator: ",")))"
                arguments += [path]
                for value in query.metadataValues { arguments += [value] }
            }
        }
        return (sql, arguments)
    }

    /// Source IDs whose name or key equals one of `names` (case-insensitive on names).
    func sourceIDs(matching names: [String], _ db: Database) throws -> [Int64] {
        let table = try internTable(db, needing: { _ in false })
        return table.sources.ids(matching: names)
    }

    public func scan(_ request: ScanRequest, _ body: (ScanRow) throws -> Void) async throws {
        // The closure is neither Sendable nor escaping: run the read synchronously on a reader connection, on a
        // thread of its own (see readOffPool).
        try await readOffPool { db in try self.scan(request, db, body) }
    }

    /// Runs a synchronous read on a thread of its own while the calling task waits, never on the cooperative pool:
    /// a synchronous `read` there blocks its thread until a reader connection is free, and the tasks holding the
    /// readers may need that very thread to finish (with two cores the pool has two threads: `serve` under load
    /// stopped answering, every pool thread waiting for a reader).
    func readOffPool<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { body in
            let borrowed = BorrowedRead(body)
            return try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    // The closure is given back (released) before the caller resumes.
                    let result = borrowed.run { run in Result { try self.readSync(run) } }
                    continuation.resume(with: result)
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
        }
    }

    func readSync<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try writer.read(body)
        } catch let error as DatabaseError {
            throw Self.storeError(error, location: location)
        }
    }

    func scan(_ request: ScanRequest, _ db: Database, _ body: (ScanRow) throws -> Void) throws {
        guard let typeID = try typeID(request.type, db) else { return }
        let maxDuration = try Double.fetchOne(db, sql: "SELECT max_duration FROM types WHERE id = ?",
                                              arguments: [typeID]) ?? 0
        // Converters per unit ID, built once per scan.
        var converters: [Int64: HealthModel.UnitConverter] = [:]
        if let target = request.unit {
            let targetUnit = try HealthUnit.parse(target)
            let table = try internTable(db, needing: { _ in false })
            for (id, name) in table.unitNames {
                if let unit = try? HealthUnit.parse(name), let converter = try? unit.converter(to: targetUnit) {
                    converters[id] = converter
                }
            }
        }
        var sql = """
            SELECT start, "end", value, source_id, unit_id FROM samples INDEXED BY samples_scan
            WHERE type_id = ? AND start >= ? AND start < ? AND "end" >= ?
            """
        if let ids = request.sourceIDs {
            sql += " AND source_id IN (\(ids.map { String($0) }.joined(separator: ",")))"
        }
        sql += " ORDER BY start, seq"
        let statement = try db.makeStatement(sql: sql)
        let stmt = statement.sqliteStatement
        let s = request.start.timeIntervalSince1970, e = request.end.timeIntervalSince1970
        sqlite3_bind_int64(stmt, 1, typeID)
        sqlite3_bind_double(stmt, 2, s - maxDuration)
        sqlite3_bind_double(stmt, 3, e)
        sqlite3_bind_double(stmt, 4, s)
        defer { sqlite3_reset(stmt) }
        var lastUnit: Int64 = -1
        var converter = HealthModel.UnitConverter.identity
        var convertible = true
        while true {
            let code = sqlite3_step(stmt)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            var value = Double.nan
            if sqlite3_column_type(stmt, 2) != SQLITE_NULL {
                value = sqlite3_column_double(stmt, 2)
                if request.unit != nil, sqlite3_column_type(stmt, 4) != SQLITE_NULL {
                    let unitID = sqlite3_column_int64(stmt, 4)
                    if unitID != lastUnit {
                        lastUnit = unitID
                        if let c = converters[unitID] { converter = c; convertible = true } else { convertible = false }
                    }
                    value = convertible ? converter.convert(value) : .nan
                }
            }
            try body(ScanRow(start: sqlite3_column_double(stmt, 0), end: sqlite3_column_double(stmt, 1),
                             value: value, sourceID: sqlite3_column_int64(stmt, 3)))
        }
    }

    public func typeSummaries() async throws -> [TypeSummary] {
        try await read { db in
            let table = try self.internTable(db, needing: { _ in false })
            var summaries: [TypeSummary] = []
            var units: [Int64: [String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT DISTINCT type_id, unit_id FROM samples WHERE unit_id IS NOT NULL
                """) {
                let typeID: Int64 = row[0], unitID: Int64 = row[1]
                if let name = table.unitNames[unitID] { units[typeID, default: []].append(name) }
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT type_id, count(*), min(start), max("end") FROM samples GROUP BY type_id
                UNION ALL
                SELECT type_id, count(*), min(start), max("end") FROM correlations GROUP BY type_id
                """) {
                let typeID: Int64 = row[0]
                guard let name = table.typeNames[typeID] else { continue }
                let kind = SampleTypeRegistry.registered(name)?.kind ?? SampleTypeRegistry.unregistered(name)?.kind ?? .quantity
                summaries.append(TypeSummary(type: name, kind: kind, count: row[1],
                                             first: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)),
                                             last: (row[3] as Double?).map(Date.init(timeIntervalSince1970:)),
                                             units: (units[typeID] ?? []).sorted()))
            }
            if let row = try Row.fetchOne(db, sql: "SELECT count(*), min(start), max(\"end\") FROM workouts"),
               let count: Int = row[0], count > 0 {
                summaries.append(TypeSummary(type: "workout", kind: .workout, count: count,
                                             first: (row[1] as Double?).map(Date.init(timeIntervalSince1970:)),
                                             last: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)),
                                             units: []))
            }
            return summaries.sorted { $0.type < $1.type }
        }
    }

    /// One probe of the scan index (`samples_scan`, `correlations_type_start`) per interned type and one of
    /// `workouts`: the cost grows with the number of types, never with the number of samples.
    ///
    /// ```swift
    /// let present = try await store.presentTypes()   // ["heartRate", "stepCount", "workout"]
    /// ```
    public func presentTypes() async throws -> Set<String> {
        try await read { db in
            var present = Set(try String.fetchAll(db.cachedStatement(sql: Self.presentTypesSQL)))
            if try Bool.fetchOne(db.cachedStatement(sql: Self.workoutsPresentSQL)) == true { present.insert("workout") }
            return present
        }
    }

    /// The interned types with at least one sample or correlation, each an index probe (`EXISTS` on the leading
    /// `type_id` column): what ``presentTypes()`` runs, named for the test that reads its query plan.
    static let presentTypesSQL = """
        SELECT identifier FROM types AS t
        WHERE EXISTS (SELECT 1 FROM samples WHERE type_id = t.id)
           OR EXISTS (SELECT 1 FROM correlations WHERE type_id = t.id)
        """
    static let workoutsPresentSQL = "SELECT EXISTS (SELECT 1 FROM workouts)"

    public func workouts(_ query: WorkoutQuery) async throws -> [HealthWorkout] {
        try await read { db in
            var sql = "SELECT * FROM workouts WHERE 1"
            var arguments: StatementArguments = []
            if let start = query.start { sql += " AND \"end\" >= ?"; arguments += [start.timeIntervalSince1970] }
            if let end = query.end { sql += " AND start < ?"; arguments += [end.timeIntervalSince1970] }
            if let types = query.activityTypes, !types.isEmpty {
                sql += " AND activity IN (\(types.map { _ in "?" }.joined(separator: ",")))"
                for type in types { arguments += [type] }
            }
            sql += " ORDER BY start \(query.ascending ? "ASC" : "DESC")"
            if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let table = try self.internTable(db) { t in rows.allSatisfy { t.sources[$0["source_id"]] != nil } }
            return rows.compactMap { self.decodeWorkout($0, table) }
        }
    }

    public func workout(_ uuid: UUID) async throws -> HealthWorkout? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM workouts WHERE uuid = ?", arguments: [uuid.blob])
            else { return nil }
            let table = try self.internTable(db) { $0.sources[row["source_id"]] != nil }
            return self.decodeWorkout(row, table)
        }
    }

    func decodeWorkout(_ row: Row, _ table: InternTable) -> HealthWorkout? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let detailJSON: String = row["detail"],
              let detail = try? decoder.decode(WorkoutDetail.self, from: Data(detailJSON.utf8)),
              let uuid = UUID(blob: row["uuid"]) else { return nil }
        var source = table.sources[row["source_id"]] ?? HealthSource(name: "unknown")
        source.version = detail.sourceVersion
        let created: Double? = row["created"]
        return HealthWorkout(
            uuid: uuid, activityType: row["activity"], start: Date(timeIntervalSince1970: row["start"]),
            end: Date(timeIntervalSince1970: row["end"]), duration: row["duration"], source: source,
            creationDate: created.map(Date.init(timeIntervalSince1970:)), metadata: MetadataCoding.decode(row["metadata"]),
            utcOffset: row["tz_offset"], timeZone: row["tz_name"], totalDistance: detail.totalDistance,
            totalEnergyBurned: detail.totalEnergyBurned, events: detail.events, statistics: detail.statistics,
            activities: detail.activities, routes: detail.routes)
    }

    public func routePoints(_ route: UUID, offset: Int, limit: Int) async throws -> [RoutePoint] {
        try await routeColumns(route, offset: offset, limit: limit).points
    }

    /// Unpacks only the requested points of the route's packed row.
    public func routeColumns(_ route: UUID, offset: Int, limit: Int) async throws -> RoutePointColumns {
        try await read { db in
            guard let packed = try Data.fetchOne(db, sql: "SELECT points FROM routes WHERE uuid = ?",
                                                 arguments: [route.blob]) else { return RoutePointColumns() }
            guard let columns = packed.withUnsafeBytes({ RoutePointColumns(packed: $0, offset: offset, limit: limit) })
            else {
                throw HealthError(.internalError, "the stored points of route \(route) are not readable")
            }
            return columns
        }
    }

    public func correlations(type: String, start: Date?, end: Date?, limit: Int?) async throws -> [HealthCorrelation] {
        try await read { db in
            guard let typeID = try self.typeID(type, db) else { return [] }
            var sql = "SELECT * FROM correlations WHERE type_id = ?"
            var arguments: StatementArguments = [typeID]
            if let start { sql += " AND \"end\" >= ?"; arguments += [start.timeIntervalSince1970] }
            if let end { sql += " AND start < ?"; arguments += [end.timeIntervalSince1970] }
            sql += " ORDER BY start DESC"
            if let limit { sql += " LIMIT \(max(0, limit))" }
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let table = try self.internTable(db) { t in rows.allSatisfy { t.sources[$0["source_id"]] != nil } }
            return rows.compactMap { row in
                guard let uuid = UUID(blob: row["uuid"]) else { return nil }
                let membersJSON: String = row["members"]
                let members = ((try? JSONSerialization.jsonObject(with: Data(membersJSON.utf8))) as? [String] ?? [])
                    .compactMap(UUID.init(uuidString:))
                let created: Double? = row["created"]
                return HealthCorrelation(
                    uuid: uuid, type: type, start: Date(timeIntervalSince1970: row["start"]),
                    end: Date(timeIntervalSince1970: row["end"]),
                    source: table.sources[row["source_id"]] ?? HealthSource(name: "unknown"),
                    creationDate: created.map(Date.init(timeIntervalSince1970:)),
                    metadata: MetadataCoding.decode(row["metadata"]), members: members)
            }
        }
    }

    public func documents(kind: HealthDocument.Kind, start: Date?, end: Date?, limit: Int?) async throws -> [HealthDocument] {
        try await read { db in
            var sql = "SELECT uuid, kind, start, \"end\", source_name, json FROM documents WHERE kind = ?"
            var arguments: StatementArguments = [kind.rawValue]
            if let start { sql += " AND coalesce(\"end\", start) >= ?"; arguments += [start.timeIntervalSince1970] }
            if let end { sql += " AND start < ?"; arguments += [end.timeIntervalSince1970] }
            sql += " ORDER BY start DESC"
            if let limit { sql += " LIMIT \(max(0, limit))" }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                guard let uuid = UUID(blob: row[0]) else { return nil }
                let start: Double? = row[2], end: Double? = row[3]
                return HealthDocument(uuid: uuid, kind: kind, start: start.map(Date.init(timeIntervalSince1970:)),
                                      end: end.map(Date.init(timeIntervalSince1970:)), sourceName: row[4], json: row[5])
            }
        }
    }

    public func setting(_ key: String) async throws -> String? {
        // A cached statement: the grants are settings, read on every request of the paired API.
        try await read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM settings WHERE key = ?"), arguments: [key])
        }
    }

    public func settings(prefix: String) async throws -> [String: String] {
        try await read { db in
            // `substr` instead of LIKE: a prefix may contain `_` or `%`.
            let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM settings WHERE substr(key, 1, ?) = ?",
                                        arguments: [prefix.unicodeScalars.count, prefix])
            return Dictionary(rows.map { (row: Row) -> (String, String) in (row[0], row[1]) }, uniquingKeysWith: { a, _ in a })
        }
    }

    @discardableResult
    public func updateSetting(_ key: String,
                              _ transform: @escaping @Sendable (String?) throws -> String?) async throws -> String? {
        try await write { db in
            let old = try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key])
            let new = try transform(old)
            if let new {
                try db.execute(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", arguments: [key, new])
            } else {
                try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [key])
            }
            return new
        }
    }

    public func setSetting(_ key: String, _ value: String?) async throws {
        try await write { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [key])
            }
        }
    }
}


/// A read closure lent to the thread that runs it. `@unchecked Sendable` is safe here: the closure is used once, by
/// that thread, only while the task that lent it is suspended waiting for the result — exactly like a synchronous
/// call made on another thread — so it never runs concurrently with its owner; ``run(_:)`` drops it before the
/// owner resumes, so nothing keeps it after the call.
private final class BorrowedRead<T>: @unchecked Sendable {
    private var closure: ((Database) throws -> T)?

    init(_ closure: @escaping (Database) throws -> T) { self.closure = closure }

    func run(_ body: ((Database) throws -> T) -> Result<T, any Error>) -> Result<T, any Error> {
        guard let closure else {
            return .failure(HealthError(.internalError, "a store read was run twice"))
        }
        self.closure = nil
        return body(closure)
    }
}
