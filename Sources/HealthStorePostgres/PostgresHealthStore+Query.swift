import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO

/// SQL with its parameters numbered as they are bound (`$1`, `$2`, …).
struct SQLBuilder {
    var sql: String
    var binds = PostgresBindings()

    init(_ sql: String = "") { self.sql = sql }

    /// Binds a value and returns its placeholder.
    mutating func bind<T: PostgresDynamicTypeEncodable>(_ value: T) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}

/// The columns a sample is read from, in ``PostgresHealthStore/decodeSample(_:type:_:)``'s order.
typealias SampleRow = (Int64, UUID, Int64, Int64, Double, Double, Double?, Int64?, Double?, Int64?, String?, String?, String?)
let sampleColumns = """
    seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name, source_version, metadata
    """

/// The columns a workout is read from.
typealias WorkoutRow = (Int64, UUID, String, Int64, Double, Double, Double, Double?, Int64?, String?, String?, String)
let workoutColumns = """
    seq, uuid, activity, source_id, start, "end", duration, created, tz_offset, tz_name, metadata, detail
    """

extension PostgresHealthStore {
    public func samples(_ query: SampleQuery) async throws -> SamplePage {
        try await withConnection { connection in try await self.fetchSamples(query, connection) }
    }

    public func sample(_ uuid: UUID) async throws -> HealthSample? {
        try await withConnection { connection in
            var builder = SQLBuilder()
            builder.sql = "SELECT \(sampleColumns) FROM samples WHERE uuid = \(builder.bind(uuid))"
            return try await self.fetchOneSample(builder, connection)
        }
    }

    public func sample(syncIdentifier: String, sourceKey: String) async throws -> HealthSample? {
        try await withConnection { connection in
            var builder = SQLBuilder()
            builder.sql = """
                SELECT \(sampleColumns) FROM samples WHERE sync_id = \(builder.bind(syncIdentifier))
                AND source_id = (SELECT id FROM sources WHERE key = \(builder.bind(sourceKey))) LIMIT 1
                """
            return try await self.fetchOneSample(builder, connection)
        }
    }

    func fetchOneSample(_ builder: SQLBuilder, _ connection: PostgresConnection) async throws -> HealthSample? {
        var found: SampleRow?
        for try await row in try await connection.query(builder.query, logger: logger).decode(SampleRow.self) {
            found = row
        }
        guard let row = found else { return nil }
        let table = try await internTable(connection) { t in
            t.sources[row.3] != nil && t.typeNames[row.2] != nil && (row.7.map { t.unitNames[$0] != nil } ?? true)
        }
        guard let type = table.typeNames[row.2] else { return nil }
        return decodeSample(row, type: type, table)
    }

    public func syncedObjects(type: String, sourceKey: String, start: Date, end: Date) async throws
        -> [String: SyncedObject]
    {
        try await withConnection { connection in
            guard let typeID = try await self.typeID(type, connection) else { return [:] }
            var builder = SQLBuilder()
            builder.sql = """
                SELECT sync_id, sync_version, value, start, "end", uuid FROM samples
                WHERE type_id = \(builder.bind(typeID)) AND start >= \(builder.bind(start.timeIntervalSince1970))
                AND start < \(builder.bind(end.timeIntervalSince1970))
                AND source_id = (SELECT id FROM sources WHERE key = \(builder.bind(sourceKey))) AND sync_id IS NOT NULL
                """
            var found: [String: SyncedObject] = [:]
            for try await (id, version, value, s, e, uuid) in try await connection.query(builder.query, logger: self.logger)
                .decode((String, Int64?, Double?, Double, Double, UUID).self) {
                found[id] = SyncedObject(uuid: uuid, version: Int(version ?? 0), value: value ?? .nan,
                                         start: Date(timeIntervalSince1970: s), end: Date(timeIntervalSince1970: e))
            }
            return found
        }
    }

    func fetchSamples(_ query: SampleQuery, _ connection: PostgresConnection) async throws -> SamplePage {
        guard let typeID = try await typeID(query.type, connection) else { return SamplePage(samples: [], nextCursor: nil) }
        var builder = SQLBuilder()
        try await predicateSQL(query, typeID: typeID, &builder, connection)
        if let cursor = query.cursor {
            guard let (start, seq) = SampleCursor.decode(cursor) else {
                throw HealthError(.invalidArgument, "the cursor '\(cursor)' is not one this store issued; start again without it")
            }
            let s = builder.bind(start), q = builder.bind(seq)
            builder.sql += query.ascending ? " AND (start, seq) > (\(s), \(q))" : " AND (start, seq) < (\(s), \(q))"
        }
        let direction = query.ascending ? "ASC" : "DESC"
        builder.sql = "SELECT \(sampleColumns) FROM samples WHERE " + builder.sql
            + " ORDER BY start \(direction), seq \(direction)"
        if let limit = query.limit { builder.sql += " LIMIT \(max(0, limit) + 1)" }
        var rows: [SampleRow] = []
        for try await row in try await connection.query(builder.query, logger: logger).decode(SampleRow.self) {
            rows.append(row)
        }
        let table = try await internTable(connection) { t in
            rows.allSatisfy { row in t.sources[row.3] != nil && (row.7.map { t.unitNames[$0] != nil } ?? true) }
        }
        var samples: [HealthSample] = []
        samples.reserveCapacity(rows.count)
        var next: String?
        for (index, row) in rows.enumerated() {
            if let limit = query.limit, index == limit {
                if index > 0 {
                    let last = rows[index - 1]
                    next = SampleCursor.encode(start: last.4, seq: last.0)
                }
                break
            }
            samples.append(decodeSample(row, type: query.type, table))
        }
        return SamplePage(samples: samples, nextCursor: next)
    }

    func decodeSample(_ row: SampleRow, type: String, _ table: PostgresInternTable) -> HealthSample {
        var source = table.sources[row.3] ?? HealthSource(name: "unknown")
        source.version = row.11
        let value: SampleValue
        if let unitID = row.7, let unit = table.unitNames[unitID], let v = row.6 {
            value = .quantity(v, unit: unit)
        } else if let raw = row.6 {
            value = .category(raw.clampedInt())
        } else {
            value = .none
        }
        return HealthSample(
            uuid: row.1, type: type, start: Date(timeIntervalSince1970: row.4), end: Date(timeIntervalSince1970: row.5),
            value: value, source: source, creationDate: row.8.map(Date.init(timeIntervalSince1970:)),
            metadata: MetadataCoding.decode(row.12), utcOffset: row.9.map { Int(clamping: $0) }, timeZone: row.10)
    }

    /// Appends the WHERE clause (without the keyword) of a sample query.
    func predicateSQL(_ query: SampleQuery, typeID: Int64, _ builder: inout SQLBuilder,
                      _ connection: PostgresConnection) async throws {
        builder.sql += "type_id = \(builder.bind(typeID))"
        if let start = query.start, let end = query.end, end < start {
            throw HealthError(.invalidRange, "the range ends (\(end)) before it starts (\(start))")
        }
        let maxDuration = try await scalar("SELECT max_duration FROM types WHERE id = \(typeID)", as: Double.self,
                                           connection) ?? 0
        let s = query.start?.timeIntervalSince1970, e = query.end?.timeIntervalSince1970
        switch query.matching {
        case .overlap:
            if let s { builder.sql += " AND \"end\" >= \(builder.bind(s)) AND start >= \(builder.bind(s - maxDuration))" }
            if let e { builder.sql += " AND start < \(builder.bind(e))" }
        case .strictStartDate:
            if let s { builder.sql += " AND start >= \(builder.bind(s))" }
            if let e { builder.sql += " AND start < \(builder.bind(e))" }
        case .strictEndDate:
            if let s { builder.sql += " AND \"end\" > \(builder.bind(s)) AND start >= \(builder.bind(s - maxDuration))" }
            if let e { builder.sql += " AND \"end\" <= \(builder.bind(e))" }
        }
        if let names = query.sources {
            let ids = try await sourceIDs(matching: names, connection)
            builder.sql += ids.isEmpty ? " AND false" : " AND source_id = ANY(\(builder.bind(ids))::bigint[])"
        }
        if let key = query.metadataKey {
            let k = builder.bind(key.replacingOccurrences(of: "\"", with: ""))
            if query.metadataValues.isEmpty {
                builder.sql += " AND (metadata::jsonb ->> \(k)) IS NOT NULL"
            } else {
                builder.sql += " AND (metadata::jsonb ->> \(k)) = ANY(\(builder.bind(query.metadataValues))::text[])"
            }
        }
    }

    /// Source ids whose name or key equals one of `names` (case-insensitive).
    func sourceIDs(matching names: [String], _ connection: PostgresConnection) async throws -> [Int64] {
        let table = try await internTable(connection, needing: { _ in false })
        return table.sources.ids(matching: names)
    }

    // MARK: Statistics scan

    /// Streams the rows in ascending start order from one query: postgres-nio reads them off the socket as the
    /// loop consumes them, so a year of samples never sits in memory.
    public func scan(_ request: ScanRequest, _ body: (ScanRow) throws -> Void) async throws {
        try await withoutActuallyEscaping(body) { body in
            let borrowed = BorrowedScanBody(body)
            try await withConnection { connection in try await self.scan(request, connection, borrowed) }
        }
    }

    func scan(_ request: ScanRequest, _ connection: PostgresConnection, _ body: BorrowedScanBody) async throws {
        guard let typeID = try await typeID(request.type, connection) else { return }
        var converters: [Int64: HealthModel.UnitConverter] = [:]
        if let target = request.unit {
            let targetUnit = try HealthUnit.parse(target)
            let table = try await internTable(connection, needing: { _ in false })
            for (id, name) in table.unitNames {
                if let unit = try? HealthUnit.parse(name), let converter = try? unit.converter(to: targetUnit) {
                    converters[id] = converter
                }
            }
        }
        var builder = SQLBuilder()
        let s = request.start.timeIntervalSince1970, e = request.end.timeIntervalSince1970
        let t = builder.bind(typeID)
        builder.sql = """
            SELECT start, "end", value, source_id, unit_id FROM samples
            WHERE type_id = \(t) AND start >= \(builder.bind(s)) - (SELECT max_duration FROM types WHERE id = \(t))
            AND start < \(builder.bind(e)) AND "end" >= \(builder.bind(s))
            """
        if let ids = request.sourceIDs { builder.sql += " AND source_id = ANY(\(builder.bind(ids))::bigint[])" }
        builder.sql += " ORDER BY start, seq"
        var lastUnit: Int64 = -1
        var converter = HealthModel.UnitConverter.identity
        var convertible = true
        let rows = try await connection.query(builder.query, logger: logger)
            .decode((Double, Double, Double?, Int64, Int64?).self)
        for try await (start, end, stored, sourceID, unitID) in rows {
            var value = Double.nan
            if let stored {
                value = stored
                if request.unit != nil, let unitID {
                    if unitID != lastUnit {
                        lastUnit = unitID
                        if let c = converters[unitID] { converter = c; convertible = true } else { convertible = false }
                    }
                    value = convertible ? converter.convert(value) : .nan
                }
            }
            try body.call(ScanRow(start: start, end: end, value: value, sourceID: sourceID))
        }
    }

    // MARK: Summaries

    public func typeSummaries() async throws -> [TypeSummary] {
        try await transaction(readOnly: true) { connection in
            let table = try await self.internTable(connection, needing: { _ in false })
            var units: [Int64: [String]] = [:]
            for try await (typeID, unitID) in try await connection.query(
                "SELECT DISTINCT type_id, unit_id FROM samples WHERE unit_id IS NOT NULL", logger: self.logger)
                .decode((Int64, Int64).self) {
                if let name = table.unitNames[unitID] { units[typeID, default: []].append(name) }
            }
            var summaries: [TypeSummary] = []
            for try await (typeID, count, first, last) in try await connection.query("""
                SELECT type_id, count(*), min(start), max("end") FROM samples GROUP BY type_id
                UNION ALL
                SELECT type_id, count(*), min(start), max("end") FROM correlations GROUP BY type_id
                """, logger: self.logger).decode((Int64, Int64, Double?, Double?).self) {
                guard let name = table.typeNames[typeID] else { continue }
                let kind = SampleTypeRegistry.registered(name)?.kind ?? SampleTypeRegistry.unregistered(name)?.kind ?? .quantity
                summaries.append(TypeSummary(type: name, kind: kind, count: Int(count),
                                             first: first.map(Date.init(timeIntervalSince1970:)),
                                             last: last.map(Date.init(timeIntervalSince1970:)),
                                             units: (units[typeID] ?? []).sorted()))
            }
            for try await (count, first, last) in try await connection.query(
                "SELECT count(*), min(start), max(\"end\") FROM workouts", logger: self.logger)
                .decode((Int64, Double?, Double?).self) where count > 0 {
                summaries.append(TypeSummary(type: "workout", kind: .workout, count: Int(count),
                                             first: first.map(Date.init(timeIntervalSince1970:)),
                                             last: last.map(Date.init(timeIntervalSince1970:)), units: []))
            }
            return summaries.sorted { $0.type < $1.type }
        }
    }

    /// One probe of the scan index (`samples_scan`, `correlations_type_start`) per stored type and one of
    /// `workouts`: the cost grows with the number of types, never with the number of samples.
    ///
    /// ```swift
    /// let present = try await store.presentTypes()   // ["heartRate", "stepCount", "workout"]
    /// ```
    public func presentTypes() async throws -> Set<String> {
        try await withConnection { connection in
            var present = Set<String>()
            for try await name in try await connection.query("""
                SELECT identifier FROM types AS t
                WHERE EXISTS (SELECT 1 FROM samples WHERE type_id = t.id)
                   OR EXISTS (SELECT 1 FROM correlations WHERE type_id = t.id)
                UNION ALL
                SELECT 'workout' WHERE EXISTS (SELECT 1 FROM workouts)
                """, logger: self.logger).decode(String.self) {
                present.insert(name)
            }
            return present
        }
    }

    // MARK: Workouts, routes, correlations, documents

    public func workouts(_ query: WorkoutQuery) async throws -> [HealthWorkout] {
        try await withConnection { connection in
            var builder = SQLBuilder()
            var sql = "SELECT \(workoutColumns) FROM workouts WHERE true"
            if let start = query.start { sql += " AND \"end\" >= \(builder.bind(start.timeIntervalSince1970))" }
            if let end = query.end { sql += " AND start < \(builder.bind(end.timeIntervalSince1970))" }
            if let types = query.activityTypes, !types.isEmpty { sql += " AND activity = ANY(\(builder.bind(types))::text[])" }
            sql += " ORDER BY start \(query.ascending ? "ASC" : "DESC")"
            if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
            builder.sql = sql
            return try await self.fetchWorkouts(builder, connection)
        }
    }

    public func workout(_ uuid: UUID) async throws -> HealthWorkout? {
        try await withConnection { connection in
            var builder = SQLBuilder()
            builder.sql = "SELECT \(workoutColumns) FROM workouts WHERE uuid = \(builder.bind(uuid))"
            return try await self.fetchWorkouts(builder, connection).first
        }
    }

    func fetchWorkouts(_ builder: SQLBuilder, _ connection: PostgresConnection) async throws -> [HealthWorkout] {
        var rows: [WorkoutRow] = []
        for try await row in try await connection.query(builder.query, logger: logger).decode(WorkoutRow.self) {
            rows.append(row)
        }
        let table = try await internTable(connection) { t in rows.allSatisfy { t.sources[$0.3] != nil } }
        return rows.compactMap { decodeWorkout($0, table) }
    }

    func decodeWorkout(_ row: WorkoutRow, _ table: PostgresInternTable) -> HealthWorkout? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let detail = try? decoder.decode(PostgresWorkoutDetail.self, from: Data(row.11.utf8)) else { return nil }
        var source = table.sources[row.3] ?? HealthSource(name: "unknown")
        source.version = detail.sourceVersion
        return HealthWorkout(
            uuid: row.1, activityType: row.2, start: Date(timeIntervalSince1970: row.4),
            end: Date(timeIntervalSince1970: row.5), duration: row.6, source: source,
            creationDate: row.7.map(Date.init(timeIntervalSince1970:)), metadata: MetadataCoding.decode(row.10),
            utcOffset: row.8.map { Int(clamping: $0) }, timeZone: row.9, totalDistance: detail.totalDistance,
            totalEnergyBurned: detail.totalEnergyBurned, events: detail.events, statistics: detail.statistics,
            activities: detail.activities, routes: detail.routes)
    }

    public func routePoints(_ route: UUID, offset: Int, limit: Int) async throws -> [RoutePoint] {
        try await routeColumns(route, offset: offset, limit: limit).points
    }

    /// Unpacks only the requested points of the route's packed row.
    public func routeColumns(_ route: UUID, offset: Int, limit: Int) async throws -> RoutePointColumns {
        try await withConnection { connection in
            guard let packed = try await self.scalar("SELECT points FROM routes WHERE uuid = \(route)", as: Data.self,
                                                     connection)
            else { return RoutePointColumns() }
            guard let columns = packed.withUnsafeBytes({ RoutePointColumns(packed: $0, offset: offset, limit: limit) })
            else {
                throw HealthError(.internalError, "the stored points of route \(route) are not readable")
            }
            return columns
        }
    }

    public func correlations(type: String, start: Date?, end: Date?, limit: Int?) async throws -> [HealthCorrelation] {
        try await withConnection { connection in
            guard let typeID = try await self.typeID(type, connection) else { return [] }
            var builder = SQLBuilder()
            var sql = """
                SELECT uuid, source_id, start, "end", created, metadata, members FROM correlations
                WHERE type_id = \(builder.bind(typeID))
                """
            if let start { sql += " AND \"end\" >= \(builder.bind(start.timeIntervalSince1970))" }
            if let end { sql += " AND start < \(builder.bind(end.timeIntervalSince1970))" }
            sql += " ORDER BY start DESC"
            if let limit { sql += " LIMIT \(max(0, limit))" }
            builder.sql = sql
            var rows: [(UUID, Int64, Double, Double, Double?, String?, String)] = []
            for try await row in try await connection.query(builder.query, logger: self.logger)
                .decode((UUID, Int64, Double, Double, Double?, String?, String).self) {
                rows.append(row)
            }
            let table = try await self.internTable(connection) { t in rows.allSatisfy { t.sources[$0.1] != nil } }
            return rows.map { row in
                let members = ((try? JSONSerialization.jsonObject(with: Data(row.6.utf8))) as? [String] ?? [])
                    .compactMap(UUID.init(uuidString:))
                return HealthCorrelation(
                    uuid: row.0, type: type, start: Date(timeIntervalSince1970: row.2),
                    end: Date(timeIntervalSince1970: row.3), source: table.sources[row.1] ?? HealthSource(name: "unknown"),
                    creationDate: row.4.map(Date.init(timeIntervalSince1970:)), metadata: MetadataCoding.decode(row.5),
                    members: members)
            }
        }
    }

    public func documents(kind: HealthDocument.Kind, start: Date?, end: Date?, limit: Int?) async throws -> [HealthDocument] {
        try await withConnection { connection in
            var builder = SQLBuilder()
            var sql = "SELECT uuid, start, \"end\", source_name, json FROM documents WHERE kind = \(builder.bind(kind.rawValue))"
            if let start { sql += " AND coalesce(\"end\", start) >= \(builder.bind(start.timeIntervalSince1970))" }
            if let end { sql += " AND start < \(builder.bind(end.timeIntervalSince1970))" }
            sql += " ORDER BY start DESC NULLS LAST"
            if let limit { sql += " LIMIT \(max(0, limit))" }
            builder.sql = sql
            var documents: [HealthDocument] = []
            for try await (uuid, s, e, sourceName, json) in try await connection.query(builder.query, logger: self.logger)
                .decode((UUID, Double?, Double?, String?, String).self) {
                documents.append(HealthDocument(uuid: uuid, kind: kind, start: s.map(Date.init(timeIntervalSince1970:)),
                                                end: e.map(Date.init(timeIntervalSince1970:)), sourceName: sourceName,
                                                json: json))
            }
            return documents
        }
    }

    // MARK: Settings

    public func setting(_ key: String) async throws -> String? {
        try await withConnection { connection in
            try await self.scalar("SELECT value FROM settings WHERE key = \(key)", as: String.self, connection)
        }
    }

    public func settings(prefix: String) async throws -> [String: String] {
        try await withConnection { connection in
            var result: [String: String] = [:]
            // `left` instead of LIKE: a prefix may contain `_` or `%`.
            let length = Int64(prefix.unicodeScalars.count)
            for try await (key, value) in try await connection.query(
                "SELECT key, value FROM settings WHERE left(key, \(length)::int) = \(prefix)", logger: self.logger)
                .decode((String, String).self) {
                result[key] = value
            }
            return result
        }
    }

    /// Reads and rewrites one setting under a transaction-scoped advisory lock of its key: two processes updating
    /// the same key (also a missing one) take turns, so neither loses the other's change.
    @discardableResult
    public func updateSetting(_ key: String,
                              _ transform: @escaping @Sendable (String?) throws -> String?) async throws -> String? {
        try await transaction { connection in
            let lockKey = "healthbridge.setting." + key
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))", logger: self.logger)
            let old = try await self.scalar("SELECT value FROM settings WHERE key = \(key)", as: String.self, connection)
            let new = try transform(old)
            if let new {
                try await connection.query("""
                    INSERT INTO settings (key, value) VALUES (\(key), \(new))
                    ON CONFLICT (person_id, key) DO UPDATE SET value = EXCLUDED.value
                    """, logger: self.logger)
            } else {
                try await connection.query("DELETE FROM settings WHERE key = \(key)", logger: self.logger)
            }
            return new
        }
    }
}

/// The scan's row closure lent to the task that reads the rows. `@unchecked Sendable` is safe here: the closure is
/// called only by that task, one row after another, while the task that lent it is suspended in
/// ``PostgresHealthStore/scan(_:_:)`` awaiting the read (the task group awaits every child before it returns), so it
/// never runs concurrently with its owner and is never used after the call returns.
final class BorrowedScanBody: @unchecked Sendable {
    private let body: (ScanRow) throws -> Void
    init(_ body: @escaping (ScanRow) throws -> Void) { self.body = body }
    func call(_ row: ScanRow) throws { try body(row) }
}
