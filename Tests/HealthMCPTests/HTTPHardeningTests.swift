import Foundation
import HealthMCP
import HealthSupport
import Hummingbird
import NIOCore
import NIOPosix
import Testing

/// Issue 17, finding 5: the loopback-only MCP endpoint checks the Host header (DNS rebinding), and idle connections
/// are closed.
@Suite("MCP over HTTP hardening")
struct HTTPHardeningTests {
    /// Sends raw bytes on a new connection and returns what the server answers until it closes or `timeout` passes,
    /// and how long that took.
    static func exchange(_ port: Int, _ text: String?, timeout: Duration = .seconds(5),
                         untilHeadEnds: Bool = true) async throws -> (reply: String, closed: Bool, elapsed: Duration) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let start = ContinuousClock.now
        return try await channel.executeThenClose { inbound, outbound in
            if let text { try await outbound.write(ByteBuffer(string: text)) }
            return try await withThrowingTaskGroup(of: (String, Bool)?.self) { group in
                group.addTask {
                    var reply = ""
                    for try await chunk in inbound {
                        reply += String(buffer: chunk)
                        if untilHeadEnds, reply.contains("\r\n\r\n") { return (reply, false) }
                    }
                    return (reply, true)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return (first?.0 ?? "", first?.1 ?? false, ContinuousClock.now - start)
            }
        }
    }

    static func start(idleTimeout: Duration = .seconds(60)) async throws -> (port: Int, task: Task<Void, any Error>) {
        let router = Router()
        HealthMCPHTTP.addRoutes(to: router, toolbox: HealthToolbox(service: try await Fixture.service()),
                                options: .init(bearerToken: nil, loopbackOnly: true))
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, server: HealthMCPHTTP.httpServer(idleTimeout: idleTimeout),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in portSink.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return (port, task)
    }

    /// The status code of an HTTP/1.1 answer.
    static func status(_ reply: String) -> Int? {
        let parts = reply.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    static func initialize(host: String) -> String {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        return "POST /mcp HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    @Test func aForeignHostIsRefused() async throws {
        let (port, task) = try await Self.start()
        defer { task.cancel() }
        let rebinding = try await Self.exchange(port, Self.initialize(host: "evil.example"))
        #expect(Self.status(rebinding.reply) == 403)
        #expect(!rebinding.reply.lowercased().contains("mcp-session-id"))
        let numericLookalike = try await Self.exchange(port, Self.initialize(host: "127.0.0.1.evil.example:\(port)"))
        #expect(Self.status(numericLookalike.reply) == 403)
        let local = try await Self.exchange(port, Self.initialize(host: "127.0.0.1:\(port)"))
        #expect(Self.status(local.reply) == 200)
        #expect(local.reply.lowercased().contains("mcp-session-id"))
        let named = try await Self.exchange(port, Self.initialize(host: "localhost:\(port)"))
        #expect(Self.status(named.reply) == 200)
    }

    @Test func hostNamesFromAuthorities() {
        #expect(Loopback.isLoopback("127.0.0.1"))
        #expect(!Loopback.isLoopback("127.evil.example"))
        #expect(Loopback.isLoopback("[::1]"))
    }

    @Test func anIdleConnectionIsClosed() async throws {
        let (port, task) = try await Self.start(idleTimeout: .milliseconds(300))
        defer { task.cancel() }
        // The server closes the silent connection (EOF), long before the client would give up; the margin is wide
        // because the whole suite shares two cores.
        let idle = try await Self.exchange(port, nil, timeout: .seconds(30), untilHeadEnds: false)
        #expect(idle.closed)
        #expect(idle.elapsed < .seconds(20))
    }
}
