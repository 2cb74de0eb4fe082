import HealthAPI
import PairedAPIClient
import Foundation
import HealthBridgeKit
import HealthBridgeTesting
import Logging
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built executables (`healthbridge`, `diet-sync`), next to the test bundle.
enum Binaries {
    static func find(_ name: String) -> URL { BuiltProducts.executable(named: name) }

    static let healthbridge = find("healthbridge")

    /// Runs the child at a lower priority (`nice -n 10`, which execs it: same pid): the rest of the suite runs
    /// in-process servers with tight timeouts on the same cores.
    static func niced(_ process: Process, _ binary: URL, _ arguments: [String]) {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/nice") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = ["-n", "10", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
    }
    static let dietSync = find("diet-sync")

    struct Run: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a binary to the end.
    static func run(_ binary: URL, _ arguments: [String], environment extra: [String: String] = [:]) async throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) is not built")
        let process = Process()
        niced(process, binary, arguments)
        var environment = ProcessInfo.processInfo.environment
        environment["HEALTHBRIDGE_LOG_LEVEL"] = "critical"
        environment.removeValue(forKey: "OPENCLAW_GATEWAY_URL")
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Blocking reads on threads of their own, not the cooperative pool (2 threads here): a long-running child
        // must not starve the test's other tasks.
        let collected = Collected()
        let group = DispatchGroup()
        group.enter()
        process.terminationHandler = { finished in
            collected.status.withLock { $0 = finished.terminationStatus }
            group.leave()
        }
        try process.run()
        for (handle, target) in [(out.fileHandleForReading, 0), (err.fileHandleForReading, 1)] {
            group.enter()
            Thread.detachNewThread {
                let data = handle.readDataToEndOfFile()
                if target == 0 {
                    collected.stdout.withLock { $0 = data }
                } else {
                    collected.stderr.withLock { $0 = data }
                }
                group.leave()
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        let (o, e, status) = (collected.stdout.withLock { $0 }, collected.stderr.withLock { $0 }, collected.status.withLock { $0 })
        return Run(status: status, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func healthbridge(_ arguments: [String], home: URL) async throws -> Run {
        try await run(healthbridge, arguments + ["--home", home.path])
    }
}

/// What a child process printed, and how it ended.
final class Collected: Sendable {
    let stdout = Mutex(Data())
    let stderr = Mutex(Data())
    let status = Mutex<Int32>(0)
}

/// A free TCP port on 127.0.0.1 (bound and released: another process could take it meanwhile, rarely).
func freePort() throws -> Int { try BuiltProducts.freeLoopbackPort() }

/// `healthbridge serve` as a real process in a temporary data directory, on 127.0.0.1, that a test can SIGKILL
/// and start again on the same port.
actor ServerProcess {
    nonisolated let home: URL
    nonisolated let port: Int
    nonisolated let fingerprint: String
    private var process: Process?

    init() async throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("hbkit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        port = try freePort()
        // pair-code creates the server identity, so the fingerprint is known before the server starts.
        let card = try await Binaries.healthbridge(["pair-code", "--json", "--host", "127.0.0.1", "--port", String(port)],
                                                   home: home)
        let payload = try JSONDecoder().decode(PairingPayload.self, from: Data(card.stdout.utf8))
        fingerprint = payload.fingerprint
        try await start()
    }

    /// Starts the server and waits until it answers.
    func start() async throws {
        let process = Process()
        Binaries.niced(process, Binaries.healthbridge,
                       ["serve", "--home", home.path, "--mcp-port", "0", "--api-bind", "127.0.0.1",
                        "--api-port", String(port), "--no-advertise", "--rate-limit", "0"])
        var environment = ProcessInfo.processInfo.environment
        environment["HEALTHBRIDGE_LOG_LEVEL"] = "critical"
        environment.removeValue(forKey: "OPENCLAW_GATEWAY_URL")
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let client = PinnedHTTPSClient(host: "127.0.0.1", port: port, fingerprint: fingerprint, timeout: .seconds(2))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let reply = try? await client.send(method: "GET", path: "/api/v1/status"), reply.status > 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("healthbridge serve did not answer within 30 s")
    }

    /// SIGKILL: no shutdown, no flush.
    func kill9() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// SIGKILL too: a graceful stop would wait for the observers' long-polls.
    func stop() {
        kill9()
        try? FileManager.default.removeItem(at: home)
    }

    /// A new one-time code's QR payload; with `app`, a code issued for that app id (`pair-code --app`).
    func pairingPayload(port overridePort: Int? = nil, app: String? = nil) async throws -> String {
        let card = try await Binaries.healthbridge(["pair-code", "--json", "--host", "127.0.0.1",
                                                    "--port", String(overridePort ?? port)] + (app.map { ["--app", $0] } ?? []),
                                                   home: home)
        try #require(card.status == 0, "pair-code failed: \(card.stderr)")
        return card.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The owner approves every pending access request (`healthbridge access approve ID`).
    func approvePending() async throws {
        let list = try await Binaries.healthbridge(["access", "list", "--status", "pending", "--json"], home: home)
        try #require(list.status == 0, "access list failed: \(list.stderr)")
        struct Requests: Decodable { struct Request: Decodable { var id: String }; var requests: [Request] }
        let requests = try JSONDecoder().decode(Requests.self, from: Data(list.stdout.utf8)).requests
        try #require(!requests.isEmpty, "no pending access request")
        for request in requests {
            let approved = try await Binaries.healthbridge(["access", "approve", request.id], home: home)
            try #require(approved.status == 0, "approve failed: \(approved.stderr)")
        }
    }

    /// A kit client paired as an app, authorized for the diet app's full set.
    func pairedApp(appId: String = "org.example.test", proxyPort: Int? = nil) async throws -> (HealthBridgeManager, URL) {
        let directory = home.appendingPathComponent("app-\(UUID().uuidString.prefix(6))")
        let manager = try HealthBridgeManager(appId: appId, credentialsFile: directory.appendingPathComponent("healthbridge.json"),
                                              timeout: .seconds(60), logger: HealthBridgeManager.silentLogger)
        try await manager.pair(qrPayload: try await pairingPayload(port: proxyPort, app: appId), clientName: "test app")
        try await manager.requestFullAuthorization()
        try await approvePending()
        return (manager, directory)
    }
}
