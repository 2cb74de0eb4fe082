import Foundation
import HealthHTTP
import HealthModel
import HealthSupport
import Hummingbird
import HummingbirdCore
import Logging
import MCP
import NIOCore
import ServiceLifecycle

/// MCP's streamable HTTP transport at one path of a Hummingbird router.
///
/// - `POST` carries JSON-RPC messages and answers with a JSON body (`application/json`). An `initialize` request
///   without a session opens one: the answer carries an `Mcp-Session-Id` header that every later request must send
///   (400 without it, 404 for an unknown or expired one).
/// - `GET` with the session header and `Accept: text/event-stream` opens the session's event stream (SSE), which
///   carries `notifications/resources/updated` for the resources the session subscribed to (406 without that
///   `Accept`; one stream per session, a new GET ends the previous one).
/// - `DELETE` with the session header ends the session.
/// - With a bearer token configured, every request needs `Authorization: Bearer <token>` (401 otherwise). On
///   loopback, the `Host` (HTTP/1.1 `Host`, which Hummingbird moves into the request's authority) and `Origin`
///   headers must name a loopback address (DNS-rebinding protection): 403 otherwise, before anything else.
/// - Serve it with ``httpServer(idleTimeout:)``: a connection that sends nothing for the idle timeout is closed.
///
/// ```swift
/// let router = Router()
/// HealthMCPHTTP.addRoutes(to: router, toolbox: toolbox, options: .init(bearerToken: token, loopbackOnly: false))
/// let app = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
/// ```
public enum HealthMCPHTTP {
    public struct Options: Sendable {
        /// The endpoint path.
        public var path: String
        /// Required in `Authorization: Bearer …` when set.
        public var bearerToken: String?
        /// True when the server listens on loopback only: Host and Origin headers are then checked.
        public var loopbackOnly: Bool
        /// Sessions idle longer than this are closed.
        public var sessionTimeout: TimeInterval
        /// The oldest idle session is closed when a new one would exceed this.
        public var maxSessions: Int
        /// The largest request body accepted.
        public var maxRequestBytes: Int
        /// Decides who each request acts for (OAuth); replaces the static ``bearerToken`` check when set.
        public var authorizer: (any MCPRequestAuthorizer)?

        public init(path: String = "/mcp", bearerToken: String? = nil, loopbackOnly: Bool = true,
                    sessionTimeout: TimeInterval = 3600, maxSessions: Int = 64, maxRequestBytes: Int = 4 << 20,
                    authorizer: (any MCPRequestAuthorizer)? = nil) {
            self.path = path; self.bearerToken = bearerToken; self.loopbackOnly = loopbackOnly
            self.sessionTimeout = sessionTimeout; self.maxSessions = maxSessions; self.maxRequestBytes = maxRequestBytes
            self.authorizer = authorizer
        }
    }

    /// Adds `POST`, `GET` and `DELETE` at `options.path`. Returns the session table (for tests and shutdown).
    @discardableResult
    public static func addRoutes<Context: Hummingbird.RequestContext>(to router: Router<Context>, toolbox: HealthToolbox,
                                                          options: Options = Options(),
                                                          logger: Logger = Logger(label: "healthbridge.mcp.http", factory: { _ in SwiftLogNoOpLogHandler() }))
        -> HealthMCPSessions {
        let sessions = HealthMCPSessions(toolbox: toolbox, options: options, logger: logger)
        let handler: @Sendable (Request, Context) async throws -> Response = { request, _ in
            let data: Data
            if request.method == .post {
                guard let buffer = try? await request.body.collect(upTo: options.maxRequestBytes) else {
                    return Response(status: .init(code: 413), headers: headers(["Content-Type": "application/json"]),
                                    body: body(jsonRPCError(-32600, "Request body over \(options.maxRequestBytes) bytes")))
                }
                data = Data(buffer.readableBytesView)
            } else {
                data = Data()
            }
            var fields: [String: String] = [:]
            // The SDK's validators look for Host among the headers; Hummingbird keeps it in the authority.
            if let authority = request.head.authority { fields["Host"] = authority }
            for field in request.headers {
                let name = field.name.canonicalName
                fields[name] = fields[name].map { $0 + ", " + field.value } ?? field.value
            }
            // MCP 2026-07-28, negotiated per request: stateless, answered by the modern server.
            let lowercased = Dictionary(fields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
            if isModern(headers: lowercased, body: data) {
                return await modernResponse(isPost: request.method == .post, headers: lowercased, body: data,
                                            modern: sessions.modern, toolbox: HealthMCPHTTP.toolbox(for: sessions.toolbox))
            }
            let mcpRequest = MCP.HTTPRequest(method: request.method.rawValue, headers: fields,
                                             body: data.isEmpty ? nil : data, path: request.uri.path)
            let (answer, sessionID) = await sessions.handle(mcpRequest)
            var responseHeaders = answer.headers
            if let sessionID { responseHeaders[HTTPHeaderName.sessionID] = sessionID }
            switch answer {
            case .stream(let events, _):
                return Response(status: .ok, headers: headers(responseHeaders), body: ResponseBody { writer in
                    // The server's graceful shutdown closes the sessions, which ends their streams: an open GET
                    // never holds the shutdown.
                    try await withGracefulShutdownHandler {
                        for try await event in events {
                            try await writer.write(ByteBuffer(bytes: event))
                        }
                    } onGracefulShutdown: {
                        Task { await sessions.closeAll() }
                    }
                    try await writer.finish(nil)
                })
            default:
                return Response(status: .init(code: answer.statusCode), headers: headers(responseHeaders),
                                body: body(answer.bodyData ?? Data()))
            }
        }
        // The edge, on this endpoint's group only: on loopback the Host check (403, before anything else), then the
        // bearer token when one is configured (401); both answer in JSON-RPC's shape.
        let endpoint = router.group()
        if options.loopbackOnly {
            endpoint.add(middleware: HostCheckMiddleware<Context>.loopback { _ in
                Response(status: .init(code: 403), headers: headers(["Content-Type": "application/json"]),
                         body: body(jsonRPCError(-32000, "Forbidden: the Host header must name a loopback address")))
            })
        }
        if let authorizer = options.authorizer {
            endpoint.add(middleware: MCPAuthorizationMiddleware<Context>(authorizer: authorizer))
        } else if let token = options.bearerToken {
            endpoint.add(middleware: StaticBearerMiddleware<Context>(token: token) {
                Response(status: .init(code: 401), headers: headers(["Content-Type": "application/json"]),
                         body: body(jsonRPCError(-32001, "Unauthorized: send Authorization: Bearer <token>")))
            })
        }
        let path = RouterPath(options.path)
        endpoint.post(path, use: handler)
        endpoint.get(path, use: handler)
        endpoint.delete(path, use: handler)
        return sessions
    }

    static func headers(_ fields: [String: String]) -> HTTPFields {
        var result = HTTPFields()
        for (name, value) in fields {
            if let name = HTTPFields.Element.Name(name) { result[name] = value }
        }
        return result
    }

    static func body(_ data: Data) -> ResponseBody {
        ResponseBody(byteBuffer: ByteBuffer(bytes: data))
    }

    static func jsonRPCError(_ code: Int, _ message: String) -> Data {
        let object: [String: Any] = ["jsonrpc": "2.0", "error": ["code": code, "message": message], "id": NSNull()]
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    /// The HTTP/1.1 server for the MCP endpoint: connections idle for `idleTimeout` (no request under way) are closed.
    public static func httpServer(idleTimeout: Duration = .seconds(60)) -> HTTPServerBuilder {
        .http1(configuration: .init(idleTimeout: TimeAmount(idleTimeout)))
    }

    // MARK: Tokens

    /// The bearer token stored in `directory` (file `mcp-token`, mode 0600), created with 256 random bits when
    /// missing. Returns the token, the file, and whether it was created now.
    public static func loadOrCreateToken(in directory: URL) throws -> (token: String, file: URL, created: Bool) {
        let file = directory.appendingPathComponent("mcp-token")
        if let existing = try? String(contentsOf: file, encoding: .utf8) {
            let token = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if token.count >= 32 {
                _ = try? PrivateFile.tightenFile(file.path)
                return (token, file, false)
            }
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try HealthError.mappingPrivateFile { try PrivateFile.write(Data((token + "\n").utf8), to: file) }
        return (token, file, true)
    }
}

/// The MCP sessions of the HTTP endpoint: one ``Server`` per session, over the SDK's JSON-response HTTP transport.
public actor HealthMCPSessions {
    struct Session {
        let server: MCP.Server
        let transport: StatelessHTTPServerTransport
        let events: SessionEventTransport
        var lastUsed: Date
        /// The principal the session acts for (``HealthMCPHTTP/requestPrincipal`` when it opened).
        var principal: Principal? = HealthMCPHTTP.requestPrincipal
    }

    nonisolated let toolbox: HealthToolbox
    let options: HealthMCPHTTP.Options
    let logger: Logger
    var sessions: [String: Session] = [:]
    /// The stateless 2026-07-28 requests' server (no session).
    nonisolated let modern: HealthMCPModernServer

    init(toolbox: HealthToolbox, options: HealthMCPHTTP.Options, logger: Logger) {
        self.toolbox = toolbox
        self.options = options
        self.logger = logger
        self.modern = HealthMCPModernServer(logger: logger)
    }

    public var count: Int { sessions.count }

    /// Answers one HTTP request, with the session ID to put in the response's header.
    func handle(_ request: MCP.HTTPRequest) async -> (MCP.HTTPResponse, String?) {
        let sessionID = request.header(HTTPHeaderName.sessionID)
        if let sessionID, let session = sessions[sessionID], session.principal != HealthMCPHTTP.requestPrincipal {
            return (.error(statusCode: 404, .invalidRequest("Not Found: unknown or expired session")), nil)
        }
        switch request.method.uppercased() {
        case "POST":
            if let sessionID {
                guard var session = sessions[sessionID] else {
                    return (.error(statusCode: 404, .invalidRequest("Not Found: unknown or expired session; send initialize again without Mcp-Session-Id")), nil)
                }
                session.lastUsed = Date()
                sessions[sessionID] = session
                return (await session.transport.handleRequest(request), sessionID)
            }
            guard let body = request.body, Self.isInitialize(body) else {
                return (.error(statusCode: 400, .invalidRequest("Bad Request: missing Mcp-Session-Id header; start with an initialize request")), nil)
            }
            return await open(request)
        case "GET":
            guard let sessionID else {
                return (.error(statusCode: 400, .invalidRequest("Bad Request: missing Mcp-Session-Id header; the event stream belongs to a session")), nil)
            }
            guard var session = sessions[sessionID] else {
                return (.error(statusCode: 404, .invalidRequest("Not Found: unknown or expired session")), nil)
            }
            guard (request.header(HTTPHeaderName.accept) ?? "").contains("text/event-stream") else {
                return (.error(statusCode: 406, .invalidRequest("Not Acceptable: the event stream needs Accept: text/event-stream")), nil)
            }
            session.lastUsed = Date()
            sessions[sessionID] = session
            let events = await session.events.openEventStream()
            return (.stream(events, headers: [HTTPHeaderName.contentType: "text/event-stream", HTTPHeaderName.cacheControl: "no-cache"]),
                    sessionID)
        case "DELETE":
            guard let sessionID else {
                return (.error(statusCode: 400, .invalidRequest("Bad Request: missing Mcp-Session-Id header")), nil)
            }
            guard let session = sessions.removeValue(forKey: sessionID) else {
                return (.error(statusCode: 404, .invalidRequest("Not Found: unknown or expired session")), nil)
            }
            await session.server.stop()
            return (.ok(), nil)
        default:
            return (.error(statusCode: 405, .invalidRequest("Method Not Allowed"),
                           extraHeaders: [HTTPHeaderName.allow: "GET, POST, DELETE"]), nil)
        }
    }

    private func open(_ request: MCP.HTTPRequest) async -> (MCP.HTTPResponse, String?) {
        await closeIdleSessions()
        let validators: [any HTTPRequestValidator] = [
            options.loopbackOnly ? OriginValidator.localhost() : OriginValidator.disabled,
            AcceptHeaderValidator(mode: .jsonOnly),
            ContentTypeValidator(),
            ProtocolVersionValidator(),
        ]
        let transport = StatelessHTTPServerTransport(validationPipeline: StandardValidationPipeline(validators: validators),
                                                     logger: logger)
        let events = SessionEventTransport(transport, logger: logger)
        let server = await HealthMCPServer.make(toolbox: HealthMCPHTTP.toolbox(for: toolbox))
        do {
            try await server.start(transport: events)
        } catch {
            return (.error(statusCode: 500, .internalError("could not start a session")), nil)
        }
        let sessionID = UUID().uuidString.lowercased()
        sessions[sessionID] = Session(server: server, transport: transport, events: events, lastUsed: Date())
        let response = await transport.handleRequest(request)
        if case .error = response {
            sessions.removeValue(forKey: sessionID)
            await server.stop()
            return (response, nil)
        }
        logger.debug("MCP session opened", metadata: ["sessions": "\(sessions.count)"])
        return (response, sessionID)
    }

    /// Closes sessions idle too long, and the least recently used ones beyond the maximum.
    private func closeIdleSessions() async {
        let now = Date()
        var closing = sessions.filter { now.timeIntervalSince($0.value.lastUsed) > options.sessionTimeout }.map(\.key)
        let remaining = sessions.count - closing.count
        if remaining >= options.maxSessions {
            let oldest = sessions.filter { !closing.contains($0.key) }.sorted { $0.value.lastUsed < $1.value.lastUsed }
            closing += oldest.prefix(remaining - options.maxSessions + 1).map(\.key)
        }
        for id in closing {
            if let session = sessions.removeValue(forKey: id) { await session.server.stop() }
        }
    }

    /// Closes every session.
    public func closeAll() async {
        let all = sessions.values
        sessions.removeAll()
        for session in all { await session.server.stop() }
    }

    static func isInitialize(_ body: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["method"] as? String == "initialize"
    }
}
