import AsyncHTTPClient
import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthConsole
import HealthMCP
import HealthModel
import HealthOAuth
import HealthService
import HealthStore
import HealthSupport
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Everything of one OAuth flow in process, on loopback: the MCP endpoint with the authorization server (for the
/// public URL `https://health.example.test/mcp`, as behind a proxy), the console with its consent page (signed in),
/// and a client's metadata document on a server of its own.
struct OAuthHarness {
    static let resource = "https://health.example.test/mcp"

    let home: TemporaryHome
    let service: HealthService
    let access: AccessStore
    let console: Console
    let oauth: OAuthServer
    let mcpPort: Int
    let consolePort: Int
    let clientPort: Int
    let tasks: [Task<Void, any Error>]
    let http: HTTPClient
    /// The console's session cookie.
    let cookie: String

    var clientID: String { "http://127.0.0.1:\(clientPort)/client.json" }
    var redirectURI: String { "http://127.0.0.1:\(clientPort)/callback" }
    var mcpURL: String { "http://127.0.0.1:\(mcpPort)/mcp" }

    static func start(dynamicRegistration: Bool = false, clientTrustRoots: ClientTrustRoots? = nil) async throws -> OAuthHarness {
        let home = try TemporaryHome("oauth")
        let healthHome = HealthBridgeHome(directory: home.url)
        try healthHome.createIfNeeded()
        let store = try SQLiteHealthStore(location: .file(healthHome.storeURL))
        try await DemoWorld(days: 10).populate(store)
        let access = try AccessStore.open(home: home.url)
        let service = try await HealthService.open(store: store, access: access)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        var tasks: [Task<Void, any Error>] = []

        // The console (consent page).
        let console = Console(service: service, home: healthHome, configuration: .init(port: 0, host: "127.0.0.1"),
                              pairing: ConsolePairing(fingerprint: { "" }, listening: { nil },
                                                      fallback: { .init(host: "192.0.2.10", port: 8443) }),
                              logger: logger)
        let consoleRouter = Router()
        console.addRoutes(to: consoleRouter)
        let (consolePort, consoleTask) = try await serve(consoleRouter)
        console.setPort(consolePort)
        tasks.append(consoleTask)

        // The MCP endpoint and the authorization server.
        let oauth = OAuthServer(service: service,
                                configuration: .init(resource: resource, consentOrigin: { console.origin },
                                                     dynamicRegistration: dynamicRegistration, allowLoopbackClients: true,
                                                     clientTrustRoots: clientTrustRoots))
        let router = Router()
        oauth.addRoutes(to: router)
        HealthMCPHTTP.addRoutes(to: router, toolbox: HealthToolbox(service: service),
                                options: .init(loopbackOnly: false, authorizer: oauth.authorizer(staticToken: nil, anonymous: false)))
        let (mcpPort, mcpTask) = try await serve(router)
        tasks.append(mcpTask)

        // The client's metadata document, naming its own URL.
        let clientRouter = Router()
        clientRouter.get("/client.json") { request, _ -> Response in
            let authority = request.head.authority ?? "127.0.0.1"
            let document: [String: Any] = ["client_id": "http://\(authority)/client.json", "client_name": "Test Agent",
                                           "redirect_uris": ["http://\(authority)/callback"],
                                           "token_endpoint_auth_method": "none"]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: document))))
        }
        // A document that redirects (never followed) and one that names another client_id.
        clientRouter.get("/moved.json") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.location] = "/client.json"
            return Response(status: .found, headers: headers)
        }
        clientRouter.get("/impostor.json") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let document = #"{"client_id":"https://trusted.example/client.json","redirect_uris":["https://trusted.example/cb"]}"#
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
        }
        let (clientPort, clientTask) = try await serve(clientRouter)
        tasks.append(clientTask)

        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                              configuration: .init(redirectConfiguration: .disallow))
        // Sign in to the console with a one-time key.
        let key = try await service.issueConsoleKey()
        let login = try await Self.send(http, "GET", "http://127.0.0.1:\(consolePort)/login?key=\(key)")
        guard let setCookie = login.header("set-cookie"), let cookie = setCookie.split(separator: ";").first else {
            throw HealthError(.internalError, "the console did not sign in (\(login.status))")
        }
        return OAuthHarness(home: home, service: service, access: access, console: console, oauth: oauth, mcpPort: mcpPort,
                            consolePort: consolePort, clientPort: clientPort, tasks: tasks, http: http, cookie: String(cookie))
    }

    /// Runs `router` on a free loopback port (plain HTTP/1.1 unless `server` says otherwise): the port and the task.
    static func serve(_ router: Router<BasicRequestContext>,
                      server: HTTPServerBuilder = .http1()) async throws -> (Int, Task<Void, any Error>) {
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0) },
                              logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return (port, task)
    }

    func stop() async {
        for task in tasks { task.cancel() }
        try? await http.shutdown()
        home.remove()
    }

    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
    }

    static func send(_ http: HTTPClient, _ method: String, _ url: String, headers: [(String, String)] = [],
                     body: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 8 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                     body: String(buffer: buffer))
    }

    func send(_ method: String, _ url: String, headers: [(String, String)] = [], body: String? = nil) async throws -> Reply {
        try await Self.send(http, method, url, headers: headers, body: body)
    }

    static func formBody(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }

    func postForm(_ url: String, _ fields: [(String, String)], headers: [(String, String)] = []) async throws -> Reply {
        try await send("POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
                       body: Self.formBody(fields))
    }

    /// The query items of a URL.
    static func query(_ url: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    /// `/oauth/authorize` with PKCE S256; the Location it answers.
    func authorize(scope: String, verifier: String, method: String = "S256", state: String = "st-123",
                   resource: String? = OAuthHarness.resource, clientID: String? = nil) async throws -> Reply {
        var items = [URLQueryItem(name: "response_type", value: "code"),
                     URLQueryItem(name: "client_id", value: clientID ?? self.clientID),
                     URLQueryItem(name: "redirect_uri", value: redirectURI),
                     URLQueryItem(name: "code_challenge", value: method == "S256" ? AccessStore.pkceS256(verifier) : verifier),
                     URLQueryItem(name: "code_challenge_method", value: method),
                     URLQueryItem(name: "state", value: state), URLQueryItem(name: "scope", value: scope)]
        if let resource { items.append(URLQueryItem(name: "resource", value: resource)) }
        var components = URLComponents(string: "http://127.0.0.1:\(mcpPort)/oauth/authorize")!
        components.queryItems = items
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return try await send("GET", components.string!)
    }

    /// Authorize, then answer the consent page approving `read` and `write`: the code the client receives.
    func consent(scope: String, verifier: String, read: [String], write: [String], approve: Bool = true) async throws -> (page: String, callback: String) {
        let authorized = try await authorize(scope: scope, verifier: verifier)
        guard authorized.status == 302, let location = authorized.header("location") else {
            throw HealthError(.internalError, "authorize answered \(authorized.status): \(authorized.body)")
        }
        let page = try await send("GET", location, headers: [("Cookie", cookie)])
        guard page.status == 200, let csrf = Self.csrf(page.body), let id = Self.query(location)["request"] else {
            throw HealthError(.internalError, "the consent page answered \(page.status)")
        }
        var fields = [("csrf", csrf), ("request", id), ("decision", approve ? "approve" : "deny")]
        fields += read.map { ("read", $0) } + write.map { ("write", $0) }
        let decided = try await postForm("http://127.0.0.1:\(consolePort)/consent/decide", fields,
                                         headers: [("Cookie", cookie), ("Origin", console.origin)])
        guard decided.status == 303, let callback = decided.header("location") else {
            throw HealthError(.internalError, "the consent answered \(decided.status): \(decided.body)")
        }
        return (page.body, callback)
    }

    static func csrf(_ html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    func token(_ fields: [(String, String)]) async throws -> Reply {
        try await postForm("http://127.0.0.1:\(mcpPort)/oauth/token", fields)
    }

    /// One MCP call on a fresh session: initialize, then `tools/call`; the tool's structured content, or the
    /// refusing status.
    func callTool(_ token: String?, _ name: String, _ arguments: [String: Any]) async throws -> (status: Int, result: [String: Any]?) {
        var headers = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let initialize: [String: Any] = ["jsonrpc": "2.0", "id": 1, "method": "initialize",
                                         "params": ["protocolVersion": "2025-06-18", "capabilities": [String: Any](),
                                                    "clientInfo": ["name": "oauth-test", "version": "1"]]]
        let opened = try await send("POST", mcpURL, headers: headers,
                                    body: String(decoding: try JSONSerialization.data(withJSONObject: initialize), as: UTF8.self))
        guard opened.status == 200, let session = opened.header("mcp-session-id") else { return (opened.status, nil) }
        headers.append(("Mcp-Session-Id", session))
        let call: [String: Any] = ["jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                   "params": ["name": name, "arguments": arguments]]
        let reply = try await send("POST", mcpURL, headers: headers,
                                   body: String(decoding: try JSONSerialization.data(withJSONObject: call), as: UTF8.self))
        return (reply.status, (reply.json?["result"] as? [String: Any])?["structuredContent"] as? [String: Any])
    }
}
