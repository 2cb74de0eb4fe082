import ExportClient
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
public struct ExportServerConfiguration: Sendable {
    /// Address to bind: `0.0.0.0` (every IPv4 interface, the default: it is a local-network server) or one address.
    public var host: String = "0.0.0.0"
    /// 0 picks a free port (tests).
    public var port: Int = ExportAPI.defaultPort
    /// Requests per second per client (token bucket, bursts of the same size); 0 disables.
    public var rateLimit: Double = 20
    /// The largest request body (and `Content-Length`) accepted.
    public var maxBodyBytes = 64 * 1024
    /// The longest request target (path and query).
    public var maxURILength = 8 * 1024
    /// Closes a connection that has not completed a request head for this long: covers the TLS handshake, headers
    /// dripped slowly and keep-alive idling.
    public var idleTimeout: Duration = .seconds(30)
    /// A request must be received completely within this time after its head.
    public var requestTimeout: Duration = .seconds(10)
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
    /// The longest `start…end` range a data request may ask for.
    public var maxRange: TimeInterval = 366 * 86_400
    public var defaultLimit = 1_000
    public var maxLimit = 5_000
    public var maxTypesPerRequest = 32
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
public struct ExportServer: Sendable {
    public let configuration: ExportServerConfiguration
    public let identity: ExportIdentity
    public let state: ExportState
    public let service: HealthService
    public let audit: AuditLog
    public let logger: Logger
    let limiter: RateLimiter
    let throttle: PairingThrottle
    /// Failed authentications per peer address.
    let failedAuth: RateLimiter
    let connections: ConnectionLimiter

    public static let serverVersion = "0.1.0"

    public init(configuration: ExportServerConfiguration, identity: ExportIdentity, state: ExportState,
                service: HealthService, logger: Logger) {
        self.configuration = configuration
        self.identity = identity
        self.state = state
        self.service = service
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
        let connections = self.connections
        let handshakeTimeout = TimeAmount(configuration.handshakeTimeout)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionAdmission(limiter: connections, handshakeTimeout: handshakeTimeout),
                                        ConnectionGuard(requestTimeout: guardTimeouts.0, responseTimeout: guardTimeouts.1)],
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
        ("GET", "/api/v1/openapi.json"),
    ]

    public func makeRouter() -> Router<ExportContext> {
        let router = Router(context: ExportContext.self)
        router.add(middleware: Gatekeeper(server: self))
        let api = router.group(RouterPath(ExportAPI.basePath))
        api.post("pair") { request, context in try await self.pair(request, context) }
        api.get("status") { _, context in try await self.status(context) }
        api.get("health/types") { _, context in try await self.types(context) }
        api.get("health/data") { request, context in
            try await self.data(try DataQueryParser.fromQuery(request.uri, self.configuration), request, context)
        }
        api.post("health/data") { request, context in
            let body = try await request.body.collect(upTo: self.configuration.maxBodyBytes)
            return try await self.data(try DataQueryParser.fromBody(body, self.configuration), request, context)
        }
        api.get("openapi.json") { _, _ in
            Self.json(.ok, OpenAPIDocument.bytes)
        }
        return router
    }

    // MARK: Handlers

    func pair(_ request: Request, _ context: ExportContext) async throws -> Response {
        let address = context.remoteAddress
        if let retry = throttle.retryAfter(address) {
            audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                    detail: .init(reason: "PAIR_BACKOFF")))
            context.trace.setReason("PAIR_BACKOFF")
            throw APIError(.tooManyRequests, HealthError.Code.rateLimited.rawValue,
                           "too many wrong pairing codes from this address; wait \(retry) s", retryAfter: retry)
        }
        let body = try await request.body.collect(upTo: configuration.maxBodyBytes)
        let pairing = try DataQueryParser.decode(PairRequest.self, body)
        let code = ExportState.normalizeCode(pairing.code)
        let name = pairing.clientName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...32).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw APIError(.badRequest, "INVALID_ARGUMENT", "code must be 1 to 32 letters and digits")
        }
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.badRequest, "INVALID_ARGUMENT", "clientName must be 1 to 64 printable characters")
        }
        let outcome = try await state.redeem(code: code, clientName: name, address: address)
        let failure: (String, String)
        switch outcome {
        case .paired(let token, let clientID):
            throttle.succeeded(address)
            let hash = ExportState.clientHash(clientID)
            context.trace.setClient(hash)
            audit.record(AuditEvent(event: .pairSuccess, requestId: context.requestId, client: hash, address: address,
                                    detail: .init(clientName: name)))
            logger.info("paired a new client", metadata: ["client": "\(hash)", "requestId": "\(context.requestId)"])
            let deviceName = (try await state.currentSharing().deviceName) ?? configuration.defaultDeviceName
            let answer = PairResponse(token: token, clientId: clientID, deviceName: deviceName)
            return Self.json(.ok, try JSONEncoder.exportWire.encode(answer))
        case .invalid(let burnt):
            failure = burnt ? ("PAIR_CODE_INVALID", "wrong pairing code; too many wrong codes: the active codes are burnt, issue a new one")
                            : ("PAIR_CODE_INVALID", "wrong pairing code")
        case .expired:
            failure = ("PAIR_CODE_EXPIRED", "this pairing code has expired; issue a new one with `healthbridge pair-code`")
        case .burnt:
            failure = ("PAIR_CODE_BURNT", "this pairing code was burnt by too many wrong attempts; issue a new one")
        case .used:
            failure = ("PAIR_CODE_USED", "this pairing code was already used; issue a new one")
        case .lockedOut(let retry):
            audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                    detail: .init(reason: "PAIR_LOCKED_OUT")))
            context.trace.setReason("PAIR_LOCKED_OUT")
            throw APIError(.tooManyRequests, HealthError.Code.rateLimited.rawValue,
                           "too many wrong pairing codes from this address; ask for a new code or wait \(retry) s",
                           retryAfter: retry)
        }
        throttle.failed(address)
        audit.record(AuditEvent(event: .pairFailure, requestId: context.requestId, address: address,
                                detail: .init(reason: failure.0)))
        throw APIError(.unauthorized, failure.0, failure.1)
    }

    func status(_ context: ExportContext) async throws -> Response {
        let sharing = try context.sharing ?? state.sharing()
        let last = [sharing.lastExport, audit.pendingLastExport].compactMap { $0 }.max()
        let answer = StatusResponse(serverVersion: Self.serverVersion, deviceName: sharing.deviceName ?? configuration.defaultDeviceName,
                                    sharing: sharing.state, enabledTypes: sharing.types,
                                    lastExport: last.map { ISO8601.string($0) })
        return Self.json(.ok, try JSONEncoder.exportWire.encode(answer))
    }

    func types(_ context: ExportContext) async throws -> Response {
        let sharing = try context.sharing ?? state.sharing()
        if sharing.state == .paused {
            return Self.locked(context, extra: ["types": .array([])])
        }
        let present = Dictionary(try await service.store.typeSummaries().map { ($0.type, $0) }, uniquingKeysWith: { a, _ in a })
        let infos: [ExportTypeInfo] = sharing.types.compactMap { identifier in
            guard let type = SampleTypeRegistry.registered(identifier) else { return nil }
            let summary = present[type.identifier]
            return ExportTypeInfo(type: type.identifier, kind: type.kind.rawValue, displayName: type.displayName,
                                  unit: type.canonicalUnit.map(HealthService.wireUnit), count: summary?.count ?? 0,
                                  first: summary?.first.map { ISO8601.string($0) }, last: summary?.last.map { ISO8601.string($0) })
        }
        return Self.json(.ok, try JSONEncoder.exportWire.encode(TypesResponse(status: .ok, types: infos)))
    }

    func data(_ query: DataQuery, _ request: Request, _ context: ExportContext) async throws -> Response {
        let sharing = try context.sharing ?? state.sharing()
        if sharing.state == .paused {
            return Self.locked(context, extra: ["samples": .array([])])
        }
        let shared = Set(sharing.types)
        let denied = query.types.map(\.identifier).filter { !shared.contains($0) }
        if !denied.isEmpty {
            context.trace.setReason("NOT_SHARED", types: denied)
            let body: JSONValue = [
                "status": "no_permission", "samples": [], "deniedTypes": .array(denied.map { .string($0) }),
                "error": ["code": "HEALTH_NOT_AUTHORIZED",
                          "message": .string("not shared with paired clients: \(denied.joined(separator: ", ")) (enable with `healthbridge sharing types --enable`)")],
                "requestId": .string(context.requestId),
            ]
            return Self.json(.forbidden, body.serialized())
        }
        // Read, type after type, from the cursor's position.
        var samples: [ExportSample] = []
        samples.reserveCapacity(min(query.limit, 1024))
        var next: DataCursor?
        var index = query.cursor?.typeIndex ?? 0
        var storeCursor = query.cursor?.storeCursor
        while index < query.types.count {
            let type = query.types[index]
            let remaining = query.limit - samples.count
            if remaining == 0 {
                next = DataCursor(typeIndex: index, storeCursor: nil, queryHash: query.hash)
                break
            }
            let page = try await service.store.samples(SampleQuery(
                type: type.identifier, start: query.start, end: query.end, matching: .strictStartDate,
                limit: remaining, ascending: true, cursor: storeCursor))
            for sample in page.samples {
                let wire = try service.wireSample(sample, type: type)
                samples.append(ExportSample(type: type.identifier, dateISO: wire.dateISO, endDateISO: wire.endDateISO,
                                            value: wire.value, unit: wire.unit, category: wire.category, source: wire.source))
            }
            if let cursor = page.nextCursor {
                next = DataCursor(typeIndex: index, storeCursor: cursor, queryHash: query.hash)
                break
            }
            index += 1
            storeCursor = nil
        }
        let now = Date()
        audit.exported(at: now)
        audit.record(AuditEvent(event: .dataRead, requestId: context.requestId, client: context.client?.auditId,
                                address: context.remoteAddress,
                                detail: .init(types: query.types.map(\.identifier), sampleCount: samples.count,
                                              start: ISO8601.string(query.start), end: ISO8601.string(query.end))))
        return Self.json(.ok, DataResponseWriter.encode(status: .ok, samples: samples, nextCursor: next?.encoded()))
    }

    // MARK: Responses

    static func json(_ status: HTTPResponse.Status, _ bytes: some Sequence<UInt8>) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func locked(_ context: ExportContext, extra: [String: JSONValue]) -> Response {
        context.trace.setReason("SHARING_PAUSED")
        var body: [String: JSONValue] = [
            "status": "locked",
            "error": ["code": "SHARING_PAUSED", "message": "sharing is paused on the server (`healthbridge sharing resume`)"],
            "requestId": .string(context.requestId),
        ]
        body.merge(extra) { _, new in new }
        return json(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), JSONValue.object(body).serialized())
    }
}

// MARK: - Request context

/// Per-request state: the request id, the authenticated client and the sharing settings read with it.
public struct ExportContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: String
    public var requestId = ""
    public var client: ExportState.Client?
    public var sharing: ExportState.Sharing?
    /// Shared by every copy of this context: lets the outer middleware learn what handlers found out.
    let trace = RequestTrace()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    public var maxUploadSize: Int { 64 * 1024 }
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

/// An error answer: HTTP status, stable code, message. Rendered as `{"status":"error","error":{…},"requestId":…}`.
struct APIError: Error {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status; self.code = code; self.message = message; self.retryAfter = retryAfter
    }

    /// Any error, as the client will see it. Internal details are logged, not sent.
    static func from(_ error: any Error, logger: Logger, requestId: String) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HealthError:
            switch error.code {
            case .invalidType, .invalidRange, .invalidArgument, .invalidUnit, .invalidTimeZone, .noSummary:
                return APIError(.badRequest, error.code.rawValue, error.message)
            case .notAuthorized:
                return APIError(.forbidden, error.code.rawValue, error.message)
            case .storeUnavailable:
                logger.error("store unavailable", metadata: ["requestId": "\(requestId)", "error": "\(error.code.rawValue)"])
                return APIError(.serviceUnavailable, error.code.rawValue, "the health store is not available")
            default:
                logger.error("request failed", metadata: ["requestId": "\(requestId)", "error": "\(error.code.rawValue)"])
                return APIError(.internalServerError, "INTERNAL", "internal error")
            }
        case let error as any HTTPResponseError:
            switch error.status {
            case .contentTooLarge:
                return APIError(.contentTooLarge, HealthError.Code.payloadTooLarge.rawValue, "the request body is larger than 64 KB")
            case .notFound:
                return APIError(.notFound, "NOT_FOUND", "no such endpoint")
            case .methodNotAllowed:
                return APIError(.methodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed on this endpoint")
            default:
                // Any other refusal by the HTTP layer, in the closed vocabulary.
                let code: ExportErrorCode = error.status.code < 500 ? .badRequest : .internal
                return APIError(error.status, code.rawValue, error.status.reasonPhrase)
            }
        default:
            logger.error("request failed", metadata: ["requestId": "\(requestId)", "errorType": "\(type(of: error))"])
            return APIError(.internalServerError, "INTERNAL", "internal error")
        }
    }

    func response(requestId: String) -> Response {
        let body: JSONValue = ["status": "error", "error": ["code": .string(code), "message": .string(message)],
                               "requestId": .string(requestId)]
        var response = ExportServer.json(status, body.serialized())
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
    typealias Context = ExportContext
    let server: ExportServer

    static let pairPath = ExportAPI.basePath + "/pair"

    func handle(_ request: Request, context: ExportContext,
                next: (Request, ExportContext) async throws -> Response) async throws -> Response {
        var context = context
        let requestId = Self.newRequestID()
        context.requestId = requestId
        let path = request.uri.path
        var response: Response
        do {
            if request.uri.string.utf8.count > server.configuration.maxURILength {
                throw APIError(.uriTooLong, "URI_TOO_LONG", "the request target is longer than \(server.configuration.maxURILength) bytes")
            }
            if let length = request.headers[.contentLength] {
                guard let value = Int(length), value >= 0 else {
                    throw APIError(.badRequest, "BAD_REQUEST", "invalid Content-Length")
                }
                if value > server.configuration.maxBodyBytes {
                    throw APIError(.contentTooLarge, HealthError.Code.payloadTooLarge.rawValue, "the request body is larger than 64 KB")
                }
            }
            if path != Self.pairPath {
                let address = context.remoteAddress
                if let retry = server.failedAuth.retryAfter(address) {
                    context.trace.setReason("AUTH_BACKOFF")
                    throw APIError(.tooManyRequests, HealthError.Code.rateLimited.rawValue,
                                   "too many failed authentications from this address; wait \(retry) s", retryAfter: retry)
                }
                guard let token = Self.bearerToken(request), !token.isEmpty else {
                    server.failedAuth.charge(address)
                    throw APIError(.unauthorized, "TOKEN_MISSING", "pair first: every endpoint needs `Authorization: Bearer <token>`")
                }
                let snapshot = try await server.state.snapshot(tokenHash: ExportState.tokenHash(token))
                guard let client = snapshot.client else {
                    server.failedAuth.charge(address)
                    throw APIError(.unauthorized, "TOKEN_INVALID", "unknown token; pair again")
                }
                context.trace.setClient(client.auditId)
                guard !client.isRevoked else {
                    server.failedAuth.charge(address)
                    throw APIError(.unauthorized, "TOKEN_REVOKED", "this client was revoked; pair again")
                }
                if case .limited(let retry) = server.limiter.check(client.id) {
                    context.trace.setReason("RATE_LIMITED")
                    throw APIError(.tooManyRequests, HealthError.Code.rateLimited.rawValue,
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
            if context.trace.reason == nil { context.trace.setReason(apiError.code) }
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
            response = APIError(.serviceUnavailable, HealthError.Code.storeUnavailable.rawValue,
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
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name(ExportAPI.requestIDHeader)!
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
