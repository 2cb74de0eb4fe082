import Foundation
import HealthAPI
import HealthAccess
import HealthModel

/// A request waiting on the consent page: who asks (the client and where its metadata came from), for which types.
public struct OAuthConsent: Sendable {
    /// The request's one-time id (the consent page's `request` parameter).
    public var id: String
    public var client: OAuthClientRecord
    public var request: OAuthAuthorizationRequest
    public var scope: OAuthScope
    /// The grants the client's principal has now, when the owner gave it some (a client asking again).
    public var currentGrants: AccessGrants?
}

/// An OAuth client as the Access page and `healthbridge clients oauth` list it.
public struct OAuthClientSummary: Sendable {
    public var client: OAuthClientRecord
    /// Unrevoked, unexpired tokens it holds.
    public var activeTokens: Int
    /// What its principal may read and write.
    public var grants: AccessGrants?
}

/// How long the pieces of an authorization live.
public struct OAuthLifetimes: Sendable {
    /// Access tokens: one hour.
    public var access: TimeInterval = 3600
    /// Refresh tokens: 30 days (each use gives a new one).
    public var refresh: TimeInterval = 30 * 86_400
    /// A request waiting for the person on the consent page: 10 minutes.
    public var consent: TimeInterval = 600
    /// An authorization code: one minute.
    public var code: TimeInterval = 60

    public init() {}
}

/// OAuth 2.1 for the MCP endpoint: the authorization server's steps over the access store. The consent is the
/// owner's (the console acting for the owner); what the person approves becomes the grants of the client's principal
/// `mcp:<name>`. Every grant, token issued, refreshed or revoked, and every refusal is audited (kind `oauth`, or
/// `consent.change` for the grants), never with a token or a health value.
///
/// ```swift
/// let id = try await service.oauthBeginAuthorization(request)              // GET /oauth/authorize
/// let redirect = try await owner.oauthDecide(id: id, approve: true, read: ["stepCount"], write: [])
/// let tokens = try await service.oauthExchangeCode(code, clientID: client, redirectURI: uri, verifier: v, resource: r)
/// let principal = try await service.oauthAuthenticate(accessToken: tokens.accessToken, resource: r)   // mcp:<name>
/// ```
extension HealthService {
    // MARK: Clients

    /// Records a client whose metadata was fetched or registered (its principal name derived from its id,
    /// ``AccessStore/oauthPrincipalName(clientID:source:)``); `HEALTH_NOT_AUTHORIZED` for a client the owner revoked.
    public func oauthRecordClient(clientID: String, name: String, source: OAuthClientRecord.Source,
                                  redirectURIs: [String]) async throws -> OAuthClientRecord {
        let access = try accessStore()
        let client = OAuthClientRecord(clientID: clientID,
                                       principalName: AccessStore.oauthPrincipalName(clientID: clientID, source: source),
                                       name: name, source: source, redirectURIs: redirectURIs)
        if let known = try await access.oauthClient(id: client.clientID), known.revokedAt != nil {
            await oauthAudit("client.refuse", principal: known.principal.id, decision: .denied, reason: "CLIENT_REVOKED")
            throw HealthError(.notAuthorized, "the owner revoked this client")
        }
        return try await access.saveOAuthClient(client)
    }

    /// A recorded client, nil if unknown.
    public func oauthClient(id: String) async throws -> OAuthClientRecord? {
        try await accessStore().oauthClient(id: id)
    }

    /// Every OAuth client with its grants and live tokens (the owner's).
    public func oauthClients() async throws -> [OAuthClientSummary] {
        let access = try ownerAccess("list OAuth clients")
        var result: [OAuthClientSummary] = []
        for client in try await access.oauthClients() {
            result.append(OAuthClientSummary(client: client,
                                             activeTokens: try await access.oauthActiveTokenCount(clientID: client.clientID),
                                             grants: try await storedGrants(client.principal)))
        }
        return result
    }

    /// Revokes a client (by `client_id` or principal): its tokens stop working and its grants are withdrawn.
    public func revokeOAuthClient(_ id: String) async throws -> OAuthClientRecord? {
        let access = try ownerAccess("revoke OAuth clients")
        guard let client = try await access.revokeOAuthClient(id) else { return nil }
        _ = try await changeGrants(GrantsUpdate(principal: client.principal.id, deny: ["*"]))
        return client
    }

    // MARK: Authorization

    /// Keeps a validated authorization request for the consent page; returns its one-time id.
    public func oauthBeginAuthorization(_ request: OAuthAuthorizationRequest) async throws -> String {
        try await accessStore().saveOAuthRequest(request)
    }

    /// The request waiting on the consent page (the owner's); `HEALTH_NOT_FOUND` when unknown, expired or decided.
    public func oauthConsent(id: String) async throws -> OAuthConsent {
        let access = try ownerAccess("see OAuth consent requests")
        guard let request = try await access.oauthRequest(id: id),
              let client = try await access.oauthClient(id: request.clientID) else {
            throw HealthError(.notFound, "this authorization request is unknown, expired or already decided; start again from the app")
        }
        return OAuthConsent(id: id, client: client, request: request, scope: try OAuthScope(parsing: request.scope),
                            currentGrants: try await storedGrants(client.principal))
    }

    /// The person's decision on the consent page (the owner's). Approving makes `read` and `write` (of what was
    /// asked, or any type where the client let the person choose) the grants of the client's principal, and
    /// issues a one-time code; denying answers `access_denied`. Returns where to send the browser: the client's
    /// redirect URI with `code` (or `error`), `state` and `iss`.
    public func oauthDecide(id: String, approve: Bool, read: [String], write: [String]) async throws -> String {
        let consent = try await oauthConsent(id: id)
        let access = try accessStore()
        let principal = consent.client.principal
        guard approve else {
            _ = try await access.decideOAuthRequest(id: id, approvedScope: nil)
            await oauthAudit("consent.deny", principal: principal.id, decision: .denied, reason: "ACCESS_DENIED")
            return Self.redirect(consent.request, ["error": "access_denied"])
        }
        let readTypes = try Self.grantTypes(read).filter { $0 != "*" }
        let writeTypes = try Self.grantTypes(write).filter { $0 != "*" }
        if !consent.scope.chooseRead, let extra = readTypes.first(where: { !consent.scope.read.contains($0) }) {
            throw HealthError(.invalidArgument, "the client did not ask to read \(extra)")
        }
        if !consent.scope.chooseWrite, let extra = writeTypes.first(where: { !consent.scope.write.contains($0) }) {
            throw HealthError(.invalidArgument, "the client did not ask to write \(extra)")
        }
        let granted = OAuthScope.granted(read: Array(Set(readTypes)).sorted(), write: Array(Set(writeTypes)).sorted())
        guard let decided = try await access.decideOAuthRequest(id: id, approvedScope: granted, codeLifetime: OAuthLifetimes().code),
              let code = decided.code else {
            throw HealthError(.notFound, "this authorization request was decided meanwhile")
        }
        // What the person approved is the principal's grants now: nothing else, in either direction.
        _ = try await changeGrants(GrantsUpdate(principal: principal.id, deny: ["*"]))
        if !readTypes.isEmpty || !writeTypes.isEmpty {
            _ = try await changeGrants(GrantsUpdate(principal: principal.id, allowRead: readTypes, allowWrite: writeTypes))
        }
        await auditConsent("oauth.consent", target: principal.id, types: readTypes + writeTypes)
        return Self.redirect(consent.request, ["code": code])
    }

    /// The client's redirect URI with the answer's parameters, `state` and `iss` (RFC 9207).
    static func redirect(_ request: OAuthAuthorizationRequest, _ parameters: [String: String]) -> String {
        var components = URLComponents(string: request.redirectURI) ?? URLComponents()
        var items = components.queryItems ?? []
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: name, value: value)) }
        if let state = request.state { items.append(URLQueryItem(name: "state", value: state)) }
        items.append(URLQueryItem(name: "iss", value: issuer(ofResource: request.resource)))
        components.queryItems = items
        // `+` is a space in a query: spell it out.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? request.redirectURI
    }

    /// The issuer (the authorization server's identifier) of a resource URL: its origin, `scheme://host[:port]`.
    public static func issuer(ofResource resource: String) -> String {
        guard let components = URLComponents(string: resource), let scheme = components.scheme,
              let host = components.host else { return resource }
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostText)\(components.port.map { ":\($0)" } ?? "")"
    }

    // MARK: Tokens

    /// `grant_type=authorization_code`: the code is used up, then checked against the client, its redirect URI,
    /// the PKCE verifier (S256) and the resource. A code used twice revokes what it gave.
    public func oauthExchangeCode(_ code: String, clientID: String, redirectURI: String?, verifier: String?,
                                  resource: String?) async throws -> OAuthTokenPair {
        let access = try accessStore()
        switch try await access.redeemAuthorizationCode(code) {
        case .invalid:
            await oauthAudit("token.refuse", principal: nil, decision: .denied, reason: "CODE_INVALID")
            throw HealthError(.unauthenticated, "the authorization code is unknown, expired or used", argument: "code")
        case .reused:
            await oauthAudit("code.reuse", principal: nil, decision: .denied, reason: "CODE_REUSED")
            throw HealthError(.unauthenticated, "the authorization code was already used; the tokens it gave are revoked",
                              argument: "code")
        case .valid(let request, let family):
            let client = try await access.oauthClient(id: request.clientID)
            let principal = client?.principal.id
            func refuse(_ reason: String, _ message: String, _ argument: String) async -> HealthError {
                await oauthAudit("token.refuse", principal: principal, decision: .denied, reason: reason)
                return HealthError(.unauthenticated, message, argument: argument)
            }
            guard let client, client.revokedAt == nil, request.clientID == clientID else {
                throw await refuse("CLIENT_MISMATCH", "the code was issued to another client", "client_id")
            }
            guard redirectURI == nil || redirectURI == request.redirectURI else {
                throw await refuse("REDIRECT_MISMATCH", "redirect_uri differs from the authorization request's", "redirect_uri")
            }
            guard let verifier, Self.isValidVerifier(verifier),
                  AccessStore.pkceS256(verifier) == request.codeChallenge else {
                throw await refuse("PKCE_MISMATCH", "the code_verifier does not match the code_challenge (S256)", "code_verifier")
            }
            guard resource == nil || resource == request.resource else {
                throw await refuse("RESOURCE_MISMATCH", "the resource differs from the authorization request's", "resource")
            }
            let lifetimes = OAuthLifetimes()
            let pair = try await access.issueOAuthTokens(clientID: clientID, family: family, resource: request.resource,
                                                         scope: request.scope, accessLifetime: lifetimes.access,
                                                         refreshLifetime: lifetimes.refresh)
            await oauthAudit("token.issue", principal: principal, decision: .allowed, reason: nil)
            return pair
        }
    }

    /// RFC 7636: 43 to 128 characters of `A-Z a-z 0-9 - . _ ~`.
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F || $0 == 0x7E }
    }

    /// `grant_type=refresh_token`: rotation. The presented refresh token is used up and a new pair is issued; a
    /// refresh token used twice revokes its whole family (the client must be authorized again).
    public func oauthRefresh(_ token: String, clientID: String, resource: String?) async throws -> OAuthTokenPair {
        let access = try accessStore()
        let lifetimes = OAuthLifetimes()
        let principal = try await access.oauthClient(id: clientID)?.principal.id
        let (outcome, pair) = try await access.rotateRefreshToken(token, clientID: clientID, accessLifetime: lifetimes.access,
                                                                  refreshLifetime: lifetimes.refresh)
        switch outcome {
        case .invalid:
            await oauthAudit("refresh.refuse", principal: principal, decision: .denied, reason: "REFRESH_INVALID")
            throw HealthError(.unauthenticated, "the refresh token is unknown, expired or revoked", argument: "refresh_token")
        case .reused:
            await oauthAudit("refresh.reuse", principal: principal, decision: .denied, reason: "REFRESH_REUSED")
            throw HealthError(.unauthenticated, "the refresh token was already used; every token of this authorization is revoked",
                              argument: "refresh_token")
        case .valid(let request, _):
            guard let pair else { throw HealthError(.internalError, "the tokens were not issued") }
            if let resource, resource != request.resource {
                _ = try await access.revokeOAuthToken(pair.refreshToken, clientID: clientID)
                await oauthAudit("refresh.refuse", principal: principal, decision: .denied, reason: "RESOURCE_MISMATCH")
                throw HealthError(.unauthenticated, "the resource differs from the one the tokens were issued for",
                                  argument: "resource")
            }
            await oauthAudit("token.refresh", principal: principal, decision: .allowed, reason: nil)
            return pair
        }
    }

    /// RFC 7009: revokes a token (a refresh token with every token of its family). Unknown tokens are not an error.
    public func oauthRevoke(_ token: String, clientID: String?) async throws {
        if let principalName = try await accessStore().revokeOAuthToken(token, clientID: clientID) {
            await oauthAudit("token.revoke", principal: Principal.mcp(principalName).id, decision: .allowed, reason: nil)
        }
    }

    /// The principal an access token acts as on `resource`: `HEALTH_UNAUTHENTICATED` for an unknown, expired or
    /// revoked token, one minted for another resource, or one whose consent the owner withdrew (its principal has no
    /// grants of its own any more).
    public func oauthAuthenticate(accessToken: String, resource: String) async throws -> Principal {
        let access = try accessStore()
        guard let grant = try await access.oauthAccessGrant(accessToken) else {
            await oauthAudit("token.refuse", principal: nil, decision: .denied, reason: "TOKEN_INVALID")
            throw HealthError(.unauthenticated, "the access token is unknown, expired or revoked")
        }
        let principal = Principal.mcp(grant.principalName)
        guard grant.resource == resource else {
            await oauthAudit("token.refuse", principal: principal.id, decision: .denied, reason: "TOKEN_AUDIENCE")
            throw HealthError(.unauthenticated, "the access token was issued for another resource")
        }
        guard try await storedGrants(principal) != nil else {
            await oauthAudit("token.refuse", principal: principal.id, decision: .denied, reason: "CONSENT_WITHDRAWN")
            throw HealthError(.unauthenticated, "the owner withdrew this client's grants; authorize again")
        }
        return principal
    }

    /// One `oauth` audit entry: what happened, to whom, and why a refusal was one; never a token.
    public func oauthAudit(_ action: String, principal: String?, decision: AuditEvent.Decision, reason: String?) async {
        guard let access else { return }
        try? await access.append([AuditEvent(event: .oauth, client: principal, decision: decision,
                                             detail: .init(reason: reason, action: action, principal: principal))])
    }
}
