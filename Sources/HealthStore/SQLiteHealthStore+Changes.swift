import Foundation
import GRDB
import HealthModel
import Synchronization

/// Change-feed subscribers and the poller that notices commits made by other processes.
struct ObserverTable: Sendable {
    var continuations: [UUID: AsyncStream<ChangeNotification>.Continuation] = [:]
    /// The highest anchor already announced.
    var announced: Int64 = -1
    var poller: Task<Void, Never>? = nil
}

extension SQLiteHealthStore {
    @discardableResult
    public func delete(uuids: [UUID]) async throws -> Int {
        if uuids.isEmpty { return 0 }
        let (count, types, anchor) = try await write { db in try self.deleteObjects(uuids, db) }
        if count > 0 { notify(types: types, anchor: anchor) }
        return count
    }

    /// Deletes samples, workouts and correlations by UUID inside a write, leaving tombstones: (count, types, anchor).
    func deleteObjects(_ uuids: [UUID], _ db: Database) throws -> (Int, Set<String>, Int64) {
        var seq = try self.currentSequence(db)
        var count = 0
        var types = Set<String>()
        let table = try self.internTable(db, needing: { _ in false })
        for uuid in uuids {
            if let row = try Row.fetchOne(db, sql: "SELECT seq, type_id FROM samples WHERE uuid = ?",
                                          arguments: [uuid.blob]) {
                seq += 1
                try self.tombstone(sampleSeq: row[0], newSeq: seq, db)
                if let name = table.typeNames[row[1]] { types.insert(name) }
                count += 1
            } else if let workoutSeq = try Int64.fetchOne(db, sql: "SELECT seq FROM workouts WHERE uuid = ?",
                                                          arguments: [uuid.blob]) {
                seq += 1
                let typeID = try self.internType("workout", db)
                try db.execute(sql: """
                    INSERT INTO tombstones (seq, uuid, type_id, deleted) VALUES (?, ?, ?, ?)
                    """, arguments: [seq, uuid.blob, typeID, Date().timeIntervalSince1970])
                try db.execute(sql: "DELETE FROM workouts WHERE seq = ?", arguments: [workoutSeq])
                types.insert("workout")
                count += 1
            } else if let row = try Row.fetchOne(db, sql: "SELECT seq, type_id FROM correlations WHERE uuid = ?",
                                                 arguments: [uuid.blob]) {
                seq += 1
                try db.execute(sql: """
                    INSERT INTO tombstones (seq, uuid, type_id, deleted) VALUES (?, ?, ?, ?)
                    """, arguments: [seq, uuid.blob, row[1] as Int64, Date().timeIntervalSince1970])
                try db.execute(sql: "DELETE FROM correlations WHERE seq = ?", arguments: [row[0] as Int64])
                if let name = table.typeNames[row[1]] { types.insert(name) }
                count += 1
            }
        }
        try self.setSequence(seq, db)
        return (count, types, seq)
    }

    @discardableResult
    public func delete(matching query: SampleQuery) async throws -> Int {
        let (count, anchor) = try await write { db -> (Int, Int64) in
            guard let typeID = try self.typeID(query.type, db) else { return (0, 0) }
            var unpaged = query
            unpaged.cursor = nil
            unpaged.limit = nil
            let (predicate, arguments) = try self.predicateSQL(unpaged, typeID: typeID, db)
            let seqs = try Int64.fetchAll(db, sql: "SELECT seq FROM samples WHERE \(predicate) ORDER BY seq",
                                          arguments: arguments)
            var seq = try self.currentSequence(db)
            for sampleSeq in seqs {
                seq += 1
                try self.tombstone(sampleSeq: sampleSeq, newSeq: seq, db)
            }
            try self.setSequence(seq, db)
            return (seqs.count, seq)
        }
        if count > 0 { notify(types: [query.type], anchor: anchor) }
        return count
    }

    public func currentAnchor() async throws -> Int64 {
        try await read { db in try self.currentSequence(db) }
    }

    public func changes(since anchor: Int64?, types: [String]?, limit: Int) async throws -> ChangeSet {
        try await read { db in
            let from = anchor ?? 0
            let limit = max(1, limit)
            let current = try self.currentSequence(db)
            var typeFilter = ""
            var wantsWorkouts = true
            if let types {
                var ids: [Int64] = []
                for type in types { if let id = try self.typeID(type, db) { ids.append(id) } }
                typeFilter = " AND type_id IN (\(ids.map { String($0) }.joined(separator: ",")))"
                wantsWorkouts = types.contains("workout")
                if ids.isEmpty { typeFilter = " AND 0" }
            }
            let sampleRows = try Row.fetchAll(db, sql: """
                SELECT seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name,
                       source_version, metadata FROM samples WHERE seq > ?\(typeFilter) ORDER BY seq LIMIT ?
                """, arguments: [from, limit + 1])
            let workoutRows = wantsWorkouts
                ? try Row.fetchAll(db, sql: "SELECT * FROM workouts WHERE seq > ? ORDER BY seq LIMIT ?",
                                   arguments: [from, limit + 1])
                : []
            let tombRows = try Row.fetchAll(db, sql: """
                SELECT seq, uuid, type_id, sync_id, sync_version, deleted FROM tombstones
                WHERE seq > ?\(typeFilter) ORDER BY seq LIMIT ?
                """, arguments: [from, limit + 1])
            // Merge the three lists by sequence and keep the first `limit` changes.
            var seqs = sampleRows.map { $0[0] as Int64 } + workoutRows.map { $0["seq"] as Int64 }
                + tombRows.map { $0[0] as Int64 }
            seqs.sort()
            let hasMore = seqs.count > limit
            let cut: Int64 = hasMore ? seqs[limit - 1] : current
            let table = try self.internTable(db) { t in
                sampleRows.allSatisfy {
                    t.sources[$0[3]] != nil && t.typeNames[$0[2]] != nil
                        && (($0[7] as Int64?).map { t.unitNames[$0] != nil } ?? true)
                }
                    && workoutRows.allSatisfy { t.sources[$0["source_id"]] != nil }
                    && tombRows.allSatisfy { t.typeNames[$0[2]] != nil }
            }
            let added = sampleRows.filter { ($0[0] as Int64) <= cut }.map { row in
                self.decodeSample(row, type: table.typeNames[row[2]] ?? "unknown", table)
            }
            let addedWorkouts = workoutRows.filter { ($0["seq"] as Int64) <= cut }.compactMap {
                self.decodeWorkout($0, table)
            }
            let deleted = tombRows.filter { ($0[0] as Int64) <= cut }.compactMap { row -> Tombstone? in
                guard let uuid = UUID(blob: row[1]) else { return nil }
                return Tombstone(uuid: uuid, type: table.typeNames[row[2]] ?? "unknown", syncIdentifier: row[3],
                                 syncVersion: row[4], deletedAt: Date(timeIntervalSince1970: row[5]), anchor: row[0])
            }
            return ChangeSet(added: added, addedWorkouts: addedWorkouts, deleted: deleted, anchor: cut, hasMore: hasMore)
        }
    }

    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream<ChangeNotification>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { table in
                table.continuations[id] = nil
                if table.continuations.isEmpty {
                    table.poller?.cancel()
                    table.poller = nil
                }
            }
        }
        let announced = (try? readSync { db in try self.currentSequence(db) }) ?? 0
        observers.withLock { table in
            table.continuations[id] = continuation
            table.announced = max(table.announced, announced)
            if table.poller == nil, case .file = location {
                table.poller = Task { [weak self] in await self?.pollForeignCommits() }
            }
        }
        return stream
    }

    /// Announces commits made by other processes (an import while `serve` runs): checks the change counter
    /// every 200 ms while anyone listens.
    func pollForeignCommits() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(200))
            guard let (current, types) = try? await readOffPool({ db -> (Int64, Set<String>)? in
                let current = try self.currentSequence(db)
                let announced = self.observers.withLock { $0.announced }
                guard current > announced else { return nil }
                let names = try String.fetchAll(db, sql: """
                    SELECT DISTINCT t.identifier FROM types t JOIN
                    (SELECT type_id FROM samples WHERE seq > ?1 UNION SELECT type_id FROM tombstones WHERE seq > ?1) c
                    ON c.type_id = t.id
                    """, arguments: [announced])
                var types = Set(names)
                if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM workouts WHERE seq > ?)",
                                     arguments: [announced]) ?? false {
                    types.insert("workout")
                }
                return (current, types)
            }) ?? nil else { continue }
            notify(types: types, anchor: current)
        }
    }

    /// Tells every subscriber which types changed.
    func notify(types: Set<String>, anchor: Int64) {
        let targets = observers.withLock { table -> [AsyncStream<ChangeNotification>.Continuation] in
            guard anchor > table.announced else { return [] }
            table.announced = anchor
            return Array(table.continuations.values)
        }
        if types.isEmpty { return }
        let notification = ChangeNotification(types: types, anchor: anchor)
        for continuation in targets { continuation.yield(notification) }
    }
}
