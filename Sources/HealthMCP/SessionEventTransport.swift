import Foundation
import Logging
import MCP

/// The transport of one streamable-HTTP session: requests and their answers go through the SDK's JSON-response
/// transport (``inner``); the server's own messages (`notifications/resources/updated`) go to the session's GET
/// stream as server-sent events. Without an open stream they are dropped, as the protocol allows. The stream's buffer
/// keeps the newest ``bufferedEvents`` events: a client that does not read drops its oldest updates, never holds
/// the server. An idle stream carries an SSE comment every ``keepaliveInterval``.
///
/// ```swift
/// let transport = SessionEventTransport(StatelessHTTPServerTransport(logger: logger), logger: logger)
/// try await server.start(transport: transport)
/// let events = await transport.openEventStream()   // the body of the session's GET
/// ```
public actor SessionEventTransport: Transport {
    public nonisolated let logger: Logger
    /// The transport the requests go through.
    public nonisolated let inner: StatelessHTTPServerTransport
    /// Events a GET stream buffers for a client that reads slowly.
    public static let bufferedEvents = 64
    /// How often an idle stream carries an SSE comment.
    public static let keepaliveInterval: Duration = .seconds(25)
    private var events: AsyncThrowingStream<Data, any Error>.Continuation?
    private var streamID = 0
    private var incoming: AsyncThrowingStream<Data, any Error>?

    public init(_ inner: StatelessHTTPServerTransport, logger: Logger) {
        self.inner = inner
        self.logger = logger
    }

    public func connect() async throws {
        try await inner.connect()
        incoming = await inner.receive()
    }

    public func disconnect() async {
        events?.finish()
        events = nil
        await inner.disconnect()
    }

    /// The inner transport's messages (the server asks for them after `connect`).
    public func receive() -> AsyncThrowingStream<Data, any Error> {
        incoming ?? AsyncThrowingStream { $0.finish(throwing: MCPError.internalError("transport not connected")) }
    }

    /// Responses go back to the waiting POST; messages of the server's own go to the GET stream.
    public func send(_ data: Data) async throws {
        guard MessageHead.isServerMessage(data) else {
            try await inner.send(data)
            return
        }
        guard let events else {
            logger.debug("no GET stream open: a server message is dropped")
            return
        }
        events.yield(Self.event(data))
    }

    /// Opens the session's event stream (an earlier one ends: one GET stream per session). It starts with an SSE
    /// comment so that the client sees the stream open at once.
    public func openEventStream() -> AsyncThrowingStream<Data, any Error> {
        events?.finish()
        streamID += 1
        let id = streamID
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(Self.bufferedEvents))
        continuation.yield(Data(": stream open\n\n".utf8))
        // A comment now and then: proxies keep the stream open, and a client that is gone is noticed by the write.
        let keepalive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.keepaliveInterval)
                if case .terminated = continuation.yield(Data(": keepalive\n\n".utf8)) { return }
            }
        }
        continuation.onTermination = { [weak self] _ in
            keepalive.cancel()
            Task { await self?.streamEnded(id) }
        }
        events = continuation
        return stream
    }

    /// Whether a GET stream is open (for tests).
    public var hasEventStream: Bool { events != nil }

    private func streamEnded(_ id: Int) {
        if id == streamID { events = nil }
    }

    /// One server-sent event carrying a JSON-RPC message.
    static func event(_ message: Data) -> Data {
        Data("event: message\ndata: ".utf8) + message + Data("\n\n".utf8)
    }
}

extension MessageHead {
    /// A notification or request of the server's own (a method, no matching request of the client's): not a
    /// response.
    static func isServerMessage(_ data: Data) -> Bool {
        guard let head = try? JSONDecoder().decode(MessageHead.self, from: data) else { return false }
        return head.method != nil
    }
}
