import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO

extension PostgresHealthStore {
    // MARK: The change counter

    /// Locks the change counter's row for this transaction and returns its value: every writer passes here, so
    /// change numbers are handed out gap-free and in commit order.
    func lockSequence(_ connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(
            "SELECT value FROM counters WHERE person_id = \(personUUID) AND name = 'seq' FOR UPDATE",
            logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        throw HealthError(.storeUnavailable, "the PostgreSQL store's change counter is missing")
    }

    func setSequence(_ seq: Int64, from base: Int64, _ connection: PostgresConnection) async throws {
        guard seq != base else { return }
        try await connection.query(
            "UPDATE counters SET value = \(seq) WHERE person_id = \(personUUID) AND name = 'seq'",
            logger: logger)
    }

    /// `NOTIFY <schema>_changes` inside the write: delivered to every listener when the transaction commits.
    /// The payload is `<anchor>:<type>,<type>…` (just `<anchor>:` when the list would not fit a notification; the
    /// listeners then read the types from the change feed).
    func announce(types: Set<String>, anchor: Int64, _ connection: PostgresConnection) async throws {
        guard !types.isEmpty else { return }
        var payload = "\(anchor):" + types.sorted().joined(separator: ",")
        if payload.utf8.count > 7_000 { payload = "\(anchor):" }
        let channel = configuration.schema + "_changes"
        try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    /// Counts the rows a query returns (a `RETURNING` or `count(*)` answer).
    func count(_ query: PostgresQuery, _ connection: PostgresConnection) async throws -> Int {
        var n = 0
        for try await _ in try await connection.query(query, logger: logger) { n += 1 }
        return n
    }

    func scalar<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as: T.Type, _ connection: PostgresConnection) async throws -> T? {
        for try await value in try await connection.query(query, logger: logger).decode(T.self) { return value }
        return nil
    }

    // MARK: Samples

    @discardableResult
    public func save(_ samples: [HealthSample]) async throws -> SaveResult {
        if samples.isEmpty { return SaveResult() }
        return try await save(SampleBatch(samples))
    }

    /// Saves a packed batch: rows without a sync identifier go through `COPY` into a staging table and one
    /// `INSERT … SELECT`, rows with one are compared with the stored version one by one, as SQLite does.
    @discardableResult
    public func save(_ batch: SampleBatch) async throws -> SaveResult {
        if batch.isEmpty { return SaveResult() }
        let (result, types, anchor) = try await write { connection, context -> (SaveResult, Set<String>, Int64) in
            let base = try await self.lockSequence(connection)
            var seq = base
            let (result, types) = try await self.insert(batch, connection, context, seq: &seq)
            try await self.setSequence(seq, from: base, connection)
            try await self.announce(types: types, anchor: seq, connection)
            return (result, types, seq)
        }
        notify(types: types, anchor: anchor)
        return result
    }

    /// Inserts a batch inside the caller's write transaction; `seq` is the last change number handed out.
    func insert(_ batch: SampleBatch, _ connection: PostgresConnection, _ context: WriteContext,
                seq: inout Int64) async throws -> (SaveResult, Set<String>) {
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
        var typeIDs = [Int64](repeating: -1, count: tables.types.count)
        var sourceIDs = [Int64](repeating: -1, count: tables.sources.count)
        var unitIDs = [Int64](repeating: -1, count: tables.units.count)
        for index in tables.types.indices where usedTypes[index] {
            typeIDs[index] = try await internType(tables.types[index], connection, context)
        }
        for index in tables.sources.indices where usedSources[index] {
            sourceIDs[index] = try await internSource(tables.sources[index], connection, context)
        }
        for index in tables.units.indices where usedUnits[index] {
            unitIDs[index] = try await internUnit(tables.units[index], connection, context)
        }
        let plan = RowPlan(batch: batch, typeIDs: typeIDs, sourceIDs: sourceIDs, unitIDs: unitIDs)
        let before = seq
        var result = SaveResult()
        // A flag per (type, source) of the batch's tables: no hashing per row.
        var pairSeen = [Bool](repeating: false, count: typeIDs.count * sourceIDs.count)
        var typeColumn: [Int64] = [], sourceColumn: [Int64] = []
        var chunk: [Int] = []
        chunk.reserveCapacity(batch.count)
        for index in batch.rows.indices {
            let row = batch.rows[index]
            let flag = Int(row.type) * sourceIDs.count + Int(row.source)
            if !pairSeen[flag] {
                pairSeen[flag] = true
                typeColumn.append(typeIDs[Int(row.type)])
                sourceColumn.append(sourceIDs[Int(row.source)])
            }
            if row.syncIdentifier.isEmpty || batch.syncIdentifiersChecked {
                chunk.append(index)
                continue
            }
            // A sync identifier needs a lookup: write what is pending first, then this row on its own.
            try await insertChunk(chunk, plan, connection, seq: &seq, result: &result)
            chunk.removeAll(keepingCapacity: true)
            let syncID = batch.text(row.syncIdentifier) ?? ""
            let sourceID = sourceIDs[Int(row.source)]
            let existing = try await connection.query("""
                SELECT seq, sync_version FROM samples WHERE sync_id = \(syncID) AND source_id = \(sourceID) LIMIT 1
                """, logger: logger).decode((Int64, Int64?).self)
            var found: (Int64, Int64?)?
            for try await entry in existing { found = entry }
            if let (existingSeq, existingVersion) = found {
                if (existingVersion ?? 0) >= (row.syncVersion == .min ? 0 : row.syncVersion) {
                    result.ignored += 1
                    continue
                }
                seq += 1
                try await tombstone(sampleSeq: existingSeq, newSeq: seq, connection)
                result.replaced += 1
                result.inserted -= 1  // counted as inserted below; a replacement is not a new sample
            }
            try await insertOne(index, plan, connection, seq: &seq, result: &result)
        }
        try await insertChunk(chunk, plan, connection, seq: &seq, result: &result)
        if !typeColumn.isEmpty {
            try await connection.query("""
                INSERT INTO type_sources (type_id, source_id)
                SELECT * FROM unnest(\(typeColumn)::bigint[], \(sourceColumn)::bigint[]) ON CONFLICT DO NOTHING
                """, logger: logger)
        }
        var changed = Set<String>()
        guard seq > before else { return (result, changed) }
        // The longest duration per type among the rows inserted now (replaced rows moved to the tombstones).
        let durations = try await connection.query("""
            SELECT type_id, max("end" - start) FROM samples WHERE seq > \(before) GROUP BY type_id
            """, logger: logger).decode((Int64, Double).self)
        var widen: [(Int64, Double)] = []
        for try await (typeID, duration) in durations {
            widen.append((typeID, duration))
            if let index = typeIDs.firstIndex(of: typeID) { changed.insert(tables.types[index]) }
        }
        for (typeID, duration) in widen {
            try await connection.query("""
                UPDATE types SET max_duration = \(duration) WHERE id = \(typeID) AND max_duration < \(duration)
                """, logger: logger)
        }
        return (result, changed)
    }

    /// Moves a stored sample to the tombstones under the change number `newSeq`.
    func tombstone(sampleSeq: Int64, newSeq: Int64, _ connection: PostgresConnection) async throws {
        let now = Date().timeIntervalSince1970
        try await connection.query("""
            WITH old AS (DELETE FROM samples WHERE seq = \(sampleSeq) RETURNING uuid, type_id, sync_id, sync_version)
            INSERT INTO tombstones (seq, uuid, type_id, sync_id, sync_version, deleted)
            SELECT \(newSeq), uuid, type_id, sync_id, sync_version, \(now) FROM old
            """, logger: logger)
    }

    /// One row, its own statement: ignored (and its change number taken back) when its UUID is stored.
    func insertOne(_ index: Int, _ plan: RowPlan, _ connection: PostgresConnection, seq: inout Int64,
                   result: inout SaveResult) async throws {
        let c = plan.columns(index)
        let next = seq + 1
        let inserted = try await count("""
            INSERT INTO samples (seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name,
                                 source_version, sync_id, sync_version, metadata)
            VALUES (\(next), \(c.uuid), \(c.typeID), \(c.sourceID), \(c.start), \(c.end), \(c.value), \(c.unitID),
                    \(c.created), \(c.utcOffset), \(c.timeZone), \(c.sourceVersion), \(c.syncID), \(c.syncVersion),
                    \(c.metadata))
            ON CONFLICT (uuid) DO NOTHING RETURNING seq
            """, connection)
        if inserted == 1 {
            seq = next
            result.inserted += 1
        } else {
            result.ignored += 1
        }
    }

    /// Rows without a lookup: a few one by one, more through `COPY` into the connection's staging table and one
    /// `INSERT … SELECT` that keeps the first row of each UUID not stored yet, numbered in batch order.
    func insertChunk(_ chunk: [Int], _ plan: RowPlan, _ connection: PostgresConnection, seq: inout Int64,
                     result: inout SaveResult) async throws {
        if chunk.isEmpty { return }
        if chunk.count <= 4 {
            for index in chunk { try await insertOne(index, plan, connection, seq: &seq, result: &result) }
            return
        }
        try await connection.query("""
            CREATE TEMP TABLE IF NOT EXISTS hb_stage (
                ord bigint, uuid uuid, type_id bigint, source_id bigint, start double precision, "end" double precision,
                value double precision, unit_id bigint, created double precision, tz_offset bigint, tz_name text,
                source_version text, sync_id text, sync_version bigint, metadata text
            ) ON COMMIT DELETE ROWS
            """, logger: logger)
        try await connection.query("TRUNCATE hb_stage", logger: logger)
        try await connection.copyFrom(table: "hb_stage", logger: logger) { writer in
            var buffer = ByteBufferAllocator().buffer(capacity: 1 << 20)
            for (position, index) in chunk.enumerated() {
                plan.appendCopyLine(index, ord: Int64(position), to: &buffer)
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        let base = seq
        let inserted = try await scalar("""
            WITH fresh AS (
                SELECT DISTINCT ON (s.uuid) s.* FROM hb_stage s
                WHERE NOT EXISTS (SELECT 1 FROM samples x WHERE x.uuid = s.uuid)
                ORDER BY s.uuid, s.ord
            ), numbered AS (
                SELECT fresh.*, row_number() OVER (ORDER BY ord) AS rn FROM fresh
            ), ins AS (
                INSERT INTO samples (seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset,
                                     tz_name, source_version, sync_id, sync_version, metadata)
                SELECT \(base) + rn, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset,
                       tz_name, source_version, sync_id, sync_version, metadata FROM numbered
                RETURNING 1
            )
            SELECT count(*) FROM ins
            """, as: Int64.self, connection) ?? 0
        seq += inserted
        result.inserted += Int(inserted)
        result.ignored += chunk.count - Int(inserted)
    }


    // MARK: Workouts, correlations, documents, routes

    @discardableResult
    public func save(workouts: [HealthWorkout]) async throws -> SaveResult {
        if workouts.isEmpty { return SaveResult() }
        let (result, anchor) = try await write { connection, context -> (SaveResult, Int64) in
            let base = try await self.lockSequence(connection)
            var seq = base
            let result = try await self.insert(workouts: workouts, connection, context, seq: &seq)
            try await self.setSequence(seq, from: base, connection)
            if result.inserted > 0 { try await self.announce(types: ["workout"], anchor: seq, connection) }
            return (result, seq)
        }
        if result.inserted > 0 { notify(types: ["workout"], anchor: anchor) }
        return result
    }

    func insert(workouts: [HealthWorkout], _ connection: PostgresConnection, _ context: WriteContext,
                seq: inout Int64) async throws -> SaveResult {
        var result = SaveResult()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        for workout in workouts {
            guard workout.start <= workout.end else {
                throw HealthError(.invalidArgument, "workout \(workout.uuid) ends before it starts; nothing was saved")
            }
            let sourceID = try await internSource(workout.source, connection, context)
            let detail = PostgresWorkoutDetail(totalDistance: workout.totalDistance,
                                               totalEnergyBurned: workout.totalEnergyBurned, events: workout.events,
                                               statistics: workout.statistics, activities: workout.activities,
                                               routes: workout.routes, sourceVersion: workout.source.version)
            let detailJSON = String(decoding: try encoder.encode(detail), as: UTF8.self)
            let next = seq + 1
            let start = workout.start.timeIntervalSince1970, end = workout.end.timeIntervalSince1970
            let created = workout.creationDate?.timeIntervalSince1970, offset = workout.utcOffset.map(Int64.init)
            let metadata = MetadataCoding.encode(workout.metadata)
            let inserted = try await count("""
                INSERT INTO workouts (seq, uuid, activity, source_id, start, "end", duration, created, tz_offset, tz_name,
                                      metadata, detail)
                VALUES (\(next), \(workout.uuid), \(workout.activityType), \(sourceID), \(start), \(end),
                        \(workout.duration), \(created), \(offset), \(workout.timeZone), \(metadata), \(detailJSON))
                ON CONFLICT (uuid) DO NOTHING RETURNING seq
                """, connection)
            if inserted == 1 { seq = next; result.inserted += 1 } else { result.ignored += 1 }
        }
        return result
    }

    @discardableResult
    public func save(correlations: [HealthCorrelation]) async throws -> SaveResult {
        if correlations.isEmpty { return SaveResult() }
        let (result, types, anchor) = try await write { connection, context -> (SaveResult, Set<String>, Int64) in
            let base = try await self.lockSequence(connection)
            var seq = base
            let (result, types) = try await self.insert(correlations: correlations, connection, context, seq: &seq)
            try await self.setSequence(seq, from: base, connection)
            try await self.announce(types: types, anchor: seq, connection)
            return (result, types, seq)
        }
        notify(types: types, anchor: anchor)
        return result
    }

    func insert(correlations: [HealthCorrelation], _ connection: PostgresConnection, _ context: WriteContext,
                seq: inout Int64) async throws -> (SaveResult, Set<String>) {
        var result = SaveResult()
        var types = Set<String>()
        for correlation in correlations {
            let typeID = try await internType(correlation.type, connection, context)
            let sourceID = try await internSource(correlation.source, connection, context)
            let members = "[" + correlation.members.map { "\"\($0.uuidString)\"" }.joined(separator: ",") + "]"
            let next = seq + 1
            let start = correlation.start.timeIntervalSince1970, end = correlation.end.timeIntervalSince1970
            let created = correlation.creationDate?.timeIntervalSince1970
            let metadata = MetadataCoding.encode(correlation.metadata)
            let inserted = try await count("""
                INSERT INTO correlations (seq, uuid, type_id, source_id, start, "end", created, metadata, members)
                VALUES (\(next), \(correlation.uuid), \(typeID), \(sourceID), \(start), \(end), \(created), \(metadata),
                        \(members))
                ON CONFLICT (uuid) DO NOTHING RETURNING seq
                """, connection)
            if inserted == 1 {
                seq = next
                result.inserted += 1
                types.insert(correlation.type)
            } else {
                result.ignored += 1
            }
        }
        return (result, types)
    }

    @discardableResult
    public func save(documents: [HealthDocument]) async throws -> SaveResult {
        if documents.isEmpty { return SaveResult() }
        return try await write { connection, _ in
            var result = SaveResult()
            for document in documents {
                let start = document.start?.timeIntervalSince1970, end = document.end?.timeIntervalSince1970
                let kind = document.kind.rawValue
                let inserted = try await self.count("""
                    INSERT INTO documents (uuid, kind, start, "end", source_name, json)
                    VALUES (\(document.uuid), \(kind), \(start), \(end), \(document.sourceName), \(document.json))
                    ON CONFLICT (uuid) DO NOTHING RETURNING id
                    """, connection)
                if inserted == 1 { result.inserted += 1 } else { result.ignored += 1 }
            }
            return result
        }
    }

    public func saveRoute(_ route: UUID, points: [RoutePoint]) async throws {
        try await saveRoute(route, columns: RoutePointColumns(points))
    }

    /// Stores the route's points packed in one row (``RoutePointColumns/packed()``), replacing any earlier ones.
    public func saveRoute(_ route: UUID, columns: RoutePointColumns) async throws {
        let packed = columns.packed(), count = Int64(columns.count)
        try await write { connection, _ in try await self.insert(route: route, count: count, packed: packed, connection) }
    }

    func insert(route: UUID, count: Int64, packed: Data, _ connection: PostgresConnection) async throws {
        try await connection.query("""
            INSERT INTO routes (uuid, count, points) VALUES (\(route), \(count), \(packed))
            ON CONFLICT (uuid) DO UPDATE SET count = EXCLUDED.count, points = EXCLUDED.points
            """, logger: logger)
    }

    // MARK: Transactions

    /// Deletions, samples, correlations, workouts and routes in one PostgreSQL transaction: all or nothing, one
    /// change notification.
    @discardableResult
    public func commit(_ transaction: StoreTransaction) async throws -> TransactionResult {
        try await commit(deletions: transaction.deletions, batch: SampleBatch(transaction.samples),
                         correlations: transaction.correlations, workouts: transaction.workouts,
                         routes: transaction.routes.map { ($0.key, Int64($0.value.count), RoutePointColumns($0.value).packed()) })
    }

    /// The same for a packed batch and route columns (the page-cache hint means nothing to PostgreSQL).
    @discardableResult
    public func commit(_ transaction: BulkTransaction) async throws -> TransactionResult {
        try await commit(deletions: transaction.deletions, batch: transaction.batch,
                         correlations: transaction.correlations, workouts: transaction.workouts,
                         routes: transaction.routes.map { ($0.key, Int64($0.value.count), $0.value.packed()) })
    }

    func commit(deletions: [UUID], batch: SampleBatch, correlations: [HealthCorrelation], workouts: [HealthWorkout],
                routes: [(UUID, Int64, Data)]) async throws -> TransactionResult {
        let (result, types) = try await write { connection, context -> (TransactionResult, Set<String>) in
            let base = try await self.lockSequence(connection)
            var seq = base
            var types = Set<String>()
            let (deleted, deletedTypes) = try await self.deleteObjects(deletions, connection, context, seq: &seq)
            types.formUnion(deletedTypes)
            var saved = SaveResult()
            if !batch.isEmpty {
                let (result, sampleTypes) = try await self.insert(batch, connection, context, seq: &seq)
                saved = saved + result
                types.formUnion(sampleTypes)
            }
            if !correlations.isEmpty {
                let (result, correlationTypes) = try await self.insert(correlations: correlations, connection, context,
                                                                       seq: &seq)
                saved = saved + result
                types.formUnion(correlationTypes)
            }
            if !workouts.isEmpty {
                let result = try await self.insert(workouts: workouts, connection, context, seq: &seq)
                saved = saved + result
                if result.inserted > 0 { types.insert("workout") }
            }
            for (route, count, packed) in routes {
                try await self.insert(route: route, count: count, packed: packed, connection)
            }
            try await self.setSequence(seq, from: base, connection)
            try await self.announce(types: types, anchor: seq, connection)
            return (TransactionResult(saved: saved, deleted: deleted, anchor: seq), types)
        }
        notify(types: types, anchor: result.anchor)
        return result
    }
}

/// The parts of a workout kept as one JSON column (the same JSON as the SQLite store's).
struct PostgresWorkoutDetail: Codable {
    var totalDistance: HealthWorkout.Measurement?
    var totalEnergyBurned: HealthWorkout.Measurement?
    var events: [HealthWorkout.Event]
    var statistics: [HealthWorkout.Statistic]
    var activities: [HealthWorkout.Activity]
    var routes: [HealthWorkout.Route]
    var sourceVersion: String?
}
