import Foundation
import GatewayNode
import HealthBridgeTesting
import HealthModel
import HealthService
import HealthStore
import HealthSupport
import Testing

extension GatewayNodeTests {
    /// Issue 17, findings 1 and 4: a gateway cannot crash the node with its numbers nor drive it with frames out of
    /// order, and plain text beyond loopback needs a loud flag.
    @Suite struct Hardening {
        @Test func aHugeRetryAfterIsClampedNotATrap() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.unavailableConnects = 1
                config.retryAfterMs = Int.max
                let gateway = try await TestGateway.start(config)
                defer { Task { await gateway.stop() } }
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                defer { Task { await node.stop() } }
                #expect(await node.log.wait { if case .disconnected = $0 { true } else { false } })
                let delays = node.log.all.compactMap { status -> Int? in
                    if case .disconnected(_, let ms) = status { ms } else { nil }
                }
                #expect(delays.first.map { $0 > 0 && $0 <= GatewaySessionRules.maxRetryDelayMs } == true)
            }
        }

        @Test func aShutdownBeforeTheChallengeIsIgnored() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.preChallengeFrames = [
                    try GatewayWire.event("shutdown", payload: .object(["reason": .string("spoofed"),
                                                                   "restartExpectedMs": .int(Int64.max)])),
                    try GatewayWire.event("tick", payload: .object(["ts": .int(1)])),
                    try GatewayWire.event("node.invoke.request", payload: .object([
                        "id": .string("x"), "nodeId": .string("n"), "command": .string("health.query")])),
                ]
                let gateway = try await TestGateway.start(config)
                defer { Task { await gateway.stop() } }
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                defer { Task { await node.stop() } }
                #expect(await node.log.wait { if case .connected = $0 { true } else { false } })
                #expect(!node.log.contains { if case .disconnected = $0 { true } else { false } })
                #expect(gateway.snapshot().results.isEmpty, "no invoke answered before hello-ok")
            }
        }

        /// The original crash: a connected node told to expect a restart in Int64.max ms. It waits the clamped
        /// maximum instead of trapping in the Double → Int64 conversion.
        @Test func aShutdownWithAHugeRestartTimeAfterHelloIsClamped() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                let gateway = try await TestGateway.start(TestGateway.Config())
                defer { Task { await gateway.stop() } }
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                defer { Task { await node.stop() } }
                let session = try #require(await gateway.waitForNode())
                #expect(await node.log.wait { if case .connected = $0 { true } else { false } })
                session.send(try GatewayWire.event("shutdown", payload: .object([
                    "reason": .string("restart"), "restartExpectedMs": .int(Int64.max)])))
                #expect(await node.log.wait { if case .disconnected = $0 { true } else { false } })
                let delays = node.log.all.compactMap { status -> Int? in
                    if case .disconnected(_, let ms) = status { ms } else { nil }
                }
                #expect(delays.first.map { $0 > 0 && $0 <= GatewaySessionRules.maxRetryDelayMs } == true, "\(delays)")
            }
        }

        @Test func numbersFromTheGatewayNeverTrap() throws {
            #expect(GatewaySessionRules.int64(clamping: 1e300) == .max)
            #expect(GatewaySessionRules.int64(clamping: -1e300) == .min)
            #expect(GatewaySessionRules.int64(clamping: .nan) == 0)
            #expect(GatewaySessionRules.int64(clamping: 9_223_372_036_854_775_807.0) == .max)
            #expect(GatewaySessionRules.retryDelayMs(.max) == GatewaySessionRules.maxRetryDelayMs)
            #expect(GatewaySessionRules.retryDelayMs(-5) == 0)
            #expect(GatewaySessionRules.scaledDelayMs(.infinity, factor: 1.1) == Int64(GatewaySessionRules.maxRetryDelayMs))
            #expect(GatewaySessionRules.scaledDelayMs(Double(Int.max), factor: 1.1) == Int64(GatewaySessionRules.maxRetryDelayMs))
            let challenge = try JSONDecoder().decode(ConnectChallenge.self, from: Data(#"{"nonce":"n","ts":1e300}"#.utf8))
            #expect(challenge.ts == .max)
            let invoke = try JSONDecoder().decode(NodeInvokeRequest.self, from: Data(
                #"{"id":"1","nodeId":"n","command":"health.query","timeoutMs":1e300}"#.utf8))
            #expect(invoke.timeoutMs == .max)
        }

        @Test func framesAreCheckedAgainstThePhase() {
            #expect(!GatewaySessionRules.accepts(event: "shutdown", in: .awaitingChallenge))
            #expect(GatewaySessionRules.accepts(event: "shutdown", in: .awaitingHello))
            #expect(GatewaySessionRules.accepts(event: "shutdown", in: .ready))
            #expect(GatewaySessionRules.accepts(event: "connect.challenge", in: .awaitingChallenge))
            #expect(!GatewaySessionRules.accepts(event: "connect.challenge", in: .ready))
            #expect(!GatewaySessionRules.accepts(event: "node.invoke.request", in: .awaitingHello))
            #expect(!GatewaySessionRules.acceptsRequests(in: .awaitingChallenge))
        }

        @Test func plainTextBeyondLoopbackNeedsTheFlag() throws {
            #expect(throws: GatewayURLPolicy.Violation.plainTextBeyondLoopback(host: "192.168.1.5")) {
                try GatewayURLPolicy.check("ws://192.168.1.5:18789", allowInsecure: false)
            }
            #expect(throws: GatewayURLPolicy.Violation.plainTextBeyondLoopback(host: "127.evil.example")) {
                try GatewayURLPolicy.check("ws://127.evil.example:18789", allowInsecure: false)
            }
            #expect(try GatewayURLPolicy.check("ws://192.168.1.5:18789", allowInsecure: true))
            #expect(try !GatewayURLPolicy.check("ws://127.0.0.1:18789", allowInsecure: false))
            #expect(try !GatewayURLPolicy.check("ws://localhost:18789", allowInsecure: false))
            #expect(try !GatewayURLPolicy.check("ws://[::1]:18789", allowInsecure: false))
            #expect(try !GatewayURLPolicy.check("wss://gateway.example:18789", allowInsecure: false))
            #expect(throws: GatewayURLPolicy.Violation.malformed("http://x")) {
                try GatewayURLPolicy.check("http://x", allowInsecure: false)
            }
        }

        @Test func theNodeRefusesPlainTextBeyondLoopback() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                await #expect(throws: GatewayURLPolicy.Violation.self) {
                    try await GatewayNode.run(gateway: "ws://192.0.2.1:18789", token: nil,
                                              home: HealthBridgeHome(directory: dir), service: service, logger: .init(label: "t"))
                }
            }
        }
    }
}
