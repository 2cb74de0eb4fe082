import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HealthMCP
import HealthService
import Hummingbird
import NIOCore
import NIOPosix
import Testing

/// Both eras on one endpoint: a request carrying 2026-07-28 (header or `_meta`) is answered statelessly, everything
/// else by the 2025 sessions as before; `subscriptions/listen` is an SSE stream.
@Suite("MCP 2026-07-28 over HTTP")
struct ModernHTTPTests {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]?
    }

    static func post(_ port: Int, method: String = "POST", body: Data?, headers: [String: String]) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/mcp")!)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields[key.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: fields,
                     json: data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func modernHeaders(_ method: String, name: String? = nil) -> [String: String] {
        var headers = ["MCP-Protocol-Version": MCPModernProtocol.version, "Mcp-Method": method]
        if let name { headers["Mcp-Name"] = name }
        return headers
    }

    @Test func bothErasShareTheEndpointAndTheListenStreamCarriesAWrite() async throws {
        let service = try await ResourceSubscriptionTests.writableService()
        let router = Router()
        HealthMCPHTTP.addRoutes(to: router, toolbox: HealthToolbox(service: service), options: .init(bearerToken: nil, loopbackOnly: true))
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, server: HealthMCPHTTP.httpServer(),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in portSink.yield(channel.localAddress?.port ?? 0) })
        let running = Task { try await app.run() }
        defer { running.cancel() }
        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())

        // 2026-07-28: no initialize, no session.
        let discover = try await Self.post(port, body: try ModernProtocolTests.body("server/discover"),
                                           headers: Self.modernHeaders("server/discover"))
        #expect(discover.status == 200 && discover.headers["mcp-session-id"] == nil)
        let result = discover.json?["result"] as? [String: Any]
        #expect((result?["supportedVersions"] as? [String])?.contains("2026-07-28") == true)
        #expect(result?["resultType"] as? String == "complete")
        let call = try await Self.post(port, body: try ModernProtocolTests.body("tools/call", params: [
            "name": "latest", "arguments": ["type": "bodyMass"]]), headers: Self.modernHeaders("tools/call", name: "latest"))
        #expect(call.status == 200 && (call.json?["result"] as? [String: Any])?["resultType"] as? String == "complete")
        // The ladder's refusals carry their statuses: a method the era lacks is 404, a mismatched header 400.
        let ping = try await Self.post(port, body: try ModernProtocolTests.body("ping"), headers: Self.modernHeaders("ping"))
        #expect(ping.status == 404)
        let mismatch = try await Self.post(port, body: try ModernProtocolTests.body("tools/list"), headers: Self.modernHeaders("prompts/list"))
        #expect(mismatch.status == 400 && (mismatch.json?["error"] as? [String: Any])?["code"] as? Int == -32020)
        // The envelope without the header goes to the modern path too, which says the header is missing.
        let headerless = try await Self.post(port, body: try ModernProtocolTests.body("tools/list"), headers: [:])
        #expect(headerless.status == 400 && (headerless.json?["error"] as? [String: Any])?["code"] as? Int == -32020)
        // Only POST in this era.
        let get = try await Self.post(port, method: "GET", body: nil, headers: Self.modernHeaders("tools/list"))
        #expect(get.status == 405 && get.headers["allow"] == "POST")
        // A notification: 202.
        let note = try await Self.post(port, body: try ModernProtocolTests.body("notifications/cancelled", id: nil),
                                       headers: Self.modernHeaders("notifications/cancelled"))
        #expect(note.status == 202)

        // 2025 on the same endpoint, unchanged: initialize opens a session.
        let opened = try await HTTPTests.request(port, body: [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": ["protocolVersion": "2025-06-18", "capabilities": [String: Any](),
                       "clientInfo": ["name": "legacy", "version": "1"]],
        ], token: nil)
        #expect(opened.status == 200 && opened.headers["mcp-session-id"] != nil)
        // …and a session-less 2025 request is still refused as before.
        let sessionless = try await HTTPTests.request(port, body: ["jsonrpc": "2.0", "id": 2, "method": "tools/list"], token: nil)
        #expect(sessionless.status == 400)

        // subscriptions/listen: an SSE stream that opens with its acknowledgement, then the update of a write.
        let listen = try ModernProtocolTests.body("subscriptions/listen", id: "listen-9", params: [
            "notifications": ["resourceSubscriptions": ["healthbridge://latest/bodyMass"]]])
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let watchdog = Task { [raw = channel.channel] in
            try await Task.sleep(for: .seconds(20))
            raw.close(promise: nil)
        }
        defer { watchdog.cancel() }
        let (head, update) = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: """
                POST /mcp HTTP/1.1\r
                Host: 127.0.0.1:\(port)\r
                Accept: application/json, text/event-stream\r
                Content-Type: application/json\r
                MCP-Protocol-Version: 2026-07-28\r
                Mcp-Method: subscriptions/listen\r
                Content-Length: \(listen.count)\r
                \r
                \(String(decoding: listen, as: UTF8.self))
                """))
            var iterator = inbound.makeAsyncIterator()
            var head = ""
            while !head.contains("notifications/subscriptions/acknowledged"), let chunk = try await iterator.next() {
                head += String(buffer: chunk)
            }
            _ = try await service.logWeight(70.2, unit: "kg")
            var update = ""
            while !update.contains("notifications/resources/updated"), let chunk = try await iterator.next() {
                update += String(buffer: chunk)
            }
            return (head, update)
        }
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        #expect(head.lowercased().contains("content-type: text/event-stream"))
        #expect(head.contains(#""io.modelcontextprotocol/subscriptionId":"listen-9""#), "\(head)")
        #expect(update.contains("event: message"))
        #expect(update.contains(#""uri":"healthbridge://latest/bodyMass""#) && update.contains(#""io.modelcontextprotocol/subscriptionId":"listen-9""#), "\(update)")
    }
}
