import Foundation
import Logging
import MCP

/// MCP 2026-07-28 on stdio, beside the 2025 protocol: a transport in front of another that answers every message of
/// the stateless era itself (``HealthMCPModernServer``) and hands everything else to the next layer unchanged.
///
/// A message is of the stateless era when its `params._meta` names protocol version 2026-07-28, and `server/discover`
/// always is (without the envelope it is refused as the ladder says, which sends an auto-negotiating client to
/// `initialize`). A `subscriptions/listen` stream writes its frames as notifications on stdout, each tagged with the
/// subscription id; the client ends it with `notifications/cancelled` naming the listen request. Each request runs
/// in its own child task; when the input ends, the open streams end and the answers under way are written before the
/// next layer sees the end.
///
/// ```swift
/// let stdio = ModernStdioTransport(BlockingStdioTransport(logger: logger), toolbox: toolbox, logger: logger)
/// let transport = ToolCallTransport(stdio, toolbox: toolbox, logger: logger)
/// ```
public actor ModernStdioTransport: Transport {
    public nonisolated let logger: Logger
    private let inner: any Transport
    private let toolbox: HealthToolbox
    private let modern: HealthMCPModernServer
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var pump: Task<Void, Never>?
    /// Open `subscriptions/listen` streams by request id.
    private var listens: [ID: ModernSubscription] = [:]

    public init(_ inner: any Transport, toolbox: HealthToolbox, modern: HealthMCPModernServer? = nil, logger: Logger) {
        self.inner = inner
        self.toolbox = toolbox
        self.modern = modern ?? HealthMCPModernServer(logger: logger)
        self.logger = logger
        (messages, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    }

    public func connect() async throws {
        guard pump == nil else { return }
        try await inner.connect()
        let source = await inner.receive()
        let continuation = continuation
        pump = Task {
            let failure: (any Error)? = await withDiscardingTaskGroup { group in
                do {
                    for try await data in source {
                        guard let request = Self.modernRequest(data) else {
                            if let cancelled = Self.cancelledRequest(data), await self.endListen(cancelled) { continue }
                            continuation.yield(data)
                            continue
                        }
                        group.addTask { await self.answer(request) }
                    }
                    await self.endAllListens()
                    return nil
                } catch {
                    await self.endAllListens()
                    return error
                }
            }
            continuation.finish(throwing: failure)
        }
    }

    /// The message, decoded, when it belongs to the stateless era (see the type's summary); nil for any other.
    static func modernRequest(_ data: Data) -> MCPModernProtocol.Request? {
        // Most 2025 messages name neither: look before decoding anything.
        let discover = data.range(of: Data(#""server/discover""#.utf8)) != nil
        guard discover || data.range(of: MCPModernProtocol.envelopeMarker) != nil,
              let request = try? MCPModernProtocol.Request.parse(data) else { return nil }
        let modern = request.method == "server/discover"
            || request.meta[MCPModernProtocol.MetaKey.protocolVersion] == .string(MCPModernProtocol.version)
        return modern ? request : nil
    }

    /// The request id a `notifications/cancelled` names.
    static func cancelledRequest(_ data: Data) -> ID? {
        guard data.range(of: Data(#""notifications/cancelled""#.utf8)) != nil,
              let request = try? MCPModernProtocol.Request.parse(data), request.id == nil,
              request.method == "notifications/cancelled" else { return nil }
        switch request.params["requestId"] {
        case .string(let text)?: return .string(text)
        case .int(let number)?: return Int(exactly: number).map { .number($0) }
        default: return nil
        }
    }

    private func answer(_ request: MCPModernProtocol.Request) async {
        switch await modern.handle(request, headers: nil, toolbox: toolbox) {
        case .accepted:
            return
        case .response(_, let body):
            await write(body)
        case .listen(let subscription):
            listens[subscription.id] = subscription
            while let frame = await subscription.next() {
                if case .message(let message) = frame { await write(message) }
            }
            listens[subscription.id] = nil
        }
    }

    private func write(_ data: Data) async {
        do {
            try await inner.send(data)
        } catch {
            logger.error("cannot write a 2026-07-28 answer", metadata: ["error": "\(error)"])
        }
    }

    /// Ends the listen stream `id` names; false when there is none (the cancellation is someone else's).
    private func endListen(_ id: ID) async -> Bool {
        guard let subscription = listens.removeValue(forKey: id) else { return false }
        await subscription.close(graceful: false)
        return true
    }

    private func endAllListens() async {
        let open = listens.values
        listens.removeAll()
        for subscription in open { await subscription.close(graceful: false) }
    }

    public func disconnect() async {
        await endAllListens()
        await inner.disconnect()
        pump?.cancel()
        continuation.finish()
    }

    public func send(_ data: Data) async throws {
        try await inner.send(data)
    }

    public func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }
}
