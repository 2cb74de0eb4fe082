import Foundation
import HealthAPI
import HealthHTTP
import HealthMCP
import HealthModel
import HealthService
import HealthSupport
import Hummingbird
import Logging
import NIOCore

/// OAuth 2.1 for the MCP endpoint, as the MCP authorization specification describes it: this server is both the
/// protected resource (the MCP URL) and its authorization server (issuer: the MCP URL's origin).
///
/// - `GET /.well-known/oauth-protected-resource[/mcp]`: RFC 9728 metadata (`resource` is the MCP URL).
/// - `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata (`client_id_metadata_document_supported`).
/// - `GET /oauth/authorize`: checks the client (its Client ID Metadata Document, or a registered client), the
///   redirect URI, PKCE (S256 only), `resource`, `state` and the scope, then sends the person to the console's
///   consent page.
/// - `POST /oauth/token`: `authorization_code` (with `code_verifier`) and `refresh_token` (rotating).
/// - `POST /oauth/revoke`: RFC 7009.
/// - `POST /oauth/register`: RFC 7591, only when ``Configuration/dynamicRegistration`` is on.
///
/// ```swift
/// let oauth = OAuthServer(service: service, configuration: .init(resource: "https://health.example.com/mcp",
///                                                                consentOrigin: { console.origin }))
/// oauth.addRoutes(to: router)
/// HealthMCPHTTP.addRoutes(to: router, toolbox: toolbox, options: .init(authorizer: oauth.authorizer(staticToken: nil, anonymous: false)))
/// ```
public struct OAuthServer: Sendable {
    public struct Configuration: Sendable {
        /// The MCP endpoint's URL as clients reach it (the public URL behind a proxy): the tokens' resource.
        public var resource: String
        /// Where the console runs (`http://127.x.y.z:port`), for the consent page; nil when it is off.
        public var consentOrigin: @Sendable () -> String?
        /// RFC 7591 registration (`serve --oauth-dynamic-registration`); off by default.
        public var dynamicRegistration: Bool
        /// Accept `http://` client_id URLs on loopback (local apps, tests).
        public var allowLoopbackClients: Bool
        /// Certificate authorities trusted beside the system's when fetching `https` Client ID Metadata Documents
        /// (`serve --oauth-client-ca FILE`: an internal CA, a test's self-signed certificate).
        public var clientTrustRoots: ClientTrustRoots?

        public init(resource: String, consentOrigin: @escaping @Sendable () -> String?, dynamicRegistration: Bool = false,
                    allowLoopbackClients: Bool = false, clientTrustRoots: ClientTrustRoots? = nil) {
            self.resource = resource; self.consentOrigin = consentOrigin
            self.dynamicRegistration = dynamicRegistration; self.allowLoopbackClients = allowLoopbackClients
            self.clientTrustRoots = clientTrustRoots
        }
    }

    let service: HealthService
    public let configuration: Configuration
    let fetcher: ClientMetadataFetcher
    let logger: Logger
    /// Bounds what anyone who reaches the endpoints can make the server do: authorizations (each fetches a metadata
    /// document and keeps a request) and token, revocation and registration requests, per kind for everyone.
    let limiter = RateLimiter(rate: 10, burst: 40)

    public init(service: HealthService, configuration: Configuration,
                logger: Logger = Logger(label: "healthbridge.oauth", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.service = service
        self.configuration = configuration
        self.fetcher = ClientMetadataFetcher(allowLoopback: configuration.allowLoopbackClients,
                                             trustRoots: configuration.clientTrustRoots, logger: logger)
        self.logger = logger
    }

    /// The authorization server's identifier: the MCP URL's origin.
    public var issuer: String { HealthService.issuer(ofResource: configuration.resource) }
    /// The MCP endpoint's path (`/mcp`).
    public var resourcePath: String { URLComponents(string: configuration.resource)?.path ?? "/mcp" }
    /// The protected-resource metadata URL, as `WWW-Authenticate` names it.
    public var resourceMetadataURL: String { issuer + "/.well-known/oauth-protected-resource" + resourcePath }

    /// Checks a public MCP URL: `https://host[:port][/mcp]`, or `http://` on loopback; returns it with the path
    /// `/mcp`. `HEALTH_INVALID_ARGUMENT` otherwise.
    ///
    /// ```swift
    /// try OAuthServer.resourceURL(publicURL: "https://health.example.com")   // "https://health.example.com/mcp"
    /// ```
    public static func resourceURL(publicURL: String, path: String = "/mcp") throws(HealthError) -> String {
        guard var components = URLComponents(string: publicURL), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
              components.user == nil else {
            throw HealthError(.invalidArgument, "the public URL must be https://HOST[:PORT][\(path)]", argument: "mcp-public-url")
        }
        guard scheme == "https" || (scheme == "http" && Loopback.isLoopback(host)) else {
            throw HealthError(.invalidArgument, "the public URL must be https (http only on loopback)", argument: "mcp-public-url")
        }
        guard components.path.isEmpty || components.path == "/" || components.path == path else {
            throw HealthError(.invalidArgument, "the public URL's path must be \(path) or empty (the proxy forwards to \(path))",
                              argument: "mcp-public-url")
        }
        components.scheme = scheme
        components.path = path
        return components.string ?? publicURL
    }

    // MARK: The MCP endpoint's check

    /// The MCP endpoint's authorization: a valid access token for this resource acts as its client's principal
    /// (`mcp:<client>`); `staticToken` (the endpoint's own) acts as `mcp:default`; with `anonymous`, a request
    /// without a token acts as `mcp:default` (loopback without a public URL); anything else is 401 with
    /// `WWW-Authenticate: Bearer resource_metadata="…"`.
    public func authorizer(staticToken: String?, anonymous: Bool) -> any MCPRequestAuthorizer {
        OAuthMCPAuthorizer(service: service, resource: configuration.resource, metadataURL: resourceMetadataURL,
                           staticToken: staticToken, anonymous: anonymous)
    }

    // MARK: Routes

    /// Adds the metadata documents and the OAuth endpoints.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let protectedResource: @Sendable (Request, Context) async throws -> Response = { _, _ in
            Self.json(self.protectedResourceMetadata())
        }
        router.get("/.well-known/oauth-protected-resource", use: protectedResource)
        router.get(RouterPath("/.well-known/oauth-protected-resource" + resourcePath), use: protectedResource)
        router.get("/.well-known/oauth-authorization-server") { _, _ in Self.json(self.authorizationServerMetadata()) }
        router.get("/oauth/authorize") { request, _ in await self.authorize(request) }
        router.post("/oauth/token") { request, _ in await self.token(request) }
        router.post("/oauth/revoke") { request, _ in await self.revoke(request) }
        if configuration.dynamicRegistration {
            router.post("/oauth/register") { request, _ in await self.register(request) }
        }
    }

    /// RFC 9728.
    func protectedResourceMetadata() -> [String: Any] {
        ["resource": configuration.resource, "authorization_servers": [issuer],
         "scopes_supported": OAuthScope.supported, "bearer_methods_supported": ["header"],
         "resource_name": "HealthBridge"]
    }

    /// RFC 8414.
    func authorizationServerMetadata() -> [String: Any] {
        var metadata: [String: Any] = [
            "issuer": issuer,
            "authorization_endpoint": issuer + "/oauth/authorize",
            "token_endpoint": issuer + "/oauth/token",
            "revocation_endpoint": issuer + "/oauth/revoke",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": OAuthScope.supported,
            "client_id_metadata_document_supported": true,
            "authorization_response_iss_parameter_supported": true,
        ]
        if configuration.dynamicRegistration { metadata["registration_endpoint"] = issuer + "/oauth/register" }
        return metadata
    }

    // MARK: Authorize

    /// `GET /oauth/authorize`. A bad client or redirect URI is answered here (never redirected); any other
    /// refusal goes back to the client's redirect URI with `error`, `state` and `iss`.
    func authorize(_ request: Request) async -> Response {
        if let refusal = limited("authorize") { return refusal }
        let query = Form(request.uri.query ?? "")
        guard let clientID = query.value("client_id") else {
            return await refusePage("client_id is missing", reason: "CLIENT_MISSING")
        }
        let client: OAuthClientRecord
        do {
            client = try await resolveClient(clientID)
        } catch let error as HealthError {
            return await refusePage(error.message, reason: "CLIENT_INVALID")
        } catch {
            return await refusePage("the client could not be checked", reason: "CLIENT_INVALID")
        }
        guard let redirectURI = query.value("redirect_uri"), Self.redirectMatches(redirectURI, client.redirectURIs) else {
            return await refusePage("redirect_uri is missing or not one the client registered", reason: "REDIRECT_INVALID",
                                    principal: client.principal.id)
        }
        let state = query.value("state")
        func back(_ error: String, _ description: String) async -> Response {
            await service.oauthAudit("authorize.refuse", principal: client.principal.id, decision: .denied,
                                     reason: error.uppercased())
            var items = [URLQueryItem(name: "error", value: error), URLQueryItem(name: "error_description", value: description)]
            if let state { items.append(URLQueryItem(name: "state", value: state)) }
            items.append(URLQueryItem(name: "iss", value: issuer))
            var components = URLComponents(string: redirectURI) ?? URLComponents()
            components.queryItems = (components.queryItems ?? []) + items
            return Self.found(components.string ?? redirectURI)
        }
        guard query.value("response_type") == "code" else {
            return await back("unsupported_response_type", "response_type must be code")
        }
        guard let challenge = query.value("code_challenge"), query.value("code_challenge_method") == "S256" else {
            return await back("invalid_request", "PKCE is required with code_challenge_method S256 (plain is not accepted)")
        }
        guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else {
            return await back("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)")
        }
        guard let state, state.utf8.count <= 512 else {
            return await back("invalid_request", "state is required (at most 512 bytes)")
        }
        let resource = query.value("resource") ?? configuration.resource
        guard resource == configuration.resource else {
            return await back("invalid_target", "resource must be \(configuration.resource)")
        }
        var scopeText = query.value("scope") ?? ""
        do {
            if try OAuthScope(parsing: scopeText).isEmpty { scopeText = (scopeText + " health:read").trimmingCharacters(in: .whitespaces) }
        } catch {
            return await back("invalid_scope", error.message)
        }
        guard let origin = configuration.consentOrigin() else {
            return await back("temporarily_unavailable", "the HealthBridge console (where the person consents) is not running")
        }
        do {
            let id = try await service.oauthBeginAuthorization(OAuthAuthorizationRequest(
                clientID: client.clientID, redirectURI: redirectURI, codeChallenge: challenge, state: state,
                resource: resource, scope: scopeText, expiresAt: Date().addingTimeInterval(OAuthLifetimes().consent)))
            return Self.found(origin + "/consent?request=" + id)
        } catch {
            logger.error("oauth: the request could not be kept", metadata: ["error": "\(String(describing: type(of: error)))"])
            return await back("server_error", "the request could not be kept")
        }
    }

    /// The client of `clientID`: its metadata document fetched now (an https URL), else a registered client.
    func resolveClient(_ clientID: String) async throws -> OAuthClientRecord {
        if clientID.hasPrefix("https://") || clientID.hasPrefix("http://") {
            let metadata = try await fetcher.fetch(clientID)
            return try await service.oauthRecordClient(clientID: clientID, name: metadata.name, source: .metadataDocument,
                                                       redirectURIs: metadata.redirectURIs)
        }
        guard configuration.dynamicRegistration, let client = try await service.oauthClient(id: clientID),
              client.source == .registered else {
            throw HealthError(.invalidArgument, "unknown client_id: give the URL of the client's metadata document")
        }
        guard client.revokedAt == nil else { throw HealthError(.notAuthorized, "the owner revoked this client") }
        return client
    }

    /// Exact match; for `http` on loopback any port (RFC 8252 §7.3: native apps listen on an ephemeral port).
    static func redirectMatches(_ uri: String, _ registered: [String]) -> Bool {
        if registered.contains(uri) { return true }
        guard var given = URLComponents(string: uri), given.scheme == "http", let host = given.host,
              Loopback.isLoopback(host) else { return false }
        given.port = nil
        return registered.contains { candidate in
            guard var other = URLComponents(string: candidate), other.scheme == "http" else { return false }
            other.port = nil
            return other.string == given.string
        }
    }

    func refusePage(_ message: String, reason: String, principal: String? = nil) async -> Response {
        await service.oauthAudit("authorize.refuse", principal: principal, decision: .denied, reason: reason)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .badRequest, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: "Authorization refused: \(message)\n")))
    }

    // MARK: Token, revoke, register

    /// `POST /oauth/token`.
    func token(_ request: Request) async -> Response {
        if let refusal = limited("token") { return refusal }
        guard let form = await Self.form(request) else {
            return Self.oauthError("invalid_request", "the body must be application/x-www-form-urlencoded, at most 64 KB")
        }
        guard let clientID = form.value("client_id") else {
            return Self.oauthError("invalid_client", "client_id is required (public clients, no secret)", status: .unauthorized)
        }
        do {
            let pair: OAuthTokenPair
            switch form.value("grant_type") {
            case "authorization_code":
                guard let code = form.value("code") else { return Self.oauthError("invalid_request", "code is required") }
                pair = try await service.oauthExchangeCode(code, clientID: clientID, redirectURI: form.value("redirect_uri"),
                                                           verifier: form.value("code_verifier"),
                                                           resource: form.value("resource"))
            case "refresh_token":
                guard let refresh = form.value("refresh_token") else {
                    return Self.oauthError("invalid_request", "refresh_token is required")
                }
                pair = try await service.oauthRefresh(refresh, clientID: clientID, resource: form.value("resource"))
            default:
                return Self.oauthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
            }
            return Self.json(["access_token": pair.accessToken, "token_type": "Bearer", "expires_in": pair.expiresIn,
                              "refresh_token": pair.refreshToken, "scope": pair.scope])
        } catch let error as HealthError {
            if error.argument == "resource" { return Self.oauthError("invalid_target", error.message) }
            return Self.oauthError(error.code == .unauthenticated ? "invalid_grant" : "invalid_request", error.message)
        } catch {
            logger.error("oauth: token request failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            return Self.oauthError("server_error", "the token could not be issued", status: .internalServerError)
        }
    }

    /// `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was known.
    func revoke(_ request: Request) async -> Response {
        if let refusal = limited("revoke") { return refusal }
        guard let form = await Self.form(request), let token = form.value("token") else {
            return Self.oauthError("invalid_request", "token is required")
        }
        do {
            try await service.oauthRevoke(token, clientID: form.value("client_id"))
        } catch {
            logger.error("oauth: revocation failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            return Self.oauthError("server_error", "the token could not be revoked", status: .internalServerError)
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// `POST /oauth/register` (RFC 7591): a public client with its redirect URIs.
    func register(_ request: Request) async -> Response {
        if let refusal = limited("register") { return refusal }
        guard let buffer = try? await request.body.collect(upTo: 64 << 10),
              let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any] else {
            return Self.oauthError("invalid_client_metadata", "the body must be a JSON object of at most 64 KB")
        }
        guard let uris = object["redirect_uris"] as? [String], (1...16).contains(uris.count),
              uris.allSatisfy(ClientMetadataFetcher.isAcceptableRedirect) else {
            return Self.oauthError("invalid_redirect_uri", "1 to 16 redirect_uris: https, http on loopback, or an app's own scheme")
        }
        if let method = object["token_endpoint_auth_method"] as? String, method != "none" {
            return Self.oauthError("invalid_client_metadata", "only public clients (token_endpoint_auth_method none)")
        }
        let name = (object["client_name"] as? String).map { String($0.prefix(100)) }.flatMap { $0.isEmpty ? nil : $0 }
        let clientID = "hbc-" + RandomToken.make()
        do {
            let client = try await service.oauthRecordClient(clientID: clientID, name: name ?? "Registered client",
                                                             source: .registered, redirectURIs: uris)
            await service.oauthAudit("client.register", principal: client.principal.id, decision: .allowed, reason: nil)
            return Self.json(["client_id": client.clientID, "client_id_issued_at": Int(client.createdAt.timeIntervalSince1970),
                              "client_name": client.name, "redirect_uris": client.redirectURIs,
                              "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
                              "response_types": ["code"]], status: .created)
        } catch {
            return Self.oauthError("server_error", "the client could not be registered", status: .internalServerError)
        }
    }

    // MARK: Helpers

    /// 429 with `Retry-After` when `kind` is over its rate.
    func limited(_ kind: String) -> Response? {
        guard case .limited(let retry) = limiter.check(kind) else { return nil }
        var response = Self.oauthError("temporarily_unavailable", "too many requests; retry in \(retry) s",
                                       status: .tooManyRequests)
        response.headers[.retryAfter] = String(retry)
        return response
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func oauthError(_ code: String, _ description: String, status: HTTPResponse.Status = .badRequest) -> Response {
        json(["error": code, "error_description": description], status: status)
    }

    static func found(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    static func form(_ request: Request) async -> Form? {
        guard let buffer = try? await request.body.collect(upTo: 64 << 10) else { return nil }
        return Form(String(buffer: buffer))
    }
}

/// An `application/x-www-form-urlencoded` body or query string; the first value of each name.
struct Form: Sendable {
    var fields: [(String, String)] = []

    init(_ text: String) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
    }

    /// The field, trimmed; nil when missing or blank.
    func value(_ name: String) -> String? {
        guard let text = fields.first(where: { $0.0 == name })?.1.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return nil
        }
        return text
    }
}

/// The MCP endpoint's check over the authorization server's tokens (``OAuthServer/authorizer(staticToken:anonymous:)``).
struct OAuthMCPAuthorizer: MCPRequestAuthorizer {
    let service: HealthService
    let resource: String
    let metadataURL: String
    let staticToken: String?
    let anonymous: Bool

    func authorize(bearer: String?) async -> MCPAuthorization {
        guard let bearer else {
            if anonymous { return .allow(nil) }
            return .refuse(status: 401, wwwAuthenticate: "Bearer resource_metadata=\"\(metadataURL)\"",
                           message: "Unauthorized: authorize with OAuth (see WWW-Authenticate) or send the endpoint's bearer token")
        }
        if let staticToken, ConstantTime.equals(bearer, staticToken) { return .allow(nil) }
        do {
            return .allow(try await service.oauthAuthenticate(accessToken: bearer, resource: resource))
        } catch {
            let message = (error as? HealthError)?.message ?? "the access token could not be checked"
            return .refuse(status: 401,
                           wwwAuthenticate: "Bearer error=\"invalid_token\", error_description=\"\(message.replacingOccurrences(of: "\"", with: "'"))\", resource_metadata=\"\(metadataURL)\"",
                           message: "Unauthorized: \(message)")
        }
    }
}
