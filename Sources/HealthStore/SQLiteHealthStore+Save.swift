import Foundation
import GRDB
import GRDBSQLite
import HealthModel

extension SQLiteHealthStore {
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
        try await saveRoute(route, columns: RoutePointColumns(points))
    }

    /// Stores the route's points packed in one row (``RoutePointColumns/packed()``), replacing any earlier ones.
    public func saveRoute(_ route: UUID, columns: RoutePointColumns) async throws {
        let packed = columns.packed()
        let count = columns.count
        try await write { db in try self.insert(route: route, count: count, packed: packed, db) }
    }

    func insert(route: UUID, count: Int, packed: Data, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO routes (uuid, count, points) VALUES (?, ?, ?)")
            .execute(arguments: [route.blob, count, packed])
    }
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
