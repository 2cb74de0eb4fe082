import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import PairedAPIClient
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 24: the audit no longer fsyncs once per answer, so durability is proven again on a real process. Many data
/// reads and writes are answered concurrently, then `healthbridge serve` is SIGKILLed the moment the last answer
/// arrives: every answered read and write has its entries in `export.sqlite`. And a graceful stop (SIGTERM) keeps the
/// `api.request` lines of answers without data, which are written after the answer.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct AuditCrashTests {
    /// The built `healthbridge`, next to the test bundle.
    static let binary = BuiltProducts.executable(named: "healthbridge")

    static func process(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HEALTHBRIDGE_LOG_LEVEL"] = "critical"
        environment.removeValue(forKey: "OPENCLAW_GATEWAY_URL")
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// Runs a command to its end; its standard output.
    static func run(_ arguments: [String]) async throws -> String {
        let process = Self.process(arguments)
        let out = Pipe()
        process.standardOutput = out
        let status = Mutex<Int32>(0)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { finished in
                status.withLock { $0 = finished.terminationStatus }
                continuation.resume()
            }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(status.withLock { $0 } == 0, "healthbridge \(arguments.joined(separator: " ")) failed")
        return output
    }

    /// Waits for a started process to end.
    static func exit(of process: Process) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    /// A free TCP port on 127.0.0.1 (bound and released).
    static func freePort() throws -> Int { try BuiltProducts.freeLoopbackPort() }

    /// A data directory with a weight to read, `device:*` allowed to read weights and write water, a server
    /// answering on `port`, and a paired device.
    struct Server {
        let home: URL
        let process: Process
        let connection: Connection

        static func start() async throws -> Server {
            let home = try Fixture.temporaryHome()
            let port = try AuditCrashTests.freePort()
            let card = try await AuditCrashTests.run(["pair-code", "--json", "--host", "127.0.0.1", "--port", String(port),
                                                      "--home", home.path])
            let payload = try JSONDecoder().decode(PairingPayload.self, from: Data(card.utf8))
            _ = try await AuditCrashTests.run(["log", "weight", "80.2", "--at", "1h", "--home", home.path])
            _ = try await AuditCrashTests.run(["grants", "device:*", "--allow-read", "bodyMass", "--allow-write", "dietaryWater",
                                               "--home", home.path])
            let process = AuditCrashTests.process(["serve", "--home", home.path, "--mcp-port", "0", "--api-bind", "127.0.0.1",
                                                   "--api-port", String(port), "--no-advertise", "--rate-limit", "0"])
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = ContinuousClock.now + .seconds(60)
            var paired: PairedServer?
            while paired == nil, ContinuousClock.now < deadline {
                paired = try? await PairedAPIRemote.pair(host: "127.0.0.1", port: port, fingerprint: payload.fingerprint,
                                                         code: payload.code, clientName: "crash-test", timeout: .seconds(5))
                if paired == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            guard let paired else {
                kill(process.processIdentifier, SIGKILL)
                throw PairedAPIClientError.invalidArgument("healthbridge serve did not pair within 60 s")
            }
            return Server(home: home, process: process, connection: Connection(
                client: PinnedHTTPSClient(host: "127.0.0.1", port: port, fingerprint: payload.fingerprint, timeout: .seconds(60)),
                token: paired.token))
        }

        func send(_ method: String, _ path: String, body: String? = nil) async throws -> PinnedHTTPSClient.Reply {
            try await connection.send(method, path, body: body)
        }

        /// Every audit entry in the file, read as another process would.
        func auditEvents() throws -> [AuditEvent] { try AccessStore(home: home).auditEvents(limit: 100_000) }
    }

    /// The paired device's requests, one connection each.
    struct Connection: Sendable {
        let client: PinnedHTTPSClient
        let token: String

        /// Sends a request; a connection that fails before any answer (loopback under the suite's load) is tried again,
        /// up to three times: only answered requests are checked.
        func send(_ method: String, _ path: String, body: String? = nil) async throws -> PinnedHTTPSClient.Reply {
            var headers = [("Authorization", "Bearer \(token)")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            var attempt = 1
            while true {
                do {
                    return try await client.send(method: method, path: path, headers: headers, body: body.map { Array($0.utf8) })
                } catch where error is PairedAPIClientError && attempt < 3 {
                    attempt += 1
                }
            }
        }
    }

    /// The answered requests of concurrent workers: request id and the entry it must have.
    final class Answers: Sendable {
        let list = Mutex<[(id: String, kind: AuditEvent.Kind)]>([])
    }

    @Test func everyAnsweredReadAndWriteSurvivesASIGKILL() async throws {
        let server = try await Server.start()
        defer { try? FileManager.default.removeItem(at: server.home) }
        let answered = Answers()
        let connection = server.connection
        // 8 connections at once, each alternating a read with data, a write and a status.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<6 {
                        let read = try await connection.send("GET", "/api/v1/health/data?types=bodyMass")
                        let write = try await connection.send("POST", "/api/v1/log/water",
                                                          body: #"{"value": 250, "unit": "mL", "log_id": "w\#(worker)-\#(round)"}"#)
                        _ = try await connection.send("GET", "/api/v1/status")
                        for (reply, kind) in [(read, AuditEvent.Kind.dataRead), (write, .dataWrite)] {
                            #expect(reply.status == 200, "\(kind): \(String(decoding: reply.body, as: UTF8.self))")
                            if reply.status == 200, let id = reply.header(PairedAPIProtocol.requestIDHeader) {
                                answered.list.withLock { $0.append((id, kind)) }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        kill(server.process.processIdentifier, SIGKILL)
        await Self.exit(of: server.process)

        let events = try server.auditEvents()
        let answers = answered.list.withLock { $0 }
        #expect(answers.count == 8 * 6 * 2)
        var byRequest: [String: [AuditEvent.Kind]] = [:]
        for event in events { if let id = event.requestId { byRequest[id, default: []].append(event.event) } }
        for answer in answers {
            let kinds = byRequest[answer.id] ?? []
            #expect(kinds.contains(answer.kind), "\(answer.kind) of \(answer.id) was lost with the server: \(kinds)")
            #expect(kinds.contains(.apiRequest), "api.request of \(answer.id) was lost with the server")
        }
    }

    @Test func aGracefulStopKeepsTheLinesOfAnswersWithoutData() async throws {
        let server = try await Server.start()
        defer { try? FileManager.default.removeItem(at: server.home) }
        var ids: [String] = []
        for _ in 0..<20 {
            let reply = try await server.send("GET", "/api/v1/status")
            #expect(reply.status == 200)
            if let id = reply.header(PairedAPIProtocol.requestIDHeader) { ids.append(id) }
        }
        server.process.terminate()   // SIGTERM: the graceful stop
        await Self.exit(of: server.process)
        let stored = Set(try server.auditEvents().filter { $0.event == .apiRequest }.compactMap(\.requestId))
        #expect(ids.count == 20)
        for id in ids { #expect(stored.contains(id), "the status line of \(id) was lost on a graceful stop") }
    }
}
