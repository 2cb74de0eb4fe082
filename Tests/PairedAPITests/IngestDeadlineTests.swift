import Foundation
import HTTPTypes
import HealthService
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import PairedAPI

#if canImport(Glibc)
import Glibc
#endif

/// The security review's finding 9 (issue 21): the Health Auto Export receiver's long body deadline belongs to a push
/// whose token authenticates as an ingest token, never to a request that merely names the path.
@Suite struct IngestDeadlineTests {
    /// Short deadlines so the test takes seconds: 8 s for an ordinary request (room for a machine loaded by the
    /// whole suite and a build beside it to read the head, authenticate and answer: 5 s was cut once), 60 s for an
    /// authenticated push.
    static func configure(_ configuration: inout PairedAPIServerConfiguration) {
        configuration.requestTimeout = .seconds(8)
        configuration.ingestRequestTimeout = .seconds(60)
        configuration.idleTimeout = .seconds(60)
    }

    static func head(token: String?, length: Int, close: Bool) -> String {
        "POST \(PairedAPIServer.ingestPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + "Content-Type: application/json\r\nContent-Length: \(length)\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    @Test func anUnauthenticatedDripIsCutAtTheShortDeadline() async throws {
        try await Harness.run(Self.configure) { harness in
            _ = try await IngestEndpointTests.token(harness)
            let (task, port) = try await Self.plainListener(harness)
            defer { task.cancel() }
            let pairedToken = try await harness.pair().server.token
            for token in [nil, "not-a-token", pairedToken] as [String?] {
                // Keep-alive, so that the server drains the unread body after its 401 instead of closing at once; the
                // drip (10 bytes every 100 ms of 100 KB) would hold the connection for 100 s.
                let drip = await SlowRequest.send(port: port, head: Self.head(token: token, length: 100_000, close: false),
                                                  body: [UInt8](repeating: 0x20, count: 100_000), chunk: 10,
                                                  every: .milliseconds(100), giveUpAfter: .seconds(40))
                #expect(drip.text.hasPrefix("HTTP/1.1 401"), "answered 401 before the body: \(drip.text.prefix(40))")
                let closed = try #require(drip.closedAfter, "the connection was still open after 40 s")
                #expect(closed < .seconds(20), "cut by the 8 s request deadline, not the 60 s one of a push: \(closed)")
            }
        }
    }

    @Test func anAuthenticatedSlowPushStillSucceeds() async throws {
        try await Harness.run(Self.configure) { harness in
            let token = try await IngestEndpointTests.token(harness)
            let (task, port) = try await Self.plainListener(harness)
            defer { task.cancel() }
            let body = try IngestEndpointTests.fixture("overlap-b.json")
            // About 13 s from head to end: well past the 8 s deadline of an ordinary request.
            let push = await SlowRequest.send(port: port, head: Self.head(token: token, length: body.count, close: true),
                                              body: body, chunk: (body.count + 12) / 13, every: .milliseconds(1000),
                                              giveUpAfter: .seconds(50))
            #expect(push.text.hasPrefix("HTTP/1.1 200"),
                    "the steady push is stored: \(push.text.prefix(200)) (closed after \(String(describing: push.closedAfter)))")
            #expect(push.text.contains("\"inserted\":6"))
        }
    }

    /// The guard alone, on virtual time: the long deadline only after the grant, only for the long path, counted from
    /// the request's head.
    @Test func theLongDeadlineIsGrantedNotAssumed() throws {
        func channel() throws -> EmbeddedChannel {
            let channel = EmbeddedChannel(handler: ConnectionGuard(requestTimeout: .seconds(2), responseTimeout: .seconds(3),
                                                                   longRequest: (PairedAPIServer.ingestPath, .seconds(120))))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            return channel
        }
        let push = HTTPRequest(method: .post, scheme: nil, authority: nil, path: PairedAPIServer.ingestPath)
        // Naming the path is not enough.
        let unauthenticated = try channel()
        try unauthenticated.writeInbound(HTTPRequestPart.head(push))
        unauthenticated.embeddedEventLoop.advanceTime(by: .milliseconds(2100))
        #expect(!unauthenticated.isActive)
        // Granted: 120 s from the head.
        let granted = try channel()
        try granted.writeInbound(HTTPRequestPart.head(push))
        granted.embeddedEventLoop.advanceTime(by: .seconds(1))
        try granted.pipeline.triggerUserOutboundEvent(ConnectionGuard.LongRequestGranted()).wait()
        granted.embeddedEventLoop.advanceTime(by: .seconds(118))
        #expect(granted.isActive)
        granted.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!granted.isActive)
        // A grant for a request on another path, or between requests, changes nothing.
        let other = try channel()
        try other.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .post, scheme: nil, authority: nil,
                                                                path: PairedAPIServer.ingestPath + "/x")))
        try other.pipeline.triggerUserOutboundEvent(ConnectionGuard.LongRequestGranted()).wait()
        other.embeddedEventLoop.advanceTime(by: .milliseconds(2100))
        #expect(!other.isActive)
        let between = try channel()
        try between.writeInbound(HTTPRequestPart.head(push))
        try between.writeInbound(HTTPRequestPart.end(nil))
        try between.pipeline.triggerUserOutboundEvent(ConnectionGuard.LongRequestGranted()).wait()
        try between.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/api/v1/status")))
        between.embeddedEventLoop.advanceTime(by: .milliseconds(2100))
        #expect(!between.isActive)
    }

    /// The plain-HTTP receiver of the harness's server (same gatekeeper and connection guard as the HTTPS listener),
    /// so the test can drip bytes below HTTP without a TLS client.
    static func plainListener(_ harness: Harness) async throws -> (Task<Void, any Error>, Int) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try harness.server.ingestApplication(host: "127.0.0.1", port: 0) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ServerIdentityError.startup("the ingest listener did not start") }
        return (task, port)
    }
}

/// A request whose body is sent a few bytes at a time over a plain socket, reading whatever the server answers
/// meanwhile, until the server closes the connection or the test gives up. Runs on a thread of its own (blocking
/// `poll(2)`), never on the concurrency pool the server's handlers need.
enum SlowRequest {
    struct Outcome: Sendable {
        /// Everything the server sent.
        var text: String
        /// When the server closed the connection, from the first byte sent; nil if it was still open.
        var closedAfter: Duration?
    }

    static func send(port: Int, head: String, body: [UInt8], chunk: Int, every interval: Duration,
                     giveUpAfter limit: Duration) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: blockingSend(port: port, head: head, body: body, chunk: max(1, chunk),
                                                            every: interval, giveUpAfter: limit))
            }
        }
    }

    private static func blockingSend(port: Int, head: String, body: [UInt8], chunk: Int, every interval: Duration,
                                     giveUpAfter limit: Duration) -> Outcome {
        guard let connection = try? RawConnection(port: port) else { return Outcome(text: "", closedAfter: .zero) }
        let start = ContinuousClock.now
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending = Array(head.utf8)
        var offset = 0
        func write(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }
        while ContinuousClock.now - start < limit {
            if offset < body.count || !pending.isEmpty {
                let end = min(body.count, offset + chunk)
                pending += body[offset..<end]
                offset = end
                guard write(pending) else { break }
                pending = []
            }
            // Read what arrived, waiting one interval.
            let ms = Int32(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
            var poller = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, max(1, ms)) > 0 {
                let n = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                received += buffer[..<n]
            }
        }
        let elapsed = ContinuousClock.now - start
        return Outcome(text: String(decoding: received, as: UTF8.self), closedAfter: elapsed < limit ? elapsed : nil)
    }
}
