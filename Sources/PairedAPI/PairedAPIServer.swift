import HealthAPI
import PairedAPIClient
import Foundation
import HealthAccess
import HTTPTypes
import HealthHTTP
import HealthModel
import HealthService
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Settings of the export API listener. Defaults are the production ones; tests shorten the timeouts.
public struct PairedAPIServerConfiguration: Sendable {
    /// Address to bind: `0.0.0.0` (every IPv4 interface, the default: it is a local-network server) or one address.
    public var host: String = "0.0.0.0"
    /// 0 picks a free port (tests).
    public var port: Int = PairedAPIProtocol.defaultPort
    /// Requests per second per client (token bucket, bursts of the same size); 0 disables.
    public var rateLimit: Double = 20
    /// The largest request body (and `Content-Length`) accepted.
    public var maxBodyBytes = Self.defaultMaxBodyBytes
    /// 64 KB: pairing and data requests are small JSON documents.
    public static let defaultMaxBodyBytes = 64 * 1024
    /// The largest Health Auto Export payload (`POST /api/v1/ingest/health-auto-export`): 64 MB.
    public var maxIngestBytes = IngestBatch.maxBytes
    /// The longest request target (path and query).
    public var maxURILength = 8 * 1024
    /// Closes a connection that has not completed a request head for this long: covers the TLS handshake, headers
    /// dripped slowly and keep-alive idling.
    public var idleTimeout: Duration = .seconds(30)
    /// A request must be received completely within this time after its head.
    public var requestTimeout: Duration = .seconds(10)
    /// The same for a Health Auto Export push (up to 64 MB from a phone on Wi-Fi), once its ingest token has
    /// authenticated; a request naming the path without one keeps `requestTimeout`.
    public var ingestRequestTimeout: Duration = .seconds(120)
    /// A response must be read by the client within this time.
    public var responseTimeout: Duration = .seconds(30)
    public var maxConnections = 512
    /// Open connections one peer address may hold: one host cannot take every connection.
    public var maxConnectionsPerAddress = 64
    /// A new connection must complete its TLS handshake and send a request head within this time.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Failed authentications (missing, unknown or revoked tokens) one address may make in a row, and how many per
    /// second it earns back; beyond them it is answered 429 without a token lookup. A rate of 0 disables.
    public var failedAuthBurst: Double = 10
    public var failedAuthRate: Double = 1
    /// Repeated refusals (bad tokens, wrong pairing codes) from one address are written as one audit entry with a
    /// count per window.
    public var auditNoiseWindow: Duration = .seconds(10)
    /// Wrong pairing codes from one address that are free before backing off, the first back-off and its cap (s).
    public var pairingFreeFailures = 3
    public var pairingBackoff: Double = 2
    public var pairingMaxBackoff: Double = 300
    public var auditFlushInterval: Duration = .milliseconds(200)
    /// How long TLS waits for the peer's close_notify.
    public var tlsShutdownTimeout: TimeAmount = .seconds(1)
    /// The name `status` reports when the person has not set one (`healthbridge sharing name`): the host name.
    public var defaultDeviceName: String = ProcessInfo.processInfo.hostName

    public init() {}
}

/// The HTTPS export API: `/api/v1` over TLS with the server's self-signed identity, paired clients with bearer tokens,
/// per-client rate limits, audit of every request. Build the router (tests) or the whole application (``application(onRunning:)``).
public struct PairedAPIServer: Sendable {
    public let configuration: PairedAPIServerConfiguration
    public let identity: ServerIdentity
    public let state: AccessStore
    public let service: HealthService
    public let audit: AuditLog
    public let logger: Logger
    let limiter: RateLimiter
    let throttle: PairingThrottle
    /// Failed authentications per peer address.
    let failedAuth: RateLimiter
    let connections: ConnectionLimiter

    public static let serverVersion = HealthBridgeVersion.current

    public init(configuration: PairedAPIServerConfiguration, identity: ServerIdentity, state: AccessStore,
                service: HealthService, logger: Logger) {
        self.configuration = configuration
        self.identity = identity
        self.state = state
        // Paired clients' writes are audited by the handlers, with the request id and the peer address.
        self.service = service.withAccess(state).auditing(to: nil)
        self.logger = logger
        self.audit = AuditLog(state: state, interval: configuration.auditFlushInterval,
                              noiseWindow: configuration.auditNoiseWindow, logger: logger)
        self.failedAuth = RateLimiter(rate: configuration.failedAuthRate, burst: configuration.failedAuthBurst)
        self.connections = ConnectionLimiter(perAddress: configuration.maxConnectionsPerAddress)
        self.limiter = RateLimiter(rate: configuration.rateLimit)
        self.throttle = PairingThrottle(freeFailures: configuration.pairingFreeFailures,
                                        base: configuration.pairingBackoff, maximum: configuration.pairingMaxBackoff)
    }

    // MARK: Application

    /// The Hummingbird application: TLS + HTTP/1.1 with the connection guards, the router, and the audit flusher as a
    /// service. `onRunning` gets the bound port.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        throws -> some ApplicationProtocol
    {
        let guardTimeouts = (TimeAmount(configuration.requestTimeout), TimeAmount(configuration.responseTimeout))
        let longRequest = (path: Self.ingestPath, timeout: TimeAmount(configuration.ingestRequestTimeout))
        let connections = self.connections
        let handshakeTimeout = TimeAmount(configuration.handshakeTimeout)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionAdmission(limiter: connections, handshakeTimeout: handshakeTimeout),
                                        ConnectionGuard(requestTimeout: guardTimeouts.0, responseTimeout: guardTimeouts.1,
                                                        longRequest: longRequest)],
            idleTimeout: TimeAmount(configuration.idleTimeout),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024,
                                            maxHeaderFieldCount: 100))
        let tls = try identity.serverTLSConfiguration(shutdownTimeout: configuration.tlsShutdownTimeout)
        var appConfiguration = ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                        serverName: nil, reuseAddress: true)
        appConfiguration.availableConnectionsDelegate = MaximumAvailableConnections(configuration.maxConnections)
        var app = Application(router: makeRouter(), server: try .tls(.http1(configuration: http1), tlsConfiguration: tls),
                              configuration: appConfiguration,
                              onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
                              logger: logger)
        app.addServices(AuditFlusher(audit: audit))
        return app
    }

    // MARK: Router

    /// Every route of the API (method and path), read from the router: the OpenAPI document is checked against it.
    ///
    /// ```swift
    /// server.routes.map(\.description)   // ["POST /api/v1/pair", "GET /api/v1/status", …]
    /// ```
    public var routes: [RouteEntry] { makeRouter().routeList }

    /// The API's router. Middlewares, one concern each: on every request (and the not-found answer) the request id,
    /// the audit entry, error answers and size limits; pairing needs nothing more; the receivers take an ingest
    /// token, their rate limit and the long body deadline; everything else, and every request no route answers, a
    /// paired client's token and its rate limit (deny by default). A router's middleware applies to the routes added
    /// after it and to the not-found answer, so the order of this function is the policy.
    public func makeRouter() -> Router<PairedAPIContext> {
        let router = Router(context: PairedAPIContext.self)
        addEdge(to: router)
        let api = router.group(RouterPath(PairedAPIProtocol.basePath))
        api.post("pair") { request, context in try await self.pair(request, context) }
        let publicPaths = Set(router.routeList.map(\.path))
        addIngest(to: api)
        addClientAuthentication(to: router, publicPaths: publicPaths)
        api.get("status") { _, context in try await self.status(context) }
        api.get("health/types") { _, context in try await self.types(context) }
        api.get("health/data") { request, context in
            try await self.data(try DataQueryParser.fromQuery(request.uri), context)
        }
        api.post("health/data") { request, context in
            let body = try await request.body.collect(upTo: self.configuration.maxBodyBytes)
            return try await self.data(try DataQueryParser.fromBody(body), context)
        }
        addUseCases(to: api)
        addWrites(to: api)
        addAccess(to: api)
        api.get("openapi.json") { _, _ in
            Self.json(.ok, OpenAPIDocument.bytes)
        }
        return router
    }

    /// Request id (with `Cache-Control: no-store`), audit, error answers and size limits, on every request.
    func addEdge(to router: Router<PairedAPIContext>) {
        router.add(middleware: RequestIDMiddleware<PairedAPIContext>(responseHeaders: [.cacheControl: "no-store"]))
        router.add(middleware: RequestAudit(server: self))
        router.add(middleware: ErrorAnswers(server: self))
        let configuration = self.configuration
        router.add(middleware: RequestLimitsMiddleware<PairedAPIContext>(maxURILength: configuration.maxURILength) { path in
            Self.ingestPaths.contains(path)
                ? .init(bytes: configuration.maxIngestBytes, message: Self.ingestTooLarge(configuration.maxIngestBytes).error.message)
                : .init(bytes: configuration.maxBodyBytes,
                        message: "the request body is larger than \(configuration.maxBodyBytes / 1024) KB")
        })
    }

    /// A paired client's token and its rate limit on the routes added after this, and on requests no route answers.
    func addClientAuthentication(to router: Router<PairedAPIContext>, publicPaths: Set<String>) {
        router.add(middleware: ClientAuthentication(server: self, publicPaths: publicPaths))
        router.add(middleware: RateLimitMiddleware<PairedAPIContext>(
            limiter: limiter, message: "more than \(Self.format(configuration.rateLimit)) requests per second") { $0.client?.id })
    }

    /// The longest bearer token the API reads (its tokens are 43 characters).
    static let maxTokenLength = 128

    static func format(_ value: Double) -> String {
        if let whole = value.checkedInt64(), Double(whole) == value, abs(value) < 1e15 { return String(whole) }
        return String(value)
    }

    // MARK: Handlers

    func pair(_ request: Request, _ context: PairedAPIContext) async throws -> Response {
        let address = context.remoteAddress
        if let retry = throttle.retryAfter(address) {
            audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                    detail: .init(reason: "PAIR_BACKOFF")))
            context.trace.setReason("PAIR_BACKOFF")
            throw APIError(.tooManyRequests, .rateLimited,
                           "too many wrong pairing codes from this address; wait \(retry) s", retryAfter: retry)
        }
        let body = try await request.body.collect(upTo: configuration.maxBodyBytes)
        let pairing = try DataQueryParser.decode(PairRequest.self, body)
        let code = AccessStore.normalizeCode(pairing.code)
        let name = pairing.clientName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...32).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw APIError(.badRequest, .invalidArgument, "code must be 1 to 32 letters and digits")
        }
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.badRequest, .invalidArgument, "clientName must be 1 to 64 printable characters")
        }
        if let appId = pairing.appId, !PairRequest.isValidAppId(appId) {
            throw APIError(.badRequest, .invalidArgument, "appId must be 1 to 128 letters, digits, '.', '-' or '_'")
        }
        let outcome = try await service.pair(code: code, clientName: name, appId: pairing.appId, address: address)
        let failure: (String, String)
        switch outcome {
        case .paired(let token, let clientID):
            throttle.succeeded(address)
            let hash = AccessStore.clientHash(clientID)
            context.trace.setClient(hash)
            // The app id is the one the owner issued the code for, never the client's claim.
            let appId = try await service.pairedClient(id: clientID)?.appId
            let principal = appId.map { Principal(kind: .app, name: $0) } ?? .device(clientID)
            audit.record(AuditEvent(event: .pairSuccess, requestId: context.requestId, client: hash, address: address,
                                    detail: .init(clientName: name, principal: principal.id)))
            logger.info("paired a new client", metadata: ["client": "\(hash)", "requestId": "\(context.requestId)"])
            let deviceName = (try await service.sharingStatus().deviceName) ?? configuration.defaultDeviceName
            let answer = PairResponse(token: token, clientId: clientID, deviceName: deviceName, appId: appId)
            return Self.json(.ok, try JSONEncoder.wire.encode(answer))
        case .invalid(let burnt):
            failure = burnt ? ("PAIR_CODE_INVALID", "wrong pairing code; too many wrong codes: the active codes are burnt, issue a new one")
                            : ("PAIR_CODE_INVALID", "wrong pairing code")
        case .expired:
            failure = ("PAIR_CODE_EXPIRED", "this pairing code has expired; issue a new one with `healthbridge pair-code`")
        case .burnt:
            failure = ("PAIR_CODE_BURNT", "this pairing code was burnt by too many wrong attempts; issue a new one")
        case .used:
            failure = ("PAIR_CODE_USED", "this pairing code was already used; issue a new one")
        case .appMismatch:
            // Not a wrong code (no back-off), but never an app identity the owner did not confirm.
            audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                    detail: .init(reason: "PAIR_APP_NOT_ISSUED", principal: pairing.appId.map { "app:\($0)" })))
            context.trace.setReason("PAIR_APP_NOT_ISSUED")
            throw HealthError(.notAuthorized,
                              "this pairing code was not issued for app '\(pairing.appId ?? "")': the owner issues one with `healthbridge pair-code --app \(pairing.appId ?? "ID")` (or on the console's Pairing page)")
        case .lockedOut(let retry):
            audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                    detail: .init(reason: "PAIR_LOCKED_OUT")))
            context.trace.setReason("PAIR_LOCKED_OUT")
            throw APIError(.tooManyRequests, .rateLimited,
                           "too many wrong pairing codes from this address; ask for a new code or wait \(retry) s",
                           retryAfter: retry)
        }
        throttle.failed(address)
        audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                detail: .init(reason: failure.0)))
        throw APIError(.unauthorized, .unauthenticated, failure.1)
    }

    func status(_ context: PairedAPIContext) async throws -> Response {
        let sharing = try context.sharing ?? state.sharing()
        let last = [sharing.lastExport, audit.pendingLastExport].compactMap { $0 }.max()
        // The names alone (an index probe per type), never the counts: status costs the same whatever the store holds.
        let shared = try await deviceService(context).typeNames(includingGranted: true)
        let answer = StatusResponse(serverVersion: Self.serverVersion, deviceName: sharing.deviceName ?? configuration.defaultDeviceName,
                                    sharing: sharing.state, enabledTypes: shared,
                                    lastExport: last.map { ISO8601.string($0) })
        return Self.json(.ok, try JSONEncoder.wire.encode(answer))
    }

    func types(_ context: PairedAPIContext) async throws -> Response {
        let result = try await APIError.listing("types") { try await deviceService(context).sharedTypes() }
        let infos = result.types.map { type in
            ExportTypeInfo(type: type.type, kind: type.kind, displayName: type.displayName, unit: type.unit,
                           count: type.count, first: type.first, last: type.last)
        }
        auditRead(context, principal: deviceService(context).principal, types: infos.map(\.type), count: infos.count)
        return Self.json(.ok, try JSONEncoder.wire.encode(TypesResponse(status: .ok, types: infos)))
    }

    func data(_ request: TypedSamplesRequest, _ context: PairedAPIContext) async throws -> Response {
        let result = try await APIError.listing("samples") { try await deviceService(context).samples(ofTypes: request) }
        let samples = result.samples.map { item in
            ExportSample(type: item.type, dateISO: item.sample.start, endDateISO: item.sample.end,
                         value: item.sample.value, unit: item.sample.unit, category: item.sample.category,
                         source: item.sample.source)
        }
        let now = Date()
        audit.exported(at: now)
        audit.record(AuditEvent(event: .dataRead, requestId: context.requestId, client: context.client?.auditId,
                                address: context.remoteAddress,
                                detail: .init(types: result.types, sampleCount: samples.count,
                                              start: ISO8601.string(result.start), end: ISO8601.string(result.end),
                                              principal: deviceService(context).principal.id)))
        return Self.json(.ok, DataResponseWriter.encode(status: .ok, samples: samples, nextCursor: result.nextCursor))
    }

    /// The service acting for the paired client of this request: `app:<appId>` for a client that redeemed a code
    /// issued for that app (HealthBridgeKit; read denial is never revealed to it), else `device:<clientId>`. The
    /// client's id goes along, so that its access requests are its own.
    func deviceService(_ context: PairedAPIContext) -> HealthService {
        guard let client = context.client else { return service.acting(as: .device("unknown")) }
        return service.acting(as: client.principal, client: client.id)
    }

    // MARK: Responses

    static func json(_ status: HTTPResponse.Status, _ bytes: some Sequence<UInt8>) -> Response {
        Response.json(status, bytes)
    }
}

// MARK: - Request context

/// Per-request state: the request id, the authenticated client and the sharing settings read with it.
public struct PairedAPIContext: RequestIdentifyingContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: String
    public var requestId = ""
    public var client: AccessStore.Client?
    public var sharing: AccessStore.Sharing?
    /// The ingest token's name on the Health Auto Export route (the principal `ingest:NAME`).
    public var ingestName: String?
    /// Shared by every copy of this context: lets the outer middleware learn what handlers found out.
    let trace = RequestTrace()
    /// The connection: the gatekeeper tells its ``ConnectionGuard`` when a push may take the long deadline.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        channel = source.channel
    }

    public var maxUploadSize: Int { PairedAPIServerConfiguration.defaultMaxBodyBytes }
}

final class RequestTrace: Sendable {
    private let value = Mutex<(client: String?, reason: String?, types: [String]?)>((nil, nil, nil))
    func setClient(_ hash: String) { value.withLock { $0.client = hash } }
    func setReason(_ reason: String, types: [String]? = nil) {
        value.withLock { $0.reason = reason; $0.types = types ?? $0.types }
    }
    var client: String? { value.withLock { $0.client } }
    var reason: String? { value.withLock { $0.reason } }
    /// What the audit entry of a refused request says about it: a reason code and the type names involved.
    var detail: AuditEvent.Detail? {
        value.withLock { $0.reason == nil && $0.types == nil ? nil : AuditEvent.Detail(types: $0.types, reason: $0.reason) }
    }
}

// MARK: - Errors

/// An error answer: an HTTP status and a ``HealthError`` (the one vocabulary of every interface). Rendered as
/// `{"status": "error" | "no_permission" | "locked", "error": {"code", "message"}, "requestId"}` (plus
/// `deniedTypes` and an empty `samples` for `no_permission`, as the export protocol says).
struct APIError: Error {
    var status: HTTPResponse.Status
    var error: HealthError
    var retryAfter: Int?
    /// The list the endpoint's answer holds (`samples`, `types`), given empty in `no_permission` and `locked` answers
    /// as the export protocol's shapes have it.
    var emptyList: String?
    /// What the audit entry gives as the reason (`RATE_LIMITED`, `AUTH_BACKOFF`); the code when nil.
    var auditReason: String?

    init(_ status: HTTPResponse.Status, _ code: HealthError.Code, _ message: String, retryAfter: Int? = nil) {
        self.status = status; self.error = HealthError(code, message); self.retryAfter = retryAfter
    }

    /// The error with the status of the one table (``HealthError/Code/httpStatus``), its hint in this API's words
    /// (``PairedAPIServer/hint(_:)``).
    init(_ error: HealthError, emptyList: String? = nil) {
        self.status = error.code.httpStatus
        self.error = error.rendered(PairedAPIServer.hint)
        self.emptyList = emptyList
    }

    /// A refusal of a shared middleware (limits, authentication, rate limit), in this API's shape.
    init(_ failure: HTTPFailure) {
        self.status = failure.status
        self.error = failure.error
        self.retryAfter = failure.retryAfter
        self.auditReason = failure.auditReason
    }

    /// Runs an endpoint whose answers carry `list`: its refusals carry it too, empty.
    static func listing<T>(_ list: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HealthError where error.code == .notAuthorized || error.code == .sharingPaused {
            throw APIError(error, emptyList: list)
        }
    }

    var code: String { error.code.rawValue }

    /// Any error, as the client will see it. Internal details are logged, not sent.
    static func from(_ error: any Error, logger: Logger, requestId: String) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let failure as HTTPFailure:
            return APIError(failure)
        case let error as HealthError:
            switch error.code {
            case .storeUnavailable:
                logger.error("store unavailable", metadata: ["requestId": "\(requestId)", "error": "\(error.code.rawValue)"])
                return APIError(.serviceUnavailable, error.code, "the health store is not available")
            case .internalError:
                logger.error("request failed", metadata: ["requestId": "\(requestId)", "error": "\(error.code.rawValue)"])
                return APIError(.internalServerError, .internalError, "internal error")
            default:
                return APIError(error)
            }
        case let error as any HTTPResponseError:
            switch error.status {
            case .contentTooLarge:
                return APIError(.contentTooLarge, .payloadTooLarge,
                                "the request body is larger than \(PairedAPIServerConfiguration.defaultMaxBodyBytes / 1024) KB")
            case .notFound:
                return APIError(.notFound, .notFound, "no such endpoint (GET /api/v1/openapi.json lists them)")
            case .methodNotAllowed:
                return APIError(.methodNotAllowed, .invalidArgument, "method not allowed on this endpoint")
            default:
                // Any other refusal by the HTTP layer, in the one vocabulary.
                return APIError(error.status, error.status.code < 500 ? .invalidArgument : .internalError,
                                error.status.reasonPhrase)
            }
        default:
            logger.error("request failed", metadata: ["requestId": "\(requestId)", "errorType": "\(type(of: error))"])
            return APIError(.internalServerError, .internalError, "internal error")
        }
    }

    func response(requestId: String) -> Response {
        var body: [String: JSONValue] = [
            "status": "error",
            "error": ["code": .string(error.code.rawValue), "message": .string(error.message)],
            "requestId": .string(requestId),
        ]
        switch error.code {
        case .notAuthorized where error.deniedTypes != nil:
            body["status"] = "no_permission"
            body["deniedTypes"] = .array((error.deniedTypes ?? []).map { .string($0) })
        case .sharingPaused:
            body["status"] = "locked"
        default:
            break
        }
        if let emptyList, error.code == .notAuthorized || error.code == .sharingPaused { body[emptyList] = [] }
        var response = PairedAPIServer.json(status, JSONValue.object(body).serialized())
        HTTPFailure(status, error.code, error.message, retryAfter: retryAfter).apply(to: &response.headers)
        return response
    }
}

/// Writes pending audit entries every flush interval while the server runs, and once more when it stops.
struct AuditFlusher: Service {
    let audit: AuditLog
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await audit.run()
        }
        await audit.flush()
    }
}
