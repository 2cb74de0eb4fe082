import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO

extension PostgresHealthStore {
    // MARK: Deleting

    @discardableResult
    public func delete(uuids: [UUID]) async throws -> Int {
        if uuids.isEmpty { return 0 }
        let (count, types, anchor) = try await write { connection, context -> (Int, Set<String>, Int64) in
            let base = try await self.lockSequence(connection)
            var seq = base
            let (count, types) = try await self.deleteObjects(uuids, connection, context, seq: &seq)
            try await self.setSequence(seq, from: base, connection)
            try await self.announce(types: types, anchor: seq, connection)
            return (count, types, seq)
        }
        if count > 0 { notify(types: types, anchor: anchor) }
        return count
    }

    /// Deletes samples, workouts and correlations by UUID inside a write, leaving tombstones: (count, types).
    func deleteObjects(_ uuids: [UUID], _ connection: PostgresConnection, _ context: WriteContext,
                       seq: inout Int64) async throws -> (Int, Set<String>) {
        var deleted = 0
        var typeIDs = Set<Int64>()
        var types = Set<String>()
        let now = Date().timeIntervalSince1970
        for uuid in uuids {
            let next = seq + 1
            if let typeID = try await scalar("""
                WITH old AS (DELETE FROM samples WHERE uuid = \(uuid) RETURNING uuid, type_id, sync_id, sync_version)
                INSERT INTO tombstones (seq, uuid, type_id, sync_id, sync_version, deleted)
                SELECT \(next), uuid, type_id, sync_id, sync_version, \(now) FROM old RETURNING type_id
                """, as: Int64.self, connection) {
                seq = next
                typeIDs.insert(typeID)
                deleted += 1
            } else if try await count("DELETE FROM workouts WHERE uuid = \(uuid) RETURNING seq", connection) > 0 {
                let typeID = try await internType("workout", connection, context)
                try await connection.query("""
                    INSERT INTO tombstones (seq, uuid, type_id, deleted) VALUES (\(next), \(uuid), \(typeID), \(now))
                    """, logger: logger)
                seq = next
                types.insert("workout")
                deleted += 1
            } else if let typeID = try await scalar("""
                WITH old AS (DELETE FROM correlations WHERE uuid = \(uuid) RETURNING uuid, type_id)
                INSERT INTO tombstones (seq, uuid, type_id, deleted)
                SELECT \(next), uuid, type_id, \(now) FROM old RETURNING type_id
                """, as: Int64.self, connection) {
                seq = next
                typeIDs.insert(typeID)
                deleted += 1
            }
        }
        if !typeIDs.isEmpty {
            let table = try await internTable(connection) { t in typeIDs.allSatisfy { t.typeNames[$0] != nil } }
            for id in typeIDs {
                if let name = table.typeNames[id] ?? context.pending.withLock({ $0.typeNames[id] }) { types.insert(name) }
            }
        }
        return (deleted, types)
    }

    /// Deletes what the predicate matches in one statement, each sample tombstoned under its own change number in
    /// the order of the samples' change numbers.
    @discardableResult
    public func delete(matching query: SampleQuery) async throws -> Int {
        let (count, anchor) = try await write { connection, _ -> (Int, Int64) in
            guard let typeID = try await self.typeID(query.type, connection) else { return (0, 0) }
            let base = try await self.lockSequence(connection)
            var unpaged = query
            unpaged.cursor = nil
            unpaged.limit = nil
            var builder = SQLBuilder()
            try await self.predicateSQL(unpaged, typeID: typeID, &builder, connection)
            let now = Date().timeIntervalSince1970
            builder.sql = """
                WITH doomed AS (
                    SELECT seq AS old, row_number() OVER (ORDER BY seq) AS rn FROM samples WHERE \(builder.sql)
                ), gone AS (
                    DELETE FROM samples s USING doomed d WHERE s.seq = d.old
                    RETURNING d.rn, s.uuid, s.type_id, s.sync_id, s.sync_version
                ), ins AS (
                    INSERT INTO tombstones (seq, uuid, type_id, sync_id, sync_version, deleted)
                    SELECT \(builder.bind(base)) + rn, uuid, type_id, sync_id, sync_version, \(builder.bind(now)) FROM gone
                    RETURNING 1
                )
                SELECT count(*) FROM ins
                """
            let count = try await self.scalar(builder.query, as: Int64.self, connection) ?? 0
            let seq = base + count
            try await self.setSequence(seq, from: base, connection)
            if count > 0 { try await self.announce(types: [query.type], anchor: seq, connection) }
            return (Int(count), seq)
        }
        if count > 0 { notify(types: [query.type], anchor: anchor) }
        return count
    }

    // MARK: Change feed

    public func currentAnchor() async throws -> Int64 {
        try await withConnection { connection in
            try await self.scalar("SELECT value FROM counters WHERE name = 'seq'", as: Int64.self, connection) ?? 0
        }
    }

    public func changes(since anchor: Int64?, types: [String]?, limit: Int) async throws -> ChangeSet {
        try await transaction(readOnly: true) { connection in
            let from = anchor ?? 0
            let limit = max(1, limit)
            let current = try await self.scalar("SELECT value FROM counters WHERE name = 'seq'", as: Int64.self,
                                                connection) ?? 0
            var typeIDs: [Int64]?
            var wantsWorkouts = true
            if let types {
                var ids: [Int64] = []
                for type in types { if let id = try await self.typeID(type, connection) { ids.append(id) } }
                typeIDs = ids
                wantsWorkouts = types.contains("workout")
            }
            var sampleQuery = SQLBuilder()
            sampleQuery.sql = "SELECT \(sampleColumns) FROM samples WHERE seq > \(sampleQuery.bind(from))"
            if let typeIDs { sampleQuery.sql += " AND type_id = ANY(\(sampleQuery.bind(typeIDs))::bigint[])" }
            sampleQuery.sql += " ORDER BY seq LIMIT \(limit + 1)"
            var sampleRows: [SampleRow] = []
            for try await row in try await connection.query(sampleQuery.query, logger: self.logger).decode(SampleRow.self) {
                sampleRows.append(row)
            }
            var workoutRows: [WorkoutRow] = []
            if wantsWorkouts {
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT \(workoutColumns) FROM workouts WHERE seq > $1 ORDER BY seq LIMIT \(limit + 1)
                    """, binds: { var b = PostgresBindings(); b.append(from); return b }()), logger: self.logger)
                    .decode(WorkoutRow.self) {
                    workoutRows.append(row)
                }
            }
            var tombQuery = SQLBuilder()
            tombQuery.sql = """
                SELECT seq, uuid, type_id, sync_id, sync_version, deleted FROM tombstones WHERE seq > \(tombQuery.bind(from))
                """
            if let typeIDs { tombQuery.sql += " AND type_id = ANY(\(tombQuery.bind(typeIDs))::bigint[])" }
            tombQuery.sql += " ORDER BY seq LIMIT \(limit + 1)"
            var tombRows: [(Int64, UUID, Int64, String?, Int64?, Double)] = []
            for try await row in try await connection.query(tombQuery.query, logger: self.logger)
                .decode((Int64, UUID, Int64, String?, Int64?, Double).self) {
                tombRows.append(row)
            }
            // Merge the three lists by change number and keep the first `limit` changes.
            var seqs = sampleRows.map(\.0) + workoutRows.map(\.0) + tombRows.map(\.0)
            seqs.sort()
            let hasMore = seqs.count > limit
            let cut: Int64 = hasMore ? seqs[limit - 1] : current
            let table = try await self.internTable(connection) { t in
                sampleRows.allSatisfy {
                    t.sources[$0.3] != nil && t.typeNames[$0.2] != nil && ($0.7.map { t.unitNames[$0] != nil } ?? true)
                }
                    && workoutRows.allSatisfy { t.sources[$0.3] != nil }
                    && tombRows.allSatisfy { t.typeNames[$0.2] != nil }
            }
            let added = sampleRows.filter { $0.0 <= cut }.map { row in
                self.decodeSample(row, type: table.typeNames[row.2] ?? "unknown", table)
            }
            let addedWorkouts = workoutRows.filter { $0.0 <= cut }.compactMap { self.decodeWorkout($0, table) }
            let deleted = tombRows.filter { $0.0 <= cut }.map { row in
                Tombstone(uuid: row.1, type: table.typeNames[row.2] ?? "unknown", syncIdentifier: row.3,
                          syncVersion: row.4.map { Int(clamping: $0) }, deletedAt: Date(timeIntervalSince1970: row.5),
                          anchor: row.0)
            }
            return ChangeSet(added: added, addedWorkouts: addedWorkouts, deleted: deleted, anchor: cut, hasMore: hasMore)
        }
    }

    /// The types changed after `anchor` (samples, tombstones, workouts): what a listener announces when it could not
    /// hear a commit (a reconnect, a payload too long for a notification).
    func changedTypes(since anchor: Int64) async throws -> (Set<String>, Int64) {
        try await transaction(readOnly: true) { connection in
            let current = try await self.scalar("SELECT value FROM counters WHERE name = 'seq'", as: Int64.self,
                                                connection) ?? 0
            guard current > anchor else { return ([], current) }
            var types = Set<String>()
            for try await name in try await connection.query("""
                SELECT DISTINCT t.identifier FROM types t JOIN
                (SELECT type_id FROM samples WHERE seq > \(anchor) UNION SELECT type_id FROM tombstones WHERE seq > \(anchor)
                 UNION SELECT type_id FROM correlations WHERE seq > \(anchor)) c
                ON c.type_id = t.id
                """, logger: self.logger).decode(String.self) {
                types.insert(name)
            }
            if try await self.scalar("SELECT EXISTS (SELECT 1 FROM workouts WHERE seq > \(anchor))", as: Bool.self,
                                     connection) == true {
                types.insert("workout")
            }
            return (types, current)
        }
    }
}
