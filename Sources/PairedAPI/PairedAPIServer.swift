import HealthAPI
import PairedAPIClient
import Foundation
import HTTPTypes
import HealthEngine
import HealthModel
import HealthService
import HealthStore
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
    public var maxIngestBytes = HealthService.maxIngestBytes
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
    public let state: ExportState
    public let service: HealthService
    public let audit: AuditLog
    public let logger: Logger
    let limiter: RateLimiter
    let throttle: PairingThrottle
    /// Failed authentications per peer address.
    let failedAuth: RateLimiter
    let connections: ConnectionLimiter

    public static let serverVersion = HealthBridgeVersion.current

    public init(configuration: PairedAPIServerConfiguration, identity: ServerIdentity, state: ExportState,
                service: HealthService, logger: Logger) {
        self.configuration = configuration
        self.identity = identity
        self.state = state
        // Paired clients' writes are audited by the handlers, with the request id and the peer address.
        self.service = service.auditing(to: nil)
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

    public static let routes: [(method: String, path: String)] = [
        ("POST", "/api/v1/pair"),
        ("GET", "/api/v1/status"),
        ("GET", "/api/v1/health/types"),
        ("GET", "/api/v1/health/data"),
        ("POST", "/api/v1/health/data"),
        ("GET", "/api/v1/health/statistics"),
        ("GET", "/api/v1/health/coverage"),
        ("GET", "/api/v1/health/latest"),
        ("GET", "/api/v1/health/sleep"),
        ("GET", "/api/v1/health/workouts"),
        ("GET", "/api/v1/health/workouts/{uuid}"),
        ("GET", "/api/v1/health/activity"),
        ("GET", "/api/v1/health/sources"),
        ("GET", "/api/v1/health/today"),
        ("GET", "/api/v1/health/energy"),
        ("GET", "/api/v1/health/changes"),
        ("POST", "/api/v1/health/samples"),
        ("POST", "/api/v1/log/food"),
        ("POST", "/api/v1/log/weight"),
        ("POST", "/api/v1/log/water"),
        ("POST", "/api/v1/log/workout"),
        ("DELETE", "/api/v1/log/{logId}"),
        ("POST", "/api/v1/access/requests"),
        ("GET", "/api/v1/access/status"),
        ("POST", "/api/v1/ingest/health-auto-export"),
        ("POST", "/api/v1/ingest/health-connect"),
        ("GET", "/api/v1/openapi.json"),
    ]

    public func makeRouter() -> Router<PairedAPIContext> {
        let router = Router(context: PairedAPIContext.self)
        router.add(middleware: Gatekeeper(server: self))
        let api = router.group(RouterPath(PairedAPIProtocol.basePath))
        api.post("pair") { request, context in try await self.pair(request, context) }
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
        addIngest(to: api)
        api.get("openapi.json") { _, _ in
            Self.json(.ok, OpenAPIDocument.bytes)
        }
        return router
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
        let code = ExportState.normalizeCode(pairing.code)
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
        let outcome = try await state.redeem(code: code, clientName: name, appId: pairing.appId, address: address)
        let failure: (String, String)
        switch outcome {
        case .paired(let token, let clientID):
            throttle.succeeded(address)
            let hash = ExportState.clientHash(clientID)
            context.trace.setClient(hash)
            // The app id is the one the owner issued the code for, never the client's claim.
            let appId = try await state.client(id: clientID)?.appId
            let principal = appId.map { Principal(kind: .app, name: $0) } ?? .device(clientID)
            audit.record(AuditEvent(event: .pairSuccess, requestId: context.requestId, client: hash, address: address,
                                    detail: .init(clientName: name, principal: principal.id)))
            logger.info("paired a new client", metadata: ["client": "\(hash)", "requestId": "\(context.requestId)"])
            let deviceName = (try await state.currentSharing().deviceName) ?? configuration.defaultDeviceName
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
        let shared = try await deviceService(context).types(includingGranted: true).types.map(\.type)
        let answer = StatusResponse(serverVersion: Self.serverVersion, deviceName: sharing.deviceName ?? configuration.defaultDeviceName,
                                    sharing: sharing.state, enabledTypes: shared,
                                    lastExport: last.map { ISO8601.string($0) })
        return Self.json(.ok, try JSONEncoder.wire.encode(answer))
    }

    func types(_ context: PairedAPIContext) async throws -> Response {
        let result = try await APIError.listing("types") {
            try requireSharing(context)
            return try await deviceService(context).types(includingGranted: true)
        }
        let infos = result.types.map { type in
            ExportTypeInfo(type: type.type, kind: type.kind, displayName: type.displayName, unit: type.unit,
                           count: type.count, first: type.first, last: type.last)
        }
        auditRead(context, principal: deviceService(context).principal, types: infos.map(\.type), count: infos.count)
        return Self.json(.ok, try JSONEncoder.wire.encode(TypesResponse(status: .ok, types: infos)))
    }

    func data(_ request: TypedSamplesRequest, _ context: PairedAPIContext) async throws -> Response {
        let result = try await APIError.listing("samples") {
            try requireSharing(context)
            return try await deviceService(context).samples(ofTypes: request)
        }
        let samples = result.samples.map { item in
            ExportSample(type: item.type, dateISO: item.sample.dateISO, endDateISO: item.sample.endDateISO,
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

    /// Paused sharing: health endpoints answer `423 locked` with no data.
    func requireSharing(_ context: PairedAPIContext) throws {
        let sharing = try context.sharing ?? state.sharing()
        if sharing.state == .paused {
            throw HealthError(.sharingPaused, "sharing is paused on the server (`healthbridge sharing resume`)")
        }
    }

    // MARK: Responses

    static func json(_ status: HTTPResponse.Status, _ bytes: some Sequence<UInt8>) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

// MARK: - Request context

/// Per-request state: the request id, the authenticated client and the sharing settings read with it.
public struct PairedAPIContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: String
    public var requestId = ""
    public var client: ExportState.Client?
    public var sharing: ExportState.Sharing?
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

    init(_ status: HTTPResponse.Status, _ code: HealthError.Code, _ message: String, retryAfter: Int? = nil) {
        self.status = status; self.error = HealthError(code, message); self.retryAfter = retryAfter
    }

    init(_ error: HealthError, emptyList: String? = nil) {
        self.status = Self.status(for: error.code)
        self.error = error
        self.emptyList = emptyList
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

    /// The HTTP status that fits each code.
    static func status(for code: HealthError.Code) -> HTTPResponse.Status {
        switch code {
        case .invalidType, .invalidRange, .invalidArgument, .invalidUnit, .invalidTimeZone, .noSummary,
             .importMalformed, .importRejected: .badRequest
        case .notAuthorized: .forbidden
        case .unauthenticated: .unauthorized
        case .notFound: .notFound
        case .conflict: .conflict
        case .rateLimited: .tooManyRequests
        case .payloadTooLarge: .contentTooLarge
        case .sharingPaused: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
        case .storeUnavailable: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }

    /// Any error, as the client will see it. Internal details are logged, not sent.
    static func from(_ error: any Error, logger: Logger, requestId: String) -> APIError {
        switch error {
        case let error as APIError:
            return error
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
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer realm=\"healthbridge\"" }
        return response
    }
}

// MARK: - Gatekeeper

/// The one middleware every request passes: request id, size limits, authentication (deny by default: every route
/// but `POST /api/v1/pair` needs a valid, unrevoked token), per-client rate limit, error answers as JSON, the
/// `X-Request-Id` header, and the `api.request` audit entry.
struct Gatekeeper: RouterMiddleware {
    typealias Context = PairedAPIContext
    let server: PairedAPIServer

    static let pairPath = PairedAPIProtocol.basePath + "/pair"

    func handle(_ request: Request, context: PairedAPIContext,
                next: (Request, PairedAPIContext) async throws -> Response) async throws -> Response {
        var context = context
        let requestId = Self.newRequestID()
        context.requestId = requestId
        let path = request.uri.path
        var response: Response
        do {
            if request.uri.string.utf8.count > server.configuration.maxURILength {
                throw APIError(.uriTooLong, .payloadTooLarge, "the request target is longer than \(server.configuration.maxURILength) bytes")
            }
            let ingest = PairedAPIServer.ingestPaths.contains(path)
            if let length = request.headers[.contentLength] {
                guard let value = Int(length), value >= 0 else {
                    throw APIError(.badRequest, .invalidArgument, "invalid Content-Length")
                }
                if ingest, value > server.configuration.maxIngestBytes {
                    throw PairedAPIServer.ingestTooLarge(server.configuration.maxIngestBytes)
                }
                if !ingest, value > server.configuration.maxBodyBytes {
                    throw APIError(.contentTooLarge, .payloadTooLarge,
                                   "the request body is larger than \(server.configuration.maxBodyBytes / 1024) KB")
                }
            }
            if ingest {
                try await authenticateIngest(request, &context)
            } else if path != Self.pairPath {
                let address = context.remoteAddress
                if let retry = server.failedAuth.retryAfter(address) {
                    context.trace.setReason("AUTH_BACKOFF")
                    throw APIError(.tooManyRequests, .rateLimited,
                                   "too many failed authentications from this address; wait \(retry) s", retryAfter: retry)
                }
                guard let token = Self.bearerToken(request), !token.isEmpty else {
                    server.failedAuth.charge(address)
                    throw APIError(.unauthorized, .unauthenticated, "pair first: every endpoint needs `Authorization: Bearer <token>`")
                }
                let snapshot = try await server.state.snapshot(tokenHash: ExportState.tokenHash(token))
                guard let client = snapshot.client else {
                    server.failedAuth.charge(address)
                    throw APIError(.unauthorized, .unauthenticated, "unknown token; pair again")
                }
                context.trace.setClient(client.auditId)
                guard !client.isRevoked else {
                    server.failedAuth.charge(address)
                    throw APIError(.unauthorized, .unauthenticated, "this client was revoked; pair again")
                }
                if case .limited(let retry) = server.limiter.check(client.id) {
                    context.trace.setReason("RATE_LIMITED")
                    throw APIError(.tooManyRequests, .rateLimited,
                                   "more than \(Self.format(server.configuration.rateLimit)) requests per second",
                                   retryAfter: retry)
                }
                server.audit.clientSeen(client.id, at: Date())
                context.client = client
                context.sharing = snapshot.sharing
            }
            response = try await next(request, context)
        } catch {
            let apiError = APIError.from(error, logger: server.logger, requestId: requestId)
            if context.trace.reason == nil { context.trace.setReason(apiError.code, types: apiError.error.deniedTypes) }
            response = apiError.response(requestId: requestId)
        }
        response.headers[.xRequestID] = requestId
        response.headers[.cacheControl] = "no-store"
        let status = Int(response.status.code)
        let denied = [401, 403, 423, 429].contains(status)
        var route = context.endpointPath ?? "unmatched"
        if route == "NotFound" || route.utf8.count > 100 { route = "unmatched" }
        server.audit.record(AuditEvent(
            event: .apiRequest, requestId: requestId, client: context.trace.client, address: context.remoteAddress,
            method: request.method.rawValue.count <= 16 ? request.method.rawValue : "OTHER", route: route, status: status,
            decision: denied ? .denied : .allowed,
            detail: context.trace.detail))
        // The entries of this request (its data read, its pairing) are durable before the answer leaves.
        do {
            try await server.audit.commit()
        } catch {
            server.logger.error("cannot write the audit log; withholding the answer", metadata: ["requestId": "\(requestId)"])
            response = APIError(.serviceUnavailable, .storeUnavailable,
                                "the audit log cannot be written; try again later").response(requestId: requestId)
            response.headers[.xRequestID] = requestId
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }

    static func bearerToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "" }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard token.utf8.count <= 128, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "" }
        return token
    }

    static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        let a = generator.next() as UInt64, b = generator.next() as UInt32
        return CertificateFingerprint.hex(withUnsafeBytes(of: a.bigEndian) { Array($0) } + withUnsafeBytes(of: b.bigEndian) { Array($0) })
    }

    static func format(_ value: Double) -> String {
        if let whole = value.checkedInt64(), Double(whole) == value, abs(value) < 1e15 { return String(whole) }
        return String(value)
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name(PairedAPIProtocol.requestIDHeader)!
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
