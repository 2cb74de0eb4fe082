import Foundation
import HealthMCP
import HealthService
import HealthSupport
import Hummingbird
import MCP
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("MCP stdio transport")
struct StdioTransportTests {
    /// A pipe: (read end, write end).
    static func makePipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
        return (fds[0], fds[1])
    }

    @Test func twoHundredRoundTripsOverPipes() async throws {
        let (serverIn, clientOut) = try Self.makePipe()
        let (clientIn, serverOut) = try Self.makePipe()
        let toolbox = HealthToolbox(service: try await Fixture.service())
        let server = await HealthMCPServer.make(toolbox: toolbox)
        try await server.start(transport: BlockingStdioTransport(input: serverIn, output: serverOut))
        let client = Client(name: "pipe-client", version: "1.0")
        try await client.connect(transport: BlockingStdioTransport(input: clientIn, output: clientOut))

        // 200 sequential round trips over pipes, answers in order. (The time they take is measured in CI by
        // IntegrationTests/mcp-interop.sh with the official Python client; here other suites share the two cores.)
        for index in 0..<200 {
            let context: MCP.RequestContext<CallTool.Result> = try await client.callTool(
                name: "latest", arguments: ["type": index % 2 == 0 ? "bodyMass" : "restingHeartRate"])
            let result = try await context.value
            #expect(result.isError == false)
            #expect(result.structuredContent?["type"]?.stringValue == (index % 2 == 0 ? "bodyMass" : "restingHeartRate"))
        }

        // Closing the server's stdin ends its loop.
        close(clientOut)
        await server.waitUntilCompleted()
        await client.disconnect()
        close(serverIn); close(clientIn); close(serverOut)
    }

    @Test func splitsLinesAcrossReadsAndAcceptsCRLF() async throws {
        let (serverIn, clientOut) = try Self.makePipe()
        let (clientIn, serverOut) = try Self.makePipe()
        let server = await HealthMCPServer.make(toolbox: HealthToolbox(service: try await Fixture.service()))
        try await server.start(transport: BlockingStdioTransport(input: serverIn, output: serverOut))
        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(clientOut, $0.baseAddress, $0.count) }
        }
        let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#
        send(String(initialize.prefix(40)))
        try await Task.sleep(for: .milliseconds(20))
        send(String(initialize.dropFirst(40)) + "\r\n\n   \n")
        send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"# + "\n" + #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"# + "\n")
        // Read the two answers with a transport on the client's side.
        let reader = BlockingStdioTransport(input: clientIn, output: clientOut)
        try await reader.connect()
        var lines: [[String: Any]] = []
        for try await message in await reader.receive() {
            lines.append(try #require(try JSONSerialization.jsonObject(with: message) as? [String: Any]))
            if lines.count == 2 { break }
        }
        #expect(lines.first?["id"] as? Int == 1)
        let tools = ((lines.last?["result"] as? [String: Any])?["tools"] as? [Any])?.count
        #expect(tools == HealthToolbox.toolNames.count)
        close(clientOut)
        await server.waitUntilCompleted()
        close(serverIn); close(clientIn); close(serverOut)
    }
}

@Suite("MCP over streamable HTTP")
struct HTTPTests {
    static let token = "test-token-0123456789abcdef"

    struct Reply {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]?
    }

    static func request(_ port: Int, method: String = "POST", body: [String: Any]? = nil, session: String? = nil,
                        token: String? = HTTPTests.token, accept: String = "application/json, text/event-stream") async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/mcp")!)
        request.httpMethod = method
        request.setValue(accept, forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        if let session { request.setValue(session, forHTTPHeaderField: "Mcp-Session-Id") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: headers,
                     json: data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func initializeListCallAndAuthorization() async throws {
        let router = Router()
        HealthMCPHTTP.addRoutes(to: router, toolbox: HealthToolbox(service: try await Fixture.service()),
                                options: .init(bearerToken: Self.token, loopbackOnly: true))
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in portSink.yield(channel.localAddress?.port ?? 0) })
        let running = Task { try await app.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let initialize: [String: Any] = [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": ["protocolVersion": "2025-06-18", "capabilities": [String: Any](),
                       "clientInfo": ["name": "http-test", "version": "1"]],
        ]
        // No token, or a wrong one: 401.
        #expect(try await Self.request(port, body: initialize, token: nil).status == 401)
        #expect(try await Self.request(port, body: initialize, token: "wrong-token-0123456789abcdef").status == 401)

        let opened = try await Self.request(port, body: initialize)
        #expect(opened.status == 200)
        let session = try #require(opened.headers["mcp-session-id"])
        #expect((opened.json?["result"] as? [String: Any])?["serverInfo"] != nil)

        let initialized = try await Self.request(port, body: ["jsonrpc": "2.0", "method": "notifications/initialized"],
                                                 session: session)
        #expect(initialized.status == 202)

        let list = try await Self.request(port, body: ["jsonrpc": "2.0", "id": 2, "method": "tools/list"], session: session)
        #expect(((list.json?["result"] as? [String: Any])?["tools"] as? [Any])?.count == HealthToolbox.toolNames.count)

        let call = try await Self.request(port, body: [
            "jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": ["name": "summarize", "arguments": ["type": "stepCount", "start": "7d"]],
        ], session: session)
        let result = try #require(call.json?["result"] as? [String: Any])
        #expect(result["isError"] as? Bool == false)
        #expect((result["structuredContent"] as? [String: Any])?["merged"] as? Bool == true)

        // Session semantics.
        #expect(try await Self.request(port, body: ["jsonrpc": "2.0", "id": 4, "method": "tools/list"]).status == 400)
        #expect(try await Self.request(port, body: ["jsonrpc": "2.0", "id": 5, "method": "tools/list"],
                                       session: "no-such-session").status == 404)
        // The event stream (SSE) needs a session and Accept: text/event-stream (ResourcePushHTTPTests reads one).
        #expect(try await Self.request(port, method: "GET", session: session, accept: "application/json").status == 406)
        #expect(try await Self.request(port, method: "GET").status == 400)
        #expect(try await Self.request(port, method: "GET", session: "no-such-session").status == 404)
        #expect(try await Self.request(port, method: "DELETE", session: session).status == 200)
        #expect(try await Self.request(port, body: ["jsonrpc": "2.0", "id": 6, "method": "tools/list"],
                                       session: session).status == 404)
    }

    @Test func loopbackAndTokens() throws {
        #expect(Loopback.isLoopback("127.0.0.1"))
        #expect(Loopback.isLoopback("::1"))
        #expect(Loopback.isLoopback("localhost"))
        #expect(!Loopback.isLoopback("0.0.0.0"))
        #expect(!Loopback.isLoopback("192.168.1.20"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hb-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try HealthMCPHTTP.loadOrCreateToken(in: directory)
        #expect(first.created)
        #expect(first.token.count == 64)
        let attributes = try FileManager.default.attributesOfItem(atPath: first.file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = try HealthMCPHTTP.loadOrCreateToken(in: directory)
        #expect(!second.created)
        #expect(second.token == first.token)
    }
}
