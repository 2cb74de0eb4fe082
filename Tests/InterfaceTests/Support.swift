import HealthAPI
import PairedAPIClient
import PairedAPI
import Foundation
import HealthAccess
import HealthBridgeTesting
import HealthMCP
import HealthModel
import HealthService
import HealthStore
import Logging
import MCP
import Testing

/// One data directory shared by the interface tests: 40 days of demo data (iPhone + Apple Watch) ending
/// 2026-01-10 00:00 UTC, home zone Europe/Paris, in a file store that the `healthbridge` binary opens with `--home`.
enum World {
    static let zone = TimeZone(identifier: "Europe/Paris")!
    static let end = ISO8601.date("2026-01-10T00:00:00Z")!

    static let shared: Task<(home: URL, service: HealthService), any Error> = Task {
        let home = try TemporaryHome("interface-tests")
        return (home.url, try await DemoWorld(days: 40, seed: 5, end: end, zone: zone).home(home))
    }

    static var home: URL { get async throws { try await shared.value.home } }
    static var service: HealthService { get async throws { try await shared.value.service } }

    static var logger: Logger {
        var logger = Logger(label: "interface-tests")
        logger.logLevel = .critical
        return logger
    }
}

// MARK: - CLI

/// The `healthbridge` binary `swift build` put beside this test bundle.
enum CLI {
    static let binary = BuiltProducts.executable(named: "healthbridge")

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: JSONValue? { try? JSONValue.parse(Array(stdout.utf8)) }
        var errorJSON: JSONValue? { try? JSONValue.parse(Array(stderr.utf8)) }
    }

    /// Runs `healthbridge ARGS --home <the shared home>`.
    static func run(_ arguments: [String], home: URL? = nil) async throws -> Run {
        let shared = try await World.home
        let home = home ?? shared
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "the healthbridge binary is not built at \(binary.path)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments + ["--home", home.path]
        var environment = ProcessInfo.processInfo.environment
        environment["HEALTHBRIDGE_LOG_LEVEL"] = "critical"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The blocking reads run on threads of their own: on the cooperative pool (two threads here) they would hold
        // every thread the in-process servers of other tests need while the child runs.
        async let stdout = readToEnd(out.fileHandleForReading)
        async let stderr = readToEnd(err.fileHandleForReading)
        let (o, e) = await (stdout, stderr)
        process.waitUntilExit()  // both pipes are closed: the child has exited or is exiting
        return Run(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                   stderr: String(decoding: e, as: UTF8.self))
    }
}

/// Reads `handle` to its end on a thread of its own.
func readToEnd(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: handle.readDataToEndOfFile()) }
    }
}

// MARK: - MCP

enum MCPInterface {
    static func call(_ tool: String, _ arguments: [String: Value],
                     service: HealthService? = nil) async throws -> (ok: Bool, value: JSONValue) {
        let shared = try await World.service
        let toolbox = HealthToolbox(service: service ?? shared)
        let result = await toolbox.call(tool, arguments: arguments)
        let data = try JSONEncoder().encode(Value.object(result.structuredContent?.objectValue ?? [:]))
        return (result.isError != true, try JSONValue.parse(Array(data)))
    }
}

// MARK: - HTTPS

/// The export API on 127.0.0.1 with its own state directory, a paired client, and every type shared.
final class HTTPSInterface: Sendable {
    let task: Task<Void, any Error>
    let port: Int
    let token: String
    let clientId: String
    let fingerprint: String
    let home: URL

    static func start(service: HealthService? = nil, grantAll: Bool = true) async throws -> HTTPSInterface {
        let shared = try await World.service
        let service = service ?? shared
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-https-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let identity = try ServerIdentity.generate(hostNames: ["localhost"])
        let state = try AccessStore(home: home)
        var configuration = PairedAPIServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.rateLimit = 0
        configuration.tlsShutdownTimeout = .milliseconds(50)
        let server = PairedAPIServer(configuration: configuration, identity: identity, state: state, service: service,
                                  logger: World.logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try server.application { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let (code, _) = try state.issuePairingCode()
        let paired = try await PairedAPIRemote.pair(host: "127.0.0.1", port: port, fingerprint: identity.fingerprint,
                                                 code: code, clientName: "parity", timeout: .seconds(60))
        // Paired devices read what the owner granted them: everything, for the parity questions.
        if grantAll {
            try await service.updateGrants(GrantsUpdate(principal: Principal.device(paired.clientId).id, allowRead: ["*"]))
        }
        return HTTPSInterface(task: task, port: port, token: paired.token, clientId: paired.clientId,
                              fingerprint: identity.fingerprint, home: home)
    }

    init(task: Task<Void, any Error>, port: Int, token: String, clientId: String, fingerprint: String, home: URL) {
        self.task = task; self.port = port; self.token = token; self.clientId = clientId; self.fingerprint = fingerprint
        self.home = home
    }

    func get(_ path: String) async throws -> (status: Int, value: JSONValue) {
        try await send("GET", path)
    }

    func send(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> (status: Int, value: JSONValue) {
        let client = PinnedHTTPSClient(host: "127.0.0.1", port: port, fingerprint: fingerprint, timeout: .seconds(30))
        var headers = [("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let reply = try await client.send(method: method, path: path, headers: headers, body: body?.serialized())
        return (reply.status, try JSONValue.parse(reply.body))
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        try? FileManager.default.removeItem(at: home)
    }
}

extension String {
    /// Percent-encodes a query value.
    var queryEncoded: String {
        addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? self
    }
}

/// The node's answer as the parity tests read it.
enum NodeInterface {
    static func invoke(_ command: String, _ params: [String: JSONValue], service: HealthService? = nil,
                       writes: Bool = false) async throws -> (ok: Bool, value: JSONValue) {
        let paramsJSON = String(decoding: JSONValue.object(params).serialized(), as: UTF8.self)
        let (ok, data) = try await NodeInvoker.invoke(command, paramsJSON: paramsJSON, service: service, writes: writes)
        return (ok, try JSONValue.parse(Array(data)))
    }
}
