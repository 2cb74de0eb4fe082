import Foundation
import Hummingbird
import NIOCore
import Testing
@testable import PairedAPI

/// Issue 26's MCP listener beyond loopback (`serve --mcp-tls`) has the paired API's connection guards:
/// ``ServerIdentity/guardedHTTPSServer(limiter:handshakeTimeout:idleTimeout:shutdownTimeout:)``.
@Suite("A guarded HTTPS listener")
struct GuardedHTTPSServerTests {
    /// Runs a listener with `identity`'s TLS and the guards around a router answering `GET /ping`.
    static func withListener(limiter: ConnectionLimiter, handshakeTimeout: Duration,
                             _ body: @Sendable (Int) async throws -> Void) async throws {
        let identity = try ServerIdentity.generate(hostNames: [])
        let router = Router()
        router.get("/ping") { _, _ in "pong" }
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let app = Application(router: router,
                              server: try identity.guardedHTTPSServer(limiter: limiter, handshakeTimeout: handshakeTimeout,
                                                                      shutdownTimeout: .milliseconds(50)),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0) })
        let running = Task { try await app.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(port)
    }

    @Test func connectionsBeyondTheAddressesShareAreClosed() async throws {
        let limiter = ConnectionLimiter(perAddress: 2)
        try await Self.withListener(limiter: limiter, handshakeTimeout: .seconds(30)) { port in
            let held = try (0..<2).map { _ in try RawConnection(port: port) }
            for connection in held { #expect(!(await connection.closedByPeer(within: .milliseconds(100)))) }
            let extra = try RawConnection(port: port)
            #expect(await extra.closedByPeer(within: .seconds(10)), "a third connection from one address is closed")
            #expect(limiter.count("127.0.0.1") == 2)
        }
    }

    @Test func aConnectionThatNeverHandshakesIsClosed() async throws {
        let limiter = ConnectionLimiter(perAddress: 8)
        try await Self.withListener(limiter: limiter, handshakeTimeout: .milliseconds(400)) { port in
            let silent = try RawConnection(port: port)
            #expect(await silent.closedByPeer(within: .seconds(10)), "the 400 ms handshake timeout closes it")
            let deadline = ContinuousClock.now + .seconds(10)
            while limiter.count("127.0.0.1") != 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(limiter.count("127.0.0.1") == 0)
        }
    }
}
