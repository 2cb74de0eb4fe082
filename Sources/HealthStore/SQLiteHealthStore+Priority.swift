import Foundation
import GRDB
import HealthModel

extension SQLiteHealthStore {
    public func sources(type: String?) async throws -> [SourceSummary] {
        if let type { return try await priority(type: type) }
        return try await read { db in
            let table = try self.internTable(db, needing: { _ in false })
            var counts: [Int64: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT source_id, count(*) FROM samples GROUP BY source_id") {
                counts[row[0]] = row[1]
            }
            return table.sources.map { id, source in
                SourceSummary(id: id, source: source, category: source.category, count: counts[id] ?? 0)
            }.sorted(by: SourceSummary.defaultOrder)
        }
    }

    public func priority(type: String, counts withCounts: Bool) async throws -> [SourceSummary] {
        try await read { db in
            guard let typeID = try self.typeID(type, db) else { return [] }
            var counts: [Int64: Int] = [:]
            if withCounts {
                for row in try Row.fetchAll(db, sql: "SELECT source_id, count(*) FROM samples WHERE type_id = ? GROUP BY source_id",
                                            arguments: [typeID]) {
                    counts[row[0]] = row[1]
                }
            }
            return try self.orderedSources(typeID: typeID, db).map { entry in
                var summary = entry
                summary.count = counts[entry.id] ?? 0
                return summary
            }
        }
    }

    /// The sources of a type in priority order (no counts): stored user ranks first, then the default order
    /// (user-entered → Apple Watch → iPhone → other devices → apps, then by name).
    func orderedSources(typeID: Int64, _ db: Database) throws -> [SourceSummary] {
        let ids = try Int64.fetchAll(db, sql: "SELECT source_id FROM type_sources WHERE type_id = ?", arguments: [typeID])
        let table = try internTable(db) { t in ids.allSatisfy { t.sources[$0] != nil } }
        var userRanks: [Int64: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT source_id, rank FROM source_priority WHERE type_id = ?",
                                    arguments: [typeID]) {
            userRanks[row[0]] = row[1]
        }
        let entries = ids.compactMap { id -> SourceSummary? in
            guard let source = table.sources[id] else { return nil }
            return SourceSummary(id: id, source: source, category: source.category, count: 0,
                                 userOrdered: userRanks[id] != nil)
        }
        return SourceSummary.ranked(entries, userRanks: userRanks)
    }

    /// Source number → rank (0 highest) for `type`: the ranks ``priority(type:counts:)`` gives, by interned id.
    func sourceRanks(type: String) async throws -> [Int64: Int] {
        try await read { db in
            guard let typeID = try self.typeID(type, db) else { return [:] }
            var ranks: [Int64: Int] = [:]
            for entry in try self.orderedSources(typeID: typeID, db) { ranks[entry.id] = entry.rank }
            return ranks
        }
    }

    public func setPriority(type: String, sources names: [String]) async throws {
        try await write { db in
            guard let typeID = try self.typeID(type, db) else {
                throw HealthError(.invalidType, "no samples of \(type) in the store; nothing to order")
            }
            let ordered = try self.orderedSources(typeID: typeID, db)
            var ranks: [Int64] = []
            for name in names {
                let lowered = name.lowercased()
                let matches = ordered.filter {
                    $0.source.name.lowercased() == lowered || $0.source.key.lowercased() == lowered || String($0.id) == name
                }
                guard !matches.isEmpty else {
                    let known = ordered.map { $0.source.name }.joined(separator: ", ")
                    throw HealthError(.invalidArgument, "no source named '\(name)' has \(type) samples; known: \(known)")
                }
                for match in matches where !ranks.contains(match.id) { ranks.append(match.id) }
            }
            try db.execute(sql: "DELETE FROM source_priority WHERE type_id = ?", arguments: [typeID])
            for (rank, sourceID) in ranks.enumerated() {
                try db.execute(sql: "INSERT INTO source_priority (type_id, source_id, rank) VALUES (?, ?, ?)",
                               arguments: [typeID, sourceID, rank])
            }
        }
    }

    public func resetPriority(type: String) async throws {
        try await write { db in
            guard let typeID = try self.typeID(type, db) else { return }
            try db.execute(sql: "DELETE FROM source_priority WHERE type_id = ?", arguments: [typeID])
        }
    }
}
