import HealthAPI
import PairedAPIClient
import Foundation
import HTTPTypes
import HealthModel
import HealthService
import Hummingbird
import HummingbirdCore
import NIOCore

// The Health Auto Export receiver: `POST /api/v1/ingest/health-auto-export` with `Authorization: Bearer <ingest
// token>`. The body (up to 64 MB) goes to the service as the token's principal `ingest:NAME`; the batch is audited
// with HAE's headers and its counts, never a value.

// The Health Connect receiver: `POST /api/v1/ingest/health-connect`, the same tokens, limits and audit, for what the
// Android app HC Webhook pushes (format: github.com/mcnaveen/health-connect-webhook,
// app/src/main/java/com/hcwebhook/app/SyncManager.kt, `buildJsonPayload`; see HealthConnectPayloadReader).

extension PairedAPIServer {
    public static let ingestPath = PairedAPIProtocol.basePath + "/ingest/health-auto-export"
    /// Where an Android phone pushes Health Connect records (HC Webhook's webhook URL).
    public static let healthConnectIngestPath = PairedAPIProtocol.basePath + "/ingest/health-connect"
    /// Every receiver path: an ingest token authenticates them, and their bodies may be as large as a push.
    public static let ingestPaths: Set<String> = [ingestPath, healthConnectIngestPath]

    static func ingestTooLarge(_ limit: Int) -> APIError {
        APIError(.contentTooLarge, .payloadTooLarge, "a Health Auto Export payload is at most \(limit / 1_048_576) MB")
    }

    func addIngest(to api: RouterGroup<PairedAPIContext>) {
        api.post("ingest/health-auto-export") { request, context in
            try await self.ingest(request, context)
        }
        api.post("ingest/health-connect") { request, context in
            try await self.ingest(request, context, healthConnect: true)
        }
    }

    func ingest(_ request: Request, _ context: PairedAPIContext, healthConnect: Bool = false) async throws -> Response {
        guard let name = context.ingestName else {
            throw APIError(.unauthorized, .unauthenticated, "an ingest token is required (`healthbridge ingest-token create NAME`)")
        }
        // The body arrives in chunks and is gathered up to the limit; past it the answer is 413 and nothing is read.
        var buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: configuration.maxIngestBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Self.ingestTooLarge(configuration.maxIngestBytes)
        }
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        buffer = ByteBuffer()
        let headers = request.headers
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
        let info = IngestBatchInfo(automationName: header("automation-name"), automationId: header("automation-id"),
                                   aggregation: header("automation-aggregation"), period: header("automation-period"),
                                   sessionId: header("session-id"))
        let principal = Principal(kind: .ingest, name: name)
        let acting = service.acting(as: principal)
        let report = healthConnect ? try await acting.ingestHealthConnect(consume bytes, info: info)
            : try await acting.ingestHealthAutoExport(consume bytes, info: info)
        audit.record(AuditEvent(event: .dataWrite, requestId: context.requestId, client: principal.id,
                                address: context.remoteAddress,
                                detail: .init(types: report.types.keys.sorted(), sampleCount: report.inserted + report.replaced,
                                              batch: HealthService.ingestAuditDetail(report, info: info))))
        return Self.json(.ok, try JSONEncoder.wire.encode(report))
    }

    /// The optional plain-HTTP listener for phones that cannot trust the self-signed certificate: only the ingest
    /// route, with the same gatekeeper (tokens, limits, audit). Off unless `serve --ingest-port` asks for it.
    ///
    /// ```swift
    /// let app = try server.ingestApplication(host: "127.0.0.1", port: 8788)
    /// ```
    public func ingestApplication(host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        throws -> some ApplicationProtocol
    {
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionAdmission(limiter: connections,
                                                            handshakeTimeout: TimeAmount(configuration.handshakeTimeout)),
                                        ConnectionGuard(requestTimeout: TimeAmount(configuration.requestTimeout),
                                                        responseTimeout: TimeAmount(configuration.responseTimeout),
                                                        longRequest: (Self.ingestPath,
                                                                      TimeAmount(configuration.ingestRequestTimeout)))],
            idleTimeout: TimeAmount(configuration.idleTimeout),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024,
                                            maxHeaderFieldCount: 100))
        let router = Router(context: PairedAPIContext.self)
        router.add(middleware: Gatekeeper(server: self))
        addIngest(to: router.group(RouterPath(PairedAPIProtocol.basePath)))   // both receivers
        var appConfiguration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil,
                                                        reuseAddress: true)
        appConfiguration.availableConnectionsDelegate = MaximumAvailableConnections(configuration.maxConnections)
        return Application(router: router, server: .http1(configuration: http1), configuration: appConfiguration,
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
                           logger: logger)
    }
}

extension Gatekeeper {
    /// An ingest token (not a paired client's): `ingest:NAME`, charged against the address on failure like any token.
    /// A push that authenticates is granted the connection guard's long body deadline; nothing else is.
    func authenticateIngest(_ request: Request, _ context: inout PairedAPIContext) async throws {
        let address = context.remoteAddress
        if let retry = server.failedAuth.retryAfter(address) {
            context.trace.setReason("AUTH_BACKOFF")
            throw APIError(.tooManyRequests, .rateLimited,
                           "too many failed authentications from this address; wait \(retry) s", retryAfter: retry)
        }
        guard let token = Self.bearerToken(request), !token.isEmpty,
              let name = try await server.state.ingestTokenName(tokenHash: ExportState.tokenHash(token)) else {
            // A paired client's valid token is not a guess: refused, not counted against the address.
            let token = Self.bearerToken(request) ?? ""
            let client = token.isEmpty ? nil : try await server.state.snapshot(tokenHash: ExportState.tokenHash(token)).client
            if let client, !client.isRevoked {
                context.trace.setClient(client.auditId)
            } else {
                server.failedAuth.charge(address)
            }
            throw APIError(.unauthorized, .unauthenticated,
                           "a valid ingest token is required: `Authorization: Bearer <token>` from `healthbridge ingest-token create NAME` (a paired client's token is not one)")
        }
        let principal = "ingest:\(name)"
        context.trace.setClient(principal)
        if case .limited(let retry) = server.limiter.check(principal) {
            context.trace.setReason("RATE_LIMITED")
            throw APIError(.tooManyRequests, .rateLimited, "too many pushes per second", retryAfter: retry)
        }
        context.ingestName = name
        // Only now, before its body is read, may the push take the long body deadline: a request that names the path
        // without a valid ingest token keeps the ordinary one and is answered 401 unread.
        try? await context.channel.triggerUserOutboundEvent(ConnectionGuard.LongRequestGranted()).get()
    }
}
