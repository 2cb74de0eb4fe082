import HealthAPI
import HealthAutoExport
import PairedAPIClient
import Foundation
import HealthAccess
import HTTPTypes
import HealthHTTP
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

    /// Both receivers, behind their own middlewares: an ingest token, the pushes' rate limit, then the long deadline.
    func addIngest(to api: RouterGroup<PairedAPIContext>) {
        let receivers = api.group()
            .add(middleware: IngestAuthentication(server: self))
            .add(middleware: RateLimitMiddleware<PairedAPIContext>(limiter: limiter, message: "too many pushes per second") {
                $0.ingestName.map { "ingest:\($0)" }
            })
            .add(middleware: LongRequestGrant())
        receivers.post("ingest/health-auto-export") { request, context in
            try await self.ingest(request, context)
        }
        receivers.post("ingest/health-connect") { request, context in
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
        // The receiver reads its dialect into a neutral batch; the service checks, commits and audits it.
        let batch = healthConnect ? try HealthConnectPayloadReader().batch(consume bytes)
            : try HAEPayloadReader(aggregation: HAEBucket(header: info.aggregation)).batch(consume bytes)
        let report = try await acting.ingest(batch, info: info)
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
        addEdge(to: router)
        addIngest(to: router.group(RouterPath(PairedAPIProtocol.basePath)))   // both receivers
        // Any other request needs a paired client's token first, as on the API's own listener.
        addClientAuthentication(to: router, publicPaths: [])
        var appConfiguration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil,
                                                        reuseAddress: true)
        appConfiguration.availableConnectionsDelegate = MaximumAvailableConnections(configuration.maxConnections)
        return Application(router: router, server: .http1(configuration: http1), configuration: appConfiguration,
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
                           logger: logger)
    }
}
