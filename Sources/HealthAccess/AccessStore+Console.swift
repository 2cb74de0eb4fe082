import Crypto
import HealthAPI
import Foundation
import GRDB
import HealthModel

/// The web console's one-time login keys, kept in the access store so that `healthbridge console` in one process can
/// issue a key that `healthbridge serve` in another redeems. Only a key's SHA-256 is stored; a key expires quickly
/// and works once.
extension AccessStore {
    /// How long a login key printed by `serve` or `healthbridge console` stays valid.
    public static let consoleKeyLifetime: TimeInterval = 600

    static let consoleKeyPrefix = "console.key."

    static func consoleKeyHash(_ key: String) -> String {
        AccessStore.hex(SHA256.hash(data: Data(("healthbridge.console:" + key).utf8)))
    }

    /// Issues a one-time console login key (256 random bits, base64url). Expired keys are forgotten.
    ///
    /// ```swift
    /// let key = try state.issueConsoleKey()
    /// print("http://127.0.0.1:8080/login?key=\(key)")
    /// ```
    public func issueConsoleKey(lifetime: TimeInterval = consoleKeyLifetime, now: Date = Date()) throws -> String {
        let key = Self.newToken()
        let t = now.timeIntervalSince1970
        try pool.write { db in
            try db.execute(sql: "DELETE FROM setting WHERE key LIKE ? AND CAST(value AS REAL) < ?",
                           arguments: [Self.consoleKeyPrefix + "%", t])
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?)",
                           arguments: [Self.consoleKeyPrefix + Self.consoleKeyHash(key), String(t + lifetime)])
        }
        return key
    }

    /// Redeems a console login key: true once for a key issued and not expired; the key is gone afterwards (a
    /// replay, or a key that expired, answers false).
    public func redeemConsoleKey(_ key: String, now: Date = Date()) async throws -> Bool {
        guard !key.isEmpty, key.utf8.count <= 128 else { return false }
        let name = Self.consoleKeyPrefix + Self.consoleKeyHash(key)
        let t = now.timeIntervalSince1970
        return try await pool.write { db in
            guard let value = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [name])
            else { return false }
            try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [name])
            return (Double(value) ?? 0) > t
        }
    }
}

extension AccessStore {
    /// Audit entries matching `query`, newest first, at most `query.limit` (1…500).
    ///
    /// ```swift
    /// let page = try state.auditEvents(AuditQuery(event: .dataRead, limit: 50))
    /// let next = try state.auditEvents(AuditQuery(event: .dataRead, beforeId: page.last?.id, limit: 50))
    /// ```
    public func auditEvents(_ query: AuditQuery) throws -> [AuditEvent] {
        var clauses: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let client = query.client?.filter(\.isHexDigit), !client.isEmpty {
            clauses.append("client LIKE ?")
            arguments.append(client + "%")
        }
        if let event = query.event {
            clauses.append("event = ?")
            arguments.append(event.rawValue)
        }
        if let since = query.since {
            clauses.append("at >= ?")
            arguments.append(since.timeIntervalSince1970)
        }
        if let until = query.until {
            clauses.append("at < ?")
            arguments.append(until.timeIntervalSince1970)
        }
        if let before = query.beforeId {
            clauses.append("id < ?")
            arguments.append(before)
        }
        let filter = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        arguments.append(min(max(query.limit, 1), 500))
        return try pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM audit \(filter) ORDER BY id DESC LIMIT ?",
                                        arguments: StatementArguments(arguments))
            let decoder = JSONDecoder()
            return rows.map { Self.auditEvent($0, decoder) }
        }
    }
}
