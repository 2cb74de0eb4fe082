import Crypto
import Foundation
import GRDB
import HealthAPI
import HealthModel

/// The OAuth state of the MCP endpoint's authorization server, in the access store: clients, requests waiting for
/// consent, one-time authorization codes, access and refresh tokens. Codes and tokens are stored as SHA-256 hashes
/// only; a refresh token is used once (rotation) and a second use revokes its whole family (the tokens that descend
/// from one consent).
extension AccessStore {
    static func registerOAuthMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("oauth-v1") { db in
            try db.execute(sql: """
                CREATE TABLE oauth_client (
                    client_id TEXT PRIMARY KEY NOT NULL,
                    principal TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    source TEXT NOT NULL,
                    redirect_uris TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    revoked_at REAL
                );
                CREATE TABLE oauth_request (
                    id_hash BLOB PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    redirect_uri TEXT NOT NULL,
                    code_challenge TEXT NOT NULL,
                    state TEXT,
                    resource TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    family TEXT,
                    expires_at REAL NOT NULL,
                    used_at REAL
                );
                CREATE TABLE oauth_token (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    family TEXT NOT NULL,
                    resource TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    used_at REAL,
                    revoked_at REAL
                );
                CREATE INDEX oauth_token_family ON oauth_token (family);
                CREATE INDEX oauth_token_client ON oauth_token (client_id);
                """)
        }
    }

    /// The PKCE S256 challenge of a code verifier (RFC 7636): base64url(SHA-256(verifier)) without padding.
    ///
    /// ```swift
    /// AccessStore.pkceS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")   // "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    /// ```
    public static func pkceS256(_ verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// The principal name of a client (`mcp:<name>`): for a metadata document its host and 8 hex digits of the
    /// `client_id`'s hash (`app.example-1a2b3c4d`), for a registered client `registered-` and the digits.
    ///
    /// ```swift
    /// AccessStore.oauthPrincipalName(clientID: "https://app.example/client.json", source: .metadataDocument)
    /// ```
    public static func oauthPrincipalName(clientID: String, source: OAuthClientRecord.Source) -> String {
        let digits = String(hex(SHA256.hash(data: Data(("healthbridge.oauth-client:" + clientID).utf8))).prefix(8))
        guard source == .metadataDocument, let host = URLComponents(string: clientID)?.host?.lowercased() else {
            return "registered-" + digits
        }
        let safe = String(host.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }.prefix(64))
        return (safe.isEmpty ? "client" : safe) + "-" + digits
    }

    static func oauthHash(_ secret: String) -> Data {
        Data(SHA256.hash(data: Data(("healthbridge.oauth:" + secret).utf8)))
    }

    static func oauthClient(_ row: Row) -> OAuthClientRecord {
        let uris = (row["redirect_uris"] as String?).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        return OAuthClientRecord(clientID: row["client_id"], principalName: row["principal"], name: row["name"],
                                 source: OAuthClientRecord.Source(rawValue: row["source"]) ?? .registered,
                                 redirectURIs: uris, createdAt: Date(timeIntervalSince1970: row["created_at"]),
                                 revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: Clients

    /// Records a client (or refreshes the name and redirect URIs of a known one, keeping its principal). A revoked
    /// client stays revoked.
    ///
    /// ```swift
    /// try await state.saveOAuthClient(OAuthClientRecord(clientID: url, principalName: "app.example-1a2b3c4d",
    ///                                                   name: "Agent", source: .metadataDocument, redirectURIs: [cb]))
    /// ```
    @discardableResult
    public func saveOAuthClient(_ client: OAuthClientRecord) async throws -> OAuthClientRecord {
        let uris = String(decoding: try JSONEncoder().encode(client.redirectURIs), as: UTF8.self)
        return try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO oauth_client (client_id, principal, name, source, redirect_uris, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(client_id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris
                """, arguments: [client.clientID, client.principalName, client.name, client.source.rawValue, uris,
                                 client.createdAt.timeIntervalSince1970])
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM oauth_client WHERE client_id = ?",
                                             arguments: [client.clientID]) else {
                throw AccessStoreError("the OAuth client could not be recorded")
            }
            return Self.oauthClient(row)
        }
    }

    /// One client by `client_id`, nil if unknown.
    public func oauthClient(id: String) async throws -> OAuthClientRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM oauth_client WHERE client_id = ?", arguments: [id]).map(Self.oauthClient)
        }
    }

    /// Every OAuth client, oldest first, revoked ones too.
    public func oauthClients() async throws -> [OAuthClientRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM oauth_client ORDER BY created_at").map(Self.oauthClient)
        }
    }

    /// Revokes a client by `client_id` or by its principal (`mcp:NAME` or `NAME`): every token it holds stops
    /// working at once, and it cannot be authorized again. Returns the client, nil if none matched.
    public func revokeOAuthClient(_ idOrPrincipal: String, now: Date = Date()) async throws -> OAuthClientRecord? {
        let name = idOrPrincipal.hasPrefix("mcp:") ? String(idOrPrincipal.dropFirst(4)) : idOrPrincipal
        return try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM oauth_client WHERE client_id = ? OR principal = ?",
                                             arguments: [idOrPrincipal, name]) else { return nil }
            var client = Self.oauthClient(row)
            let t = now.timeIntervalSince1970
            if client.revokedAt == nil {
                try db.execute(sql: "UPDATE oauth_client SET revoked_at = ? WHERE client_id = ?", arguments: [t, client.clientID])
                client.revokedAt = now
            }
            try db.execute(sql: "UPDATE oauth_token SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
                           arguments: [t, client.clientID])
            try Self.insertAudit(AuditEvent(at: now, event: .consentChange, client: "owner",
                                            detail: .init(action: "oauth_client.revoke", principal: client.principal.id)), db)
            return client
        }
    }

    // MARK: Requests and codes

    /// Keeps an authorization request until the person decides on the consent page; returns its one-time id.
    public func saveOAuthRequest(_ request: OAuthAuthorizationRequest, now: Date = Date()) async throws -> String {
        let id = Self.newToken()
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM oauth_request WHERE expires_at < ?", arguments: [now.timeIntervalSince1970 - 3600])
            try Self.insertRequest(db, hash: Self.oauthHash(id), kind: "consent", request, family: nil)
        }
        return id
    }

    static func insertRequest(_ db: Database, hash: Data, kind: String, _ request: OAuthAuthorizationRequest,
                              family: String?) throws {
        try db.execute(sql: """
            INSERT INTO oauth_request (id_hash, kind, client_id, redirect_uri, code_challenge, state, resource, scope,
                                       family, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [hash, kind, request.clientID, request.redirectURI, request.codeChallenge, request.state,
                             request.resource, request.scope, family, request.expiresAt.timeIntervalSince1970])
    }

    static func request(_ row: Row) -> OAuthAuthorizationRequest {
        OAuthAuthorizationRequest(clientID: row["client_id"], redirectURI: row["redirect_uri"],
                                  codeChallenge: row["code_challenge"], state: row["state"], resource: row["resource"],
                                  scope: row["scope"], expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
    }

    /// A request waiting for consent (not expired, not decided), nil otherwise.
    public func oauthRequest(id: String, now: Date = Date()) async throws -> OAuthAuthorizationRequest? {
        guard !id.isEmpty, id.utf8.count <= 128 else { return nil }
        return try await pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT * FROM oauth_request WHERE id_hash = ? AND kind = 'consent' AND used_at IS NULL AND expires_at > ?
                """, arguments: [Self.oauthHash(id), now.timeIntervalSince1970]).map(Self.request)
        }
    }

    /// Closes a request waiting for consent. With `code`, the request becomes a one-time authorization code
    /// (valid `codeLifetime`) for `scope`, what the person approved; returns the code. Nil when the request is
    /// unknown, expired or already decided.
    public func decideOAuthRequest(id: String, approvedScope: String?, codeLifetime: TimeInterval = 60,
                                   now: Date = Date()) async throws -> (request: OAuthAuthorizationRequest, code: String?)? {
        guard !id.isEmpty, id.utf8.count <= 128 else { return nil }
        let t = now.timeIntervalSince1970
        return try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT * FROM oauth_request WHERE id_hash = ? AND kind = 'consent' AND used_at IS NULL AND expires_at > ?
                """, arguments: [Self.oauthHash(id), t]) else { return nil }
            try db.execute(sql: "UPDATE oauth_request SET used_at = ? WHERE id_hash = ?", arguments: [t, Self.oauthHash(id)])
            var request = Self.request(row)
            guard let approvedScope else { return (request, nil) }
            request.scope = approvedScope
            request.expiresAt = now.addingTimeInterval(codeLifetime)
            let code = Self.newToken()
            try Self.insertRequest(db, hash: Self.oauthHash(code), kind: "code", request, family: Self.newToken())
            return (request, code)
        }
    }

    /// Uses an authorization code up. A code presented a second time revokes every token issued with it.
    public func redeemAuthorizationCode(_ code: String, now: Date = Date()) async throws -> OAuthRedemption {
        guard !code.isEmpty, code.utf8.count <= 256 else { return .invalid }
        let t = now.timeIntervalSince1970
        return try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM oauth_request WHERE id_hash = ? AND kind = 'code'",
                                             arguments: [Self.oauthHash(code)]) else { return .invalid }
            let family: String = row["family"] ?? ""
            if (row["used_at"] as Double?) != nil {
                try db.execute(sql: "UPDATE oauth_token SET revoked_at = ? WHERE family = ? AND revoked_at IS NULL",
                               arguments: [t, family])
                return .reused
            }
            try db.execute(sql: "UPDATE oauth_request SET used_at = ? WHERE id_hash = ?", arguments: [t, Self.oauthHash(code)])
            let request = Self.request(row)
            guard request.expiresAt.timeIntervalSince1970 > t else { return .invalid }
            return .valid(request, family: family)
        }
    }

    // MARK: Tokens

    /// Issues an access token (valid `accessLifetime`) and a refresh token (valid `refreshLifetime`) of `family`
    /// for the client, bound to `resource`. Only their hashes are kept.
    public func issueOAuthTokens(clientID: String, family: String, resource: String, scope: String,
                                 accessLifetime: TimeInterval, refreshLifetime: TimeInterval,
                                 now: Date = Date()) async throws -> OAuthTokenPair {
        let access = Self.newToken()
        let refresh = Self.newToken()
        try await pool.write { db in
            try Self.insertTokens(db, access: access, refresh: refresh, clientID: clientID, family: family,
                                  resource: resource, scope: scope, accessLifetime: accessLifetime,
                                  refreshLifetime: refreshLifetime, now: now)
        }
        return OAuthTokenPair(accessToken: access, refreshToken: refresh, expiresIn: accessLifetime.clampedInt(), scope: scope)
    }

    static func insertTokens(_ db: Database, access: String, refresh: String, clientID: String, family: String,
                             resource: String, scope: String, accessLifetime: TimeInterval,
                             refreshLifetime: TimeInterval, now: Date) throws {
        let t = now.timeIntervalSince1970
        // Expired tokens are forgotten now and then: a day after they expire.
        try db.execute(sql: "DELETE FROM oauth_token WHERE expires_at < ?", arguments: [t - 86_400])
        for (token, kind, lifetime) in [(access, "access", accessLifetime), (refresh, "refresh", refreshLifetime)] {
            try db.execute(sql: """
                INSERT INTO oauth_token (token_hash, kind, client_id, family, resource, scope, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [oauthHash(token), kind, clientID, family, resource, scope, t, t + lifetime])
        }
    }

    /// Rotates a refresh token: the presented one is used up and a new pair of the same family is issued. A refresh
    /// token presented a second time (stolen, or replayed) revokes its whole family.
    public func rotateRefreshToken(_ token: String, clientID: String, accessLifetime: TimeInterval,
                                   refreshLifetime: TimeInterval,
                                   now: Date = Date()) async throws -> (OAuthRedemption, OAuthTokenPair?) {
        guard !token.isEmpty, token.utf8.count <= 256 else { return (.invalid, nil) }
        let t = now.timeIntervalSince1970
        return try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT oauth_token.*, oauth_client.revoked_at AS client_revoked FROM oauth_token
                JOIN oauth_client ON oauth_client.client_id = oauth_token.client_id
                WHERE token_hash = ? AND kind = 'refresh'
                """, arguments: [Self.oauthHash(token)]) else { return (.invalid, nil) }
            let family: String = row["family"]
            guard (row["client_id"] as String) == clientID else { return (.invalid, nil) }
            if (row["used_at"] as Double?) != nil {
                try db.execute(sql: "UPDATE oauth_token SET revoked_at = ? WHERE family = ? AND revoked_at IS NULL",
                               arguments: [t, family])
                return (.reused, nil)
            }
            guard (row["revoked_at"] as Double?) == nil, (row["client_revoked"] as Double?) == nil,
                  (row["expires_at"] as Double) > t else { return (.invalid, nil) }
            try db.execute(sql: "UPDATE oauth_token SET used_at = ? WHERE token_hash = ?", arguments: [t, Self.oauthHash(token)])
            let request = OAuthAuthorizationRequest(clientID: clientID, redirectURI: "", codeChallenge: "", state: nil,
                                                    resource: row["resource"], scope: row["scope"],
                                                    expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            let access = Self.newToken()
            let refresh = Self.newToken()
            try Self.insertTokens(db, access: access, refresh: refresh, clientID: clientID, family: family,
                                  resource: request.resource, scope: request.scope, accessLifetime: accessLifetime,
                                  refreshLifetime: refreshLifetime, now: now)
            return (.valid(request, family: family),
                    OAuthTokenPair(accessToken: access, refreshToken: refresh, expiresIn: accessLifetime.clampedInt(),
                                   scope: request.scope))
        }
    }

    /// The facts of a valid access token: known, not expired, not revoked, of a client not revoked. Nil otherwise.
    public func oauthAccessGrant(_ token: String, now: Date = Date()) async throws -> OAuthAccessGrant? {
        guard !token.isEmpty, token.utf8.count <= 256 else { return nil }
        return try await pool.read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT oauth_token.*, oauth_client.principal AS principal FROM oauth_token
                JOIN oauth_client ON oauth_client.client_id = oauth_token.client_id
                WHERE token_hash = ? AND kind = 'access' AND oauth_token.revoked_at IS NULL
                  AND oauth_client.revoked_at IS NULL AND expires_at > ?
                """), arguments: [Self.oauthHash(token), now.timeIntervalSince1970]) else { return nil }
            return OAuthAccessGrant(clientID: row["client_id"], principalName: row["principal"], resource: row["resource"],
                                    scope: row["scope"], expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
        }
    }

    /// Revokes a token (RFC 7009): a refresh token with its whole family, an access token alone. With `clientID`,
    /// only a token of that client. Returns the principal name of the token's client when one was revoked.
    public func revokeOAuthToken(_ token: String, clientID: String?, now: Date = Date()) async throws -> String? {
        guard !token.isEmpty, token.utf8.count <= 256 else { return nil }
        let t = now.timeIntervalSince1970
        return try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT oauth_token.kind, oauth_token.family, oauth_token.client_id, oauth_client.principal AS principal
                FROM oauth_token JOIN oauth_client ON oauth_client.client_id = oauth_token.client_id
                WHERE token_hash = ?
                """, arguments: [Self.oauthHash(token)]) else { return nil }
            if let clientID, clientID != (row["client_id"] as String) { return nil }
            if (row["kind"] as String) == "refresh" {
                try db.execute(sql: "UPDATE oauth_token SET revoked_at = ? WHERE family = ? AND revoked_at IS NULL",
                               arguments: [t, row["family"] as String])
            } else {
                try db.execute(sql: "UPDATE oauth_token SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL",
                               arguments: [t, Self.oauthHash(token)])
            }
            return row["principal"]
        }
    }

    /// How many unrevoked, unexpired access and refresh tokens a client holds (the Access page and `clients oauth`).
    public func oauthActiveTokenCount(clientID: String, now: Date = Date()) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: """
                SELECT count(*) FROM oauth_token WHERE client_id = ? AND revoked_at IS NULL AND used_at IS NULL
                  AND expires_at > ?
                """, arguments: [clientID, now.timeIntervalSince1970]) ?? 0
        }
    }
}
