import Foundation
import GRDB
import HealthModel

/// In-memory maps of the store's interned strings (types, units, sources) to their small integer IDs.
///
/// Filled lazily; emptied whenever a write fails so that an ID from a rolled-back transaction is never reused.
struct InternTable: Sendable {
    var typeIDs: [String: Int64] = [:]
    var typeNames: [Int64: String] = [:]
    var unitIDs: [String: Int64] = [:]
    var unitNames: [Int64: String] = [:]
    var sourceIDs: [String: Int64] = [:]
    var sources: [Int64: HealthSource] = [:]

    mutating func reload(_ db: Database) throws {
        self = InternTable()
        for row in try Row.fetchAll(db, sql: "SELECT id, identifier FROM types") {
            let id: Int64 = row[0], name: String = row[1]
            typeIDs[name] = id
            typeNames[id] = name
        }
        for row in try Row.fetchAll(db, sql: "SELECT id, unit FROM units") {
            let id: Int64 = row[0], name: String = row[1]
            unitIDs[name] = id
            unitNames[id] = name
        }
        for row in try Row.fetchAll(db, sql: "SELECT id, key, name, bundle_id, device FROM sources") {
            let id: Int64 = row[0], key: String = row[1]
            var source = HealthSource(name: row[2], bundleIdentifier: row[3])
            if let json: String = row[4], let data = json.data(using: .utf8) {
                source.device = try? JSONDecoder().decode(HealthDevice.self, from: data)
            }
            sourceIDs[key] = id
            sources[id] = source
        }
    }
}

extension SQLiteHealthStore {
    /// The intern table, reloaded from `db` when it lacks an ID asked for.
    func internTable(_ db: Database, needing check: (InternTable) -> Bool = { _ in true }) throws -> InternTable {
        let current = interned.withLock { $0 }
        if check(current) { return current }
        var fresh = InternTable()
        try fresh.reload(db)
        interned.withLock { $0 = fresh }
        return fresh
    }

    func typeID(_ identifier: String, _ db: Database) throws -> Int64? {
        if let id = interned.withLock({ $0.typeIDs[identifier] }) { return id }
        return try internTable(db, needing: { _ in false }).typeIDs[identifier]
    }

    func internType(_ identifier: String, _ db: Database) throws -> Int64 {
        if let id = interned.withLock({ $0.typeIDs[identifier] }) { return id }
        try db.execute(sql: "INSERT OR IGNORE INTO types (identifier) VALUES (?)", arguments: [identifier])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM types WHERE identifier = ?", arguments: [identifier]) ?? 0
        interned.withLock { $0.typeIDs[identifier] = id; $0.typeNames[id] = identifier }
        return id
    }

    func internUnit(_ unit: String, _ db: Database) throws -> Int64 {
        if let id = interned.withLock({ $0.unitIDs[unit] }) { return id }
        try db.execute(sql: "INSERT OR IGNORE INTO units (unit) VALUES (?)", arguments: [unit])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM units WHERE unit = ?", arguments: [unit]) ?? 0
        interned.withLock { $0.unitIDs[unit] = id; $0.unitNames[id] = unit }
        return id
    }

    func internSource(_ source: HealthSource, _ db: Database) throws -> Int64 {
        let key = source.key
        if let id = interned.withLock({ $0.sourceIDs[key] }) { return id }
        var deviceJSON: String?
        if let device = source.device, let data = try? JSONEncoder().encode(device) {
            deviceJSON = String(decoding: data, as: UTF8.self)
        }
        try db.execute(
            sql: "INSERT OR IGNORE INTO sources (key, name, bundle_id, device, category) VALUES (?, ?, ?, ?, ?)",
            arguments: [key, source.name, source.bundleIdentifier, deviceJSON, source.category.rawValue])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM sources WHERE key = ?", arguments: [key]) ?? 0
        var stored = source
        stored.version = nil
        interned.withLock { $0.sourceIDs[key] = id; $0.sources[id] = stored }
        return id
    }
}
