import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO

/// The store's dictionaries (types, units, sources) by database id, cached in memory.
///
/// Only ids of committed rows enter the shared table: a write transaction collects its new entries in its
/// ``WriteContext`` and they are merged after the commit, so an id from a rolled-back transaction is never reused.
struct PostgresInternTable: Sendable {
    var typeIDs: [String: Int64] = [:]
    var typeNames: [Int64: String] = [:]
    var unitIDs: [String: Int64] = [:]
    var unitNames: [Int64: String] = [:]
    var sourceIDs: [String: Int64] = [:]
    var sources: [Int64: HealthSource] = [:]

    mutating func merge(_ other: PostgresInternTable) {
        typeIDs.merge(other.typeIDs) { a, _ in a }
        typeNames.merge(other.typeNames) { a, _ in a }
        unitIDs.merge(other.unitIDs) { a, _ in a }
        unitNames.merge(other.unitNames) { a, _ in a }
        sourceIDs.merge(other.sourceIDs) { a, _ in a }
        sources.merge(other.sources) { a, _ in a }
    }

    static func load(_ connection: PostgresConnection, logger: Logger) async throws -> PostgresInternTable {
        var table = PostgresInternTable()
        for try await (id, name) in try await connection.query("SELECT id, identifier FROM types", logger: logger)
            .decode((Int64, String).self) {
            table.typeIDs[name] = id
            table.typeNames[id] = name
        }
        for try await (id, name) in try await connection.query("SELECT id, unit FROM units", logger: logger)
            .decode((Int64, String).self) {
            table.unitIDs[name] = id
            table.unitNames[id] = name
        }
        for try await (id, key, name, bundle, device) in try await connection.query(
            "SELECT id, key, name, bundle_id, device FROM sources", logger: logger)
            .decode((Int64, String, String, String?, String?).self) {
            var source = HealthSource(name: name, bundleIdentifier: bundle)
            if let device, let data = device.data(using: .utf8) {
                source.device = try? JSONDecoder().decode(HealthDevice.self, from: data)
            }
            table.sourceIDs[key] = id
            table.sources[id] = source
        }
        return table
    }
}

extension PostgresHealthStore {
    /// The intern table, reloaded from the database when `check` says it lacks something.
    func internTable(_ connection: PostgresConnection,
                     needing check: (PostgresInternTable) -> Bool = { _ in true }) async throws -> PostgresInternTable {
        let current = interned.withLock { $0 }
        if check(current) { return current }
        let fresh = try await PostgresInternTable.load(connection, logger: logger)
        interned.withLock { $0 = fresh }
        return fresh
    }

    /// The id of a stored type, nil when the store has never seen it.
    func typeID(_ identifier: String, _ connection: PostgresConnection) async throws -> Int64? {
        if let id = interned.withLock({ $0.typeIDs[identifier] }) { return id }
        return try await internTable(connection, needing: { _ in false }).typeIDs[identifier]
    }

    /// Inserts a row into a dictionary unless present and returns its id.
    private func internRow(_ query: PostgresQuery, _ connection: PostgresConnection) async throws -> Int64 {
        for try await id in try await connection.query(query, logger: logger).decode(Int64.self) { return id }
        throw HealthError(.internalError, "the PostgreSQL store could not record a dictionary entry")
    }

    func internType(_ identifier: String, _ connection: PostgresConnection, _ context: WriteContext) async throws -> Int64 {
        if let id = interned.withLock({ $0.typeIDs[identifier] }) ?? context.pending.withLock({ $0.typeIDs[identifier] }) {
            return id
        }
        let id = try await internRow("""
            WITH ins AS (INSERT INTO types (identifier) VALUES (\(identifier)) ON CONFLICT (identifier) DO NOTHING RETURNING id)
            SELECT id FROM ins UNION ALL SELECT id FROM types WHERE identifier = \(identifier) LIMIT 1
            """, connection)
        context.pending.withLock { $0.typeIDs[identifier] = id; $0.typeNames[id] = identifier }
        return id
    }

    func internUnit(_ unit: String, _ connection: PostgresConnection, _ context: WriteContext) async throws -> Int64 {
        if let id = interned.withLock({ $0.unitIDs[unit] }) ?? context.pending.withLock({ $0.unitIDs[unit] }) {
            return id
        }
        let id = try await internRow("""
            WITH ins AS (INSERT INTO units (unit) VALUES (\(unit)) ON CONFLICT (unit) DO NOTHING RETURNING id)
            SELECT id FROM ins UNION ALL SELECT id FROM units WHERE unit = \(unit) LIMIT 1
            """, connection)
        context.pending.withLock { $0.unitIDs[unit] = id; $0.unitNames[id] = unit }
        return id
    }

    func internSource(_ source: HealthSource, _ connection: PostgresConnection, _ context: WriteContext) async throws -> Int64 {
        let key = source.key
        if let id = interned.withLock({ $0.sourceIDs[key] }) ?? context.pending.withLock({ $0.sourceIDs[key] }) {
            return id
        }
        var deviceJSON: String?
        if let device = source.device, let data = try? JSONEncoder().encode(device) {
            deviceJSON = String(decoding: data, as: UTF8.self)
        }
        let name = source.name, bundle = source.bundleIdentifier, category = Int64(source.category.rawValue)
        let id = try await internRow("""
            WITH ins AS (INSERT INTO sources (key, name, bundle_id, device, category)
                         VALUES (\(key), \(name), \(bundle), \(deviceJSON), \(category))
                         ON CONFLICT (key) DO NOTHING RETURNING id)
            SELECT id FROM ins UNION ALL SELECT id FROM sources WHERE key = \(key) LIMIT 1
            """, connection)
        var stored = source
        stored.version = nil
        context.pending.withLock { $0.sourceIDs[key] = id; $0.sources[id] = stored }
        return id
    }
}
