import Foundation
import HealthBridgeTesting
import PairedAPI
import PairedAPIClient
import Testing

/// Issue 26: `serve --mcp-tls` serves MCP over TLS with the server's own identity, OAuth names the https resource,
/// plain HTTP to that port gets no answer, and plain HTTP beyond loopback does not start.
@Suite(.serialized) struct MCPTLSListenerTests {
    static let token = "tls-listener-token-0123456789abcdef"

    /// A running `serve --mcp-tls` on a free loopback port (no export API), over a small demo store, with the
    /// identity made beforehand (so the test knows its certificate).
    struct Server {
        let home: TemporaryHome
        let port: Int
        let identity: ServerIdentity
        let process: Process

        static func start() async throws -> Server {
            let home = try TemporaryHome("mcp-tls")
            let demo = try await CLI.run(["demo", "--days", "2", "--json"], home: home.url)
            try #require(demo.status == 0, "demo: \(demo.stderr)")
            let (identity, _) = try ServerIdentity.loadOrCreate(home: home.url, hostNames: ["127.0.0.1"])
            let port = try BuiltProducts.freeLoopbackPort()
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = ["serve", "--home", home.path, "--mcp-bind", "127.0.0.1", "--mcp-port", "\(port)",
                                 "--mcp-tls", "--mcp-token", token, "--no-api", "--no-console"]
            var environment = ProcessInfo.processInfo.environment
            environment["HEALTHBRIDGE_LOG_LEVEL"] = "warning"
            process.environment = environment
            let log = home.appending("serve.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let server = Server(home: home, port: port, identity: identity, process: process)
            // Until the listener answers over TLS (10 s at most).
            for _ in 0..<100 {
                if (try? await server.send("GET", "/.well-known/oauth-protected-resource/mcp")) != nil { return server }
                try await Task.sleep(for: .milliseconds(100))
            }
            server.stop()
            Issue.record("serve --mcp-tls did not answer: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            throw CancellationError()
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }

        var log: String { (try? String(contentsOf: home.appending("serve.log"), encoding: .utf8)) ?? "" }

        /// One request over TLS, accepting only the identity's certificate (pinned by its SHA-256).
        func send(_ method: String, _ path: String, token: String? = nil, session: String? = nil,
                  body: [String: Any]? = nil) async throws -> (status: Int, headers: [(String, String)], json: [String: Any]?) {
            let client = PinnedHTTPSClient(host: "127.0.0.1", port: port, fingerprint: identity.fingerprint,
                                           timeout: .seconds(10))
            var headers = [("Accept", "application/json, text/event-stream")]
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            if let session { headers.append(("Mcp-Session-Id", session)) }
            if body != nil { headers.append(("Content-Type", "application/json")) }
            let data = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
            let reply = try await client.send(method: method, path: path, headers: headers, body: data)
            let json = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any]
            return (reply.status, reply.headers, json)
        }
    }

    @Test func mcpOverTLSWithOAuthNamingTheHTTPSResource() async throws {
        let server = try await Server.start()
        defer { server.stop() }
        // A transport error names what serve logged meanwhile.
        do { try await Self.exercise(server) } catch {
            Issue.record("\(error); serve's log: \(server.log)")
        }
    }

    static func exercise(_ server: Server) async throws {
        let resource = "https://127.0.0.1:\(server.port)/mcp"

        // The endpoint line names the https URL and the certificate's SHA-256.
        #expect(server.log.contains("HealthBridge MCP endpoint: \(resource)"))
        #expect(server.log.contains("TLS certificate SHA-256: \(server.identity.fingerprint)"))

        // OAuth's metadata names the https resource and issuer.
        let metadata = try await server.send("GET", "/.well-known/oauth-protected-resource/mcp")
        #expect(metadata.status == 200)
        #expect(metadata.json?["resource"] as? String == resource)
        #expect(metadata.json?["authorization_servers"] as? [String] == ["https://127.0.0.1:\(server.port)"])
        let issuer = try await server.send("GET", "/.well-known/oauth-authorization-server")
        #expect(issuer.json?["issuer"] as? String == "https://127.0.0.1:\(server.port)")

        // No token, or a wrong one: 401 naming the https resource metadata (no anonymous access with TLS).
        let initialize: [String: Any] = [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": ["protocolVersion": "2025-11-25", "capabilities": [String: Any](),
                       "clientInfo": ["name": "tls-test", "version": "1"]],
        ]
        for token in [nil, "wrong-token-0123456789abcdef"] {
            let refused = try await server.send("POST", "/mcp", token: token, body: initialize)
            #expect(refused.status == 401)
            let challenge = refused.headers.first { $0.0.lowercased() == "www-authenticate" }?.1 ?? ""
            #expect(challenge.contains("resource_metadata=\"https://127.0.0.1:\(server.port)/.well-known/oauth-protected-resource/mcp\""))
        }

        // The owner's static token: initialize and a tools/call over TLS.
        let opened = try await server.send("POST", "/mcp", token: Self.token, body: initialize)
        #expect(opened.status == 200)
        let session = try #require(opened.headers.first { $0.0.lowercased() == "mcp-session-id" }?.1)
        let initialized = try await server.send("POST", "/mcp", token: Self.token, session: session,
                                                body: ["jsonrpc": "2.0", "method": "notifications/initialized"])
        #expect(initialized.status == 202)
        let call = try await server.send("POST", "/mcp", token: Self.token, session: session, body: [
            "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ["name": "list_types", "arguments": [String: Any]()],
        ])
        let result = try #require(call.json?["result"] as? [String: Any])
        #expect(result["isError"] as? Bool == false)
        #expect((((result["structuredContent"] as? [String: Any])?["types"]) as? [Any])?.isEmpty == false)

        // Plain HTTP to the TLS port gets no HTTP answer.
        let answer = try Self.plainHTTPExchange(port: server.port)
        #expect(!answer.hasPrefix("HTTP/"))

        // A client pinning another certificate is refused during the handshake.
        let other = PinnedHTTPSClient(host: "127.0.0.1", port: server.port,
                                      fingerprint: String(repeating: "ab", count: 32), timeout: .seconds(10))
        await #expect(throws: (any Error).self) {
            _ = try await other.send(method: "GET", path: "/.well-known/oauth-protected-resource/mcp")
        }
    }

    @Test func plainHTTPBeyondLoopbackDoesNotStart() async throws {
        let home = try TemporaryHome("mcp-plain")
        for bind in ["0.0.0.0", "192.0.2.7"] {
            let run = try await CLI.run(["serve", "--mcp-bind", bind, "--mcp-port", "0", "--no-api", "--no-console"],
                                        home: home.url)
            #expect(run.status != 0)
            #expect(run.stderr.contains("beyond loopback, in plain HTTP"))
            #expect(run.stderr.contains("--mcp-tls") && run.stderr.contains("--mcp-public-url"))
        }
        // TLS with an ephemeral port cannot name its resource.
        let ephemeral = try await CLI.run(["serve", "--mcp-tls", "--mcp-port", "0", "--no-api", "--no-console"], home: home.url)
        #expect(ephemeral.status != 0 && ephemeral.stderr.contains("--mcp-tls needs a fixed --mcp-port"))
        // Nothing was created: it stopped before opening anything.
        #expect(!FileManager.default.fileExists(atPath: home.appending("mcp-token").path))
    }

    /// Sends a plain HTTP request to `port` and returns what came back before the server closed (TLS alerts, or
    /// nothing), as text.
    static func plainHTTPExchange(port: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let request = Array("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
