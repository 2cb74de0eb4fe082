import Foundation
import HealthHTTP
import Hummingbird
import HummingbirdCore
import Logging
import MCP
import NIOCore
import ServiceLifecycle

extension HealthMCPHTTP {
    /// Whether a request at the endpoint speaks MCP 2026-07-28: its `MCP-Protocol-Version` header names it, or (no
    /// session, no version header) its body's `_meta` does. Everything else is the 2025 protocol, as before.
    ///
    /// ```swift
    /// if HealthMCPHTTP.isModern(headers: lowercased, body: data) { … }
    /// ```
    public static func isModern(headers: [String: String], body: Data) -> Bool {
        if let version = headers[MCPModernProtocol.Header.protocolVersion] {
            return version == MCPModernProtocol.version
        }
        // Most 2025 requests name no envelope key: look before decoding anything (the key's slash may be escaped).
        guard headers["mcp-session-id"] == nil, !body.isEmpty,
              body.range(of: MCPModernProtocol.envelopeMarker) != nil else { return false }
        guard let request = try? MCPModernProtocol.Request.parse(body) else { return false }
        return request.meta[MCPModernProtocol.MetaKey.protocolVersion] == .string(MCPModernProtocol.version)
    }

    /// The answer to a 2026-07-28 request: `POST` only (405 otherwise), `Accept` with `application/json` (and
    /// `text/event-stream` for `subscriptions/listen`; 406 otherwise), one JSON-RPC message per request, a JSON
    /// answer with the status of its error code, or an SSE stream for `subscriptions/listen` (a keepalive comment every
    /// ``keepaliveInterval``; a graceful shutdown ends it with the listen request's result). `toolbox` acts for the
    /// principal the request was authorized as.
    static func modernResponse(isPost: Bool, headers: [String: String], body: Data,
                               modern: HealthMCPModernServer, toolbox: HealthToolbox) async -> Response {
        let json = ["Content-Type": "application/json"]
        guard isPost else {
            return Response(status: .init(code: 405), headers: Self.headers(["Allow": "POST"]))
        }
        let accept = headers["accept"] ?? ""
        let acceptsJSON = accept.contains("application/json") || accept.contains("*/*")
        let acceptsSSE = accept.contains("text/event-stream")
        guard acceptsJSON else { return Response(status: .init(code: 406)) }
        let request: MCPModernProtocol.Request
        do {
            request = try MCPModernProtocol.Request.parse(body)
        } catch {
            return Response(status: .init(code: MCPModernProtocol.httpStatus(forErrorCode: error.code)), headers: Self.headers(json),
                            body: Self.body(MCPModernProtocol.errorResponse(id: nil, error)))
        }
        if request.method == "subscriptions/listen", !acceptsSSE { return Response(status: .init(code: 406)) }
        switch await modern.handle(request, headers: headers, toolbox: toolbox) {
        case .accepted:
            return Response(status: .accepted)
        case .response(let status, let data):
            return Response(status: .init(code: status), headers: Self.headers(json), body: Self.body(data))
        case .listen(let subscription):
            return Response(status: .ok, headers: Self.headers(sseHeaders), body: ResponseBody { writer in
                let keepalive = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: keepaliveInterval)
                        await subscription.keepalive()
                    }
                }
                defer { keepalive.cancel() }
                do {
                    try await withGracefulShutdownHandler {
                        while let frame = await subscription.next() {
                            try await writer.write(ByteBuffer(bytes: sseFrame(frame)))
                        }
                    } onGracefulShutdown: {
                        Task { await subscription.close(graceful: true) }
                    }
                } catch {
                    // The client went away: its subscriptions end.
                    await subscription.close(graceful: false)
                    throw error
                }
                await subscription.close(graceful: false)
                try await writer.finish(nil)
            })
        }
    }

    /// How often an idle listen stream carries an SSE comment.
    static let keepaliveInterval: Duration = .seconds(15)

    static let sseHeaders = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform",
                             "X-Accel-Buffering": "no"]

    /// One SSE frame: `event: message` with the JSON-RPC message, or a comment.
    static func sseFrame(_ frame: ModernSubscription.Frame) -> Data {
        switch frame {
        case .keepalive:
            return Data(": ping\r\n\r\n".utf8)
        case .message(let message):
            var data = Data("event: message\r\ndata: ".utf8)
            data.append(message)
            data.append(Data("\r\n\r\n".utf8))
            return data
        }
    }
}
