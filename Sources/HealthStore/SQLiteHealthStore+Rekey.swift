import Foundation
import GRDB
import HealthModel

extension SQLiteHealthStore {
    /// The settings key recording the natural-key version the store's imported samples are keyed by.
    static let exportKeyVersionSetting = "export_natural_key_version"

    /// Rekeys the samples an Apple Health export import stored under the version-1 natural key (type, source, start,
    /// end, value, unit) to the version-2 key, which adds the creation date
    /// (``HealthSample/exportNaturalKeyVersion``), so that re-importing the same export into an older store finds
    /// every sample again instead of adding a second copy of each.
    ///
    /// Only rows whose UUID *is* their version-1 natural UUID, that have a creation date and whose source has no
    /// bundle identifier (the sources of an export) are rekeyed: UUIDs a client chose, sync-identifier UUIDs and the
    /// objects HealthBridge's own principals wrote keep theirs. A rekeyed sample is announced on the change feed like
    /// a replacement: a tombstone for the old UUID, the sample under a new change number. Correlations listing a
    /// rekeyed sample as a member are updated. Runs once, as the `v3-export-key-creation` migration.
    ///
    /// ```swift
    /// migrator.registerMigration("v3-export-key-creation") { db in try SQLiteHealthStore.rekeyExportSamples(db) }
    /// ```
    static func rekeyExportSamples(_ db: Database, chunk: Int = 10_000) throws {
        var seq = try Int64.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'seq'") ?? 0
        let lastOld = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM samples") ?? 0
        let select = try db.makeStatement(sql: """
            SELECT s.seq, s.uuid, t.identifier, src.key, s.start, s."end", s.value, u.unit, s.created, s.type_id
            FROM samples s
            JOIN types t ON t.id = s.type_id
            JOIN sources src ON src.id = s.source_id
            LEFT JOIN units u ON u.id = s.unit_id
            WHERE s.seq > ? AND s.seq <= ? AND s.created IS NOT NULL AND src.bundle_id IS NULL
            ORDER BY s.seq LIMIT ?
            """)
        let tombstone = try db.makeStatement(sql: """
            INSERT INTO tombstones (seq, uuid, type_id, sync_id, sync_version, deleted) VALUES (?, ?, ?, NULL, NULL, ?)
            """)
        let move = try db.makeStatement(sql: "UPDATE OR IGNORE samples SET seq = ?, uuid = ? WHERE seq = ?")
        var renamed: [String: String] = [:]
        var prefixes: [String: StableHasher] = [:]
        let now = Date().timeIntervalSince1970
        var after: Int64 = 0
        while lastOld > 0 {
            let rows = try Row.fetchAll(select, arguments: [after, lastOld, chunk])
            guard let last = rows.last else { break }
            after = last[0]
            for row in rows {
                guard let stored = UUID(blob: row[1]), let created: Double = row[8],
                      let value = storedValue(number: row[6], unit: row[7]) else { continue }
                let type: String = row[2], key: String = row[3]
                let prefixKey = type + "\u{1E}" + key
                let prefix = prefixes[prefixKey] ?? HealthSample.naturalUUIDPrefix(type: type, sourceKey: key)
                prefixes[prefixKey] = prefix
                let start = Date(timeIntervalSince1970: row[4]), end = Date(timeIntervalSince1970: row[5])
                guard HealthSample.naturalUUID(prefix: prefix, start: start, end: end, value: value) == stored else { continue }
                let rekeyed = HealthSample.naturalUUID(prefix: prefix, start: start, end: end, value: value, created: created)
                guard rekeyed != stored else { continue }
                let oldSeq: Int64 = row[0], typeID: Int64 = row[9]
                try move.execute(arguments: [seq + 2, rekeyed.blob, oldSeq])
                guard db.changesCount == 1 else { continue }
                try tombstone.execute(arguments: [seq + 1, stored.blob, typeID, now])
                seq += 2
                renamed[stored.uuidString] = rekeyed.uuidString
            }
        }
        try db.execute(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                       arguments: [exportKeyVersionSetting, String(HealthSample.exportNaturalKeyVersion)])
        guard !renamed.isEmpty else { return }
        try db.execute(sql: "UPDATE counters SET value = ? WHERE name = 'seq' AND value < ?", arguments: [seq, seq])
        // Correlations name their members by UUID (a JSON array of strings).
        let correlations = try Row.fetchAll(db, sql: "SELECT seq, members FROM correlations")
        for row in correlations {
            let members: String = row[1]
            guard let list = (try? JSONSerialization.jsonObject(with: Data(members.utf8))) as? [String] else { continue }
            let updated = list.map { renamed[$0.uppercased()] ?? $0 }
            guard updated != list else { continue }
            let text = "[" + updated.map { "\"\($0)\"" }.joined(separator: ",") + "]"
            try db.execute(sql: "UPDATE correlations SET members = ? WHERE seq = ?", arguments: [text, row[0] as Int64])
        }
    }

    /// A stored sample's value as the importer hashed it: a quantity (value and unit), a category (an integer value,
    /// no unit) or none; nil for a category value that is not an integer.
    static func storedValue(number: DatabaseValue, unit: String?) -> SampleValue? {
        if number.isNull { return SampleValue.none }
        if let unit, let value = Double.fromDatabaseValue(number) { return .quantity(value, unit: unit) }
        guard let raw = Int64.fromDatabaseValue(number), let category = Int(exactly: raw) else { return nil }
        return .category(category)
    }
}

extension SQLiteHealthStore {
    /// For tests of the migration: turns this store back into one written before natural key version 2 — every
    /// export sample under its version-1 UUID (of entries equal but for their creation date, only the first is
    /// kept, as version 1 did) and the `v3-export-key-creation` migration marked as not applied, so that the next
    /// opening of the file runs it again.
    ///
    /// ```swift
    /// try await store.downgradeToExportKeyVersion1()   // then open the file again: the migration rekeys it
    /// ```
    func downgradeToExportKeyVersion1() async throws {
        try await write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT s.seq, s.uuid, t.identifier, src.key, s.start, s."end", s.value, u.unit, s.created
                FROM samples s JOIN types t ON t.id = s.type_id JOIN sources src ON src.id = s.source_id
                LEFT JOIN units u ON u.id = s.unit_id
                WHERE s.created IS NOT NULL AND src.bundle_id IS NULL ORDER BY s.seq
                """)
            for row in rows {
                guard let value = Self.storedValue(number: row[6], unit: row[7]) else { continue }
                let prefix = HealthSample.naturalUUIDPrefix(type: row[2], sourceKey: row[3])
                let start = Date(timeIntervalSince1970: row[4]), end = Date(timeIntervalSince1970: row[5])
                let old = HealthSample.naturalUUID(prefix: prefix, start: start, end: end, value: value)
                let seq: Int64 = row[0]
                try db.execute(sql: "UPDATE OR IGNORE samples SET uuid = ? WHERE seq = ?", arguments: [old.blob, seq])
                if db.changesCount == 0 {
                    try db.execute(sql: "DELETE FROM samples WHERE seq = ?", arguments: [seq])
                }
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3-export-key-creation'")
            try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [Self.exportKeyVersionSetting])
        }
    }
}
