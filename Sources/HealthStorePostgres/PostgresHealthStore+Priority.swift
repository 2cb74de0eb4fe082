import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO

extension PostgresHealthStore {
    public func sources(type: String?) async throws -> [SourceSummary] {
        if let type { return try await priority(type: type) }
        return try await withConnection { connection in
            let table = try await self.internTable(connection, needing: { _ in false })
            var counts: [Int64: Int] = [:]
            for try await (id, count) in try await connection.query(
                "SELECT source_id, count(*) FROM samples GROUP BY source_id", logger: self.logger)
                .decode((Int64, Int64).self) {
                counts[id] = Int(count)
            }
            return table.sources.map { id, source in
                SourceSummary(id: id, source: source, category: source.category, count: counts[id] ?? 0)
            }.sorted(by: SourceSummary.defaultOrder)
        }
    }

    public func priority(type: String, counts withCounts: Bool) async throws -> [SourceSummary] {
        try await transaction(readOnly: true) { connection in
            guard let typeID = try await self.typeID(type, connection) else { return [] }
            var counts: [Int64: Int] = [:]
            if withCounts {
                for try await (id, count) in try await connection.query(
                    "SELECT source_id, count(*) FROM samples WHERE type_id = \(typeID) GROUP BY source_id",
                    logger: self.logger).decode((Int64, Int64).self) {
                    counts[id] = Int(count)
                }
            }
            return try await self.orderedSources(typeID: typeID, connection).map { entry in
                var summary = entry
                summary.count = counts[entry.id] ?? 0
                return summary
            }
        }
    }

    /// The sources of a type in priority order (no counts): stored user ranks first, then the default order
    /// (user-entered → Apple Watch → iPhone → other devices → apps, then by name), as the SQLite store orders them.
    func orderedSources(typeID: Int64, _ connection: PostgresConnection) async throws -> [SourceSummary] {
        var ids: [Int64] = []
        for try await id in try await connection.query(
            "SELECT source_id FROM type_sources WHERE type_id = \(typeID)", logger: logger).decode(Int64.self) {
            ids.append(id)
        }
        let table = try await internTable(connection) { t in ids.allSatisfy { t.sources[$0] != nil } }
        var userRanks: [Int64: Int] = [:]
        for try await (id, rank) in try await connection.query(
            "SELECT source_id, rank FROM source_priority WHERE type_id = \(typeID)", logger: logger)
            .decode((Int64, Int64).self) {
            userRanks[id] = Int(rank)
        }
        let entries = ids.compactMap { id -> SourceSummary? in
            guard let source = table.sources[id] else { return nil }
            return SourceSummary(id: id, source: source, category: source.category, count: 0,
                                 userOrdered: userRanks[id] != nil)
        }
        return SourceSummary.ranked(entries, userRanks: userRanks)
    }

    public func setPriority(type: String, sources names: [String]) async throws {
        try await write { connection, _ in
            guard let typeID = try await self.typeID(type, connection) else {
                throw HealthError(.invalidType, "no samples of \(type) in the store; nothing to order")
            }
            _ = try await self.lockSequence(connection)
            let ordered = try await self.orderedSources(typeID: typeID, connection)
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
            try await connection.query("DELETE FROM source_priority WHERE type_id = \(typeID)", logger: self.logger)
            if !ranks.isEmpty {
                let positions = ranks.indices.map { Int64($0) }
                try await connection.query("""
                    INSERT INTO source_priority (type_id, source_id, rank)
                    SELECT \(typeID), s, r FROM unnest(\(ranks)::bigint[], \(positions)::bigint[]) AS u(s, r)
                    """, logger: self.logger)
            }
        }
    }

    public func resetPriority(type: String) async throws {
        try await write { connection, _ in
            guard let typeID = try await self.typeID(type, connection) else { return }
            _ = try await self.lockSequence(connection)
            try await connection.query("DELETE FROM source_priority WHERE type_id = \(typeID)", logger: self.logger)
        }
    }
}
