@testable import PairedAPIClient
import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthService
import HealthStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Logging
import Testing
@testable import PairedAPI

/// A demo store shared by every test: 4 days ending 2026-01-10 00:00 UTC, plus sentinel samples whose values and
/// source name must never reach the audit log.
enum Fixture {
    static let utc = TimeZone(identifier: "UTC")!
    static let end = ISO8601.date("2026-01-10T00:00:00Z")!
    static let sentinelSource = "Sentinel-Device-Q7"
    static let sentinelSteps = 98_765.4321
    static let sentinelHeartRate = 187.654321

    static let shared: Task<HealthService, any Error> = Task { try await makeService() }

    /// A store of its own (grants are kept in the store, so each server under test gets one).
    static func makeService() async throws -> HealthService {
        let (store, _) = try await DemoWorld(days: 4, seed: 11, end: end, zone: utc).store()
        let source = HealthSource(name: sentinelSource, bundleIdentifier: "com.example.sentinel")
        let at = ISO8601.date("2026-01-09T12:00:00Z")!
        try await store.save([
            HealthSample(type: "stepCount", start: at, end: at.addingTimeInterval(60),
                         value: .quantity(sentinelSteps, unit: "count"), source: source),
            HealthSample(type: "heartRate", start: at, end: at, value: .quantity(sentinelHeartRate, unit: "count/min"),
                         source: source),
        ])
        return HealthService(store: store, homeTimeZone: utc, clock: { end })
    }

    static func service() async throws -> HealthService { try await shared.value }

    /// Strings that would betray a health value in the audit log: the sentinel values (as sent on the wire and as
    /// stored), the sentinel source, and the JSON keys that carry values.
    static let forbiddenInAudit = ["98765.4321", "187.654321", "Sentinel", "\"value\"", "\"unit\"", "\"category\"", "bpm"]

    static let identity: ServerIdentity = try! ServerIdentity.generate(hostNames: ["localhost"])

    static func temporaryHome() throws -> URL { try TemporaryHome("export-tests").url }

    static var logger: Logger {
        var logger = Logger(label: "export-tests")
        logger.logLevel = .critical
        return logger
    }
}

/// An export server with short timeouts and its own data directory: either running on 127.0.0.1 with an ephemeral
/// port (``run(_:_:)``: TLS, real connections), or its router in process (``inProcess(_:_:)``: HummingbirdTesting's
/// `.router` framework, no socket, no TLS) for the tests of routes, status codes, bodies and auth headers.
final class Harness: Sendable {
    let home: URL
    let state: AccessStore
    let server: PairedAPIServer
    let port: Int
    let task: Task<Void, any Error>?
    /// In process: requests go straight to the router (the remote address is "unknown").
    let router: (any TestClientProtocol)?

    static func make(_ configure: (inout PairedAPIServerConfiguration) -> Void) async throws
        -> (home: URL, state: AccessStore, server: PairedAPIServer)
    {
        let home = try Fixture.temporaryHome()
        let state = try AccessStore(home: home)
        var configuration = PairedAPIServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.rateLimit = 0
        // Generous: the whole suite shares two cores, and a request slowed down by the load must not be cut off.
        // Tests of the timeouts set their own.
        configuration.idleTimeout = .seconds(30)
        configuration.requestTimeout = .seconds(30)
        configuration.auditFlushInterval = .milliseconds(50)
        configuration.tlsShutdownTimeout = .milliseconds(50)
        configuration.defaultDeviceName = "test-device"
        configure(&configuration)
        let server = PairedAPIServer(configuration: configuration, identity: Fixture.identity, state: state,
                                  service: try await Fixture.makeService(), logger: Fixture.logger)
        return (home, state, server)
    }

    static func start(_ configure: (inout PairedAPIServerConfiguration) -> Void = { _ in }) async throws -> Harness {
        let (home, state, server) = try await make(configure)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try server.application { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ServerIdentityError.startup("the server did not start") }
        return Harness(home: home, state: state, server: server, port: port, task: task, router: nil)
    }

    /// The server's router in process (no socket, no TLS): runs `body`, then checks the audit log as ``stop()`` does.
    static func inProcess(_ configure: (inout PairedAPIServerConfiguration) -> Void = { _ in },
                          _ body: @Sendable (Harness) async throws -> Void) async throws {
        let (home, state, server) = try await make(configure)
        try await server.application().test(.router) { client in
            let harness = Harness(home: home, state: state, server: server, port: 0, task: nil, router: client)
            do {
                try await body(harness)
            } catch {
                await harness.stop()
                throw error
            }
            await harness.stop()
        }
    }

    /// Starts a server, runs `body`, and stops the server (checking its audit log) whatever happens.
    static func run(_ configure: (inout PairedAPIServerConfiguration) -> Void = { _ in },
                    _ body: (Harness) async throws -> Void) async throws {
        let harness = try await start(configure)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    init(home: URL, state: AccessStore, server: PairedAPIServer, port: Int, task: Task<Void, any Error>?,
         router: (any TestClientProtocol)?) {
        self.home = home; self.state = state; self.server = server; self.port = port; self.task = task
        self.router = router
    }

    /// Stops the server, writes the pending audit entries, and checks that none of them holds a health value.
    func stop() async {
        if let task {
            task.cancel()
            _ = await task.result
        }
        await server.audit.flush()
        let dump = (try? state.rawAuditDump()) ?? ""
        for forbidden in Fixture.forbiddenInAudit {
            #expect(!dump.contains(forbidden), "the audit log contains \(forbidden)")
        }
        try? FileManager.default.removeItem(at: home)
    }

    var fingerprint: String { Fixture.identity.fingerprint }

    func client(fingerprint: String? = nil) -> PinnedHTTPSClient {
        // 60 s guards against a hang, not against slowness: the whole suite shares a two-thread cooperative pool with
        // CPU-bound synchronous tests (scanner throughput, fixtures read in 7-byte chunks) that can hold it for seconds.
        PinnedHTTPSClient(host: "127.0.0.1", port: port, fingerprint: fingerprint ?? self.fingerprint, timeout: .seconds(60))
    }

    /// Pairs a client with a fresh code and returns it ready to use.
    func pair(name: String = "test-client") async throws -> PairedAPIRemote {
        let (code, _) = try state.issuePairingCode()
        let record = try await PairedAPIRemote.pair(host: "127.0.0.1", port: port, fingerprint: fingerprint, code: code,
                                                 clientName: name, timeout: .seconds(60))
        return PairedAPIRemote(server: record, timeout: .seconds(60))
    }

    /// Shares types with every paired device: the read grants of `device:*`.
    func share(_ types: [String]) async throws {
        try await server.service.updateGrants(GrantsUpdate(principal: Principal.allDevices.id, allowRead: types))
    }

    /// A raw request with an optional token: over TLS, or to the router in process.
    func send(_ method: String, _ path: String, token: String? = nil, headers: [(String, String)] = [],
              body: [UInt8]? = nil) async throws -> PinnedHTTPSClient.Reply {
        var all = headers
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        guard let router else { return try await client().send(method: method, path: path, headers: all, body: body) }
        var fields = HTTPFields()
        for (name, value) in all {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        let response = try await router.executeRequest(uri: path, method: HTTPRequest.Method(method)!, headers: fields,
                                                       body: body.map { ByteBuffer(bytes: $0) })
        return PinnedHTTPSClient.Reply(status: response.status.code,
                                       headers: response.headers.map { ($0.name.rawName, $0.value) },
                                       body: Array(buffer: response.body))
    }

    /// Pairs a device with a fresh code through `POST /api/v1/pair` (either transport): its token and client id.
    func pairDevice(name: String = "test-client") async throws -> PairResponse {
        let (code, _) = try state.issuePairingCode()
        let body = try JSONEncoder().encode(PairRequest(code: code, clientName: name))
        let reply = try await send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                   body: Array(body))
        guard reply.status == 200, let paired = try? JSONDecoder().decode(PairResponse.self, from: Data(reply.body)) else {
            throw ServerIdentityError.startup("pairing failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return paired
    }
}

extension PinnedHTTPSClient.Reply {
    var json: JSONValue? { try? JSONValue.parse(body) }
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// A Sendable box for collecting values from concurrent tasks in tests.
final class Collected<T: Sendable>: @unchecked Sendable {
    private var items: [T] = []
    private let lock = NSLock()
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
