import HealthAPI
import Foundation
import GRDB
import HealthModel

extension AccessStore {
    /// A push token of the Health Auto Export receiver: the principal `ingest:NAME`.
    public struct IngestToken: Sendable, Equatable, Codable {
        public var name: String
        public var createdAt: Date
        public var lastUsedAt: Date?
        public var revokedAt: Date?
        public var isRevoked: Bool { revokedAt != nil }
    }

    /// Checks a token name: 1 to 64 letters, digits, `.`, `_` or `-`.
    public static func checkIngestName(_ name: String) throws(HealthError) {
        guard (1...64).contains(name.count),
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw HealthError(.invalidArgument, "an ingest token's name is 1 to 64 letters, digits, '.', '_' or '-'")
        }
    }

    /// Creates the token `name` and answers it (shown once; only its hash is kept). A revoked token's name may be
    /// used again; an active one may not.
    ///
    /// ```swift
    /// let token = try state.createIngestToken(name: "iphone")
    /// ```
    public func createIngestToken(name: String, now: Date = Date()) throws -> String {
        try Self.checkIngestName(name)
        let token = Self.newToken()
        try pool.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT revoked_at FROM ingest_token WHERE name = ?", arguments: [name]) {
                guard (row[0] as Double?) != nil else {
                    throw HealthError(.invalidArgument, "an ingest token named '\(name)' exists; revoke it first (`healthbridge ingest-token revoke \(name)`)")
                }
                try db.execute(sql: "DELETE FROM ingest_token WHERE name = ?", arguments: [name])
            }
            try db.execute(sql: "INSERT INTO ingest_token (name, token_hash, created_at) VALUES (?, ?, ?)",
                           arguments: [name, Data(Self.tokenHash(token)), now.timeIntervalSince1970])
        }
        return token
    }

    public func ingestTokens() throws -> [IngestToken] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM ingest_token ORDER BY name").map(Self.ingestToken)
        }
    }

    /// Revokes the token `name`; nil when there is none.
    public func revokeIngestToken(name: String, now: Date = Date()) throws -> IngestToken? {
        try pool.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM ingest_token WHERE name = ?", arguments: [name]) else {
                return nil
            }
            var token = Self.ingestToken(row)
            if token.revokedAt == nil {
                try db.execute(sql: "UPDATE ingest_token SET revoked_at = ? WHERE name = ?",
                               arguments: [now.timeIntervalSince1970, name])
                token.revokedAt = now
                try Self.insertAudit(AuditEvent(at: now, event: .consentChange,
                                                detail: .init(action: "ingest_token.revoke", principal: "ingest:\(name)")), db)
            }
            return token
        }
    }

    /// The name of the active token with this hash, and notes its use; nil for an unknown or revoked token.
    public func ingestTokenName(tokenHash: [UInt8], now: Date = Date()) async throws -> String? {
        try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT name, revoked_at FROM ingest_token WHERE token_hash = ?",
                                             arguments: [Data(tokenHash)]),
                  (row[1] as Double?) == nil else { return nil }
            let name: String = row[0]
            try db.execute(sql: "UPDATE ingest_token SET last_used_at = ? WHERE name = ?",
                           arguments: [now.timeIntervalSince1970, name])
            return name
        }
    }

    static func ingestToken(_ row: Row) -> IngestToken {
        IngestToken(name: row["name"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    lastUsedAt: (row["last_used_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
