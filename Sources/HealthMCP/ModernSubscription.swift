import Foundation
import HealthAPI
import HealthService
import Logging
import MCP

/// One `subscriptions/listen` stream of MCP 2026-07-28: the frames a transport writes, in order. The first is
/// `notifications/subscriptions/acknowledged` with the honored filter; then one `notifications/resources/updated`
/// per change of a subscribed resource; every frame carries the subscription id (the listen request's id) in
/// `_meta["io.modelcontextprotocol/subscriptionId"]`. A graceful end (``close(graceful:)``, e.g. at shutdown) sends
/// the listen request's result last.
///
/// Changes come from ``ResourceSubscriptions`` (the service's change feed, within 1 s of a commit, each URI held
/// once while undelivered). Delivery hands one frame at a time to the transport and waits until it takes it: a slow
/// client only makes its own updates coalesce, it never holds the change feed or the server. When the transport is
/// gone (``close(graceful:)``), the subscriptions end.
///
/// ```swift
/// let subscription = ModernSubscription(id: .string("listen-1"), service: toolbox.service)
/// try await subscription.start(["healthbridge://latest/bodyMass"])
/// while let frame = await subscription.next() { write(frame) }
/// ```
public actor ModernSubscription {
    /// What the transport writes next.
    public enum Frame: Sendable, Equatable {
        /// A JSON-RPC message (a notification, or the final result).
        case message(Data)
        /// Nothing happened for a while: an SSE comment keeps proxies from closing the stream.
        case keepalive
    }

    public let id: ID
    private let service: HealthService
    private let logger: Logger
    private var subscriptions: ResourceSubscriptions?
    /// Frames not taken yet, and the deliveries waiting for theirs to be taken.
    /// Each with the delivery that waits for it to be taken (none for the acknowledgement and keepalives).
    private var queue: [(frame: Frame, producer: CheckedContinuation<Void, any Error>?)] = []
    private var consumer: CheckedContinuation<Frame?, Never>?
    private var finished = false
    /// The resource URIs honored, as the acknowledgement names them.
    public private(set) var honored: [String] = []
    /// How many updates the transport has taken.
    public private(set) var delivered = 0

    public init(id: ID, service: HealthService,
                logger: Logger = Logger(label: "healthbridge.mcp.listen", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.id = id
        self.service = service
        self.logger = logger
    }

    /// Subscribes to `uris` (each checked by the caller) and queues the acknowledgement.
    public func start(_ uris: [String]) async throws {
        honored = uris
        var filter: [String: JSONValue] = [:]
        if !uris.isEmpty { filter["resourceSubscriptions"] = .array(uris.map(JSONValue.string)) }
        queue.append((.message(MCPModernProtocol.notification("notifications/subscriptions/acknowledged",
                                                              params: ["notifications": .object(filter), "_meta": stampMeta])), nil))
        guard !uris.isEmpty else { return }
        let subscriptions = ResourceSubscriptions(service: service, logger: logger) { [weak self] uri in
            guard let self else { throw MCPError.connectionClosed }
            try await self.offer(uri)
        }
        self.subscriptions = subscriptions
        for uri in uris { try await subscriptions.subscribe(uri) }
    }

    var stampMeta: JSONValue { .object([MCPModernProtocol.MetaKey.subscriptionID: MCPModernProtocol.plainID(id)]) }

    /// Queues an update of `uri` and waits until the transport takes it; throws when the stream has ended.
    func offer(_ uri: String) async throws {
        guard !finished else { throw MCPError.connectionClosed }
        let frame = Frame.message(MCPModernProtocol.notification("notifications/resources/updated",
                                                                 params: ["uri": .string(uri), "_meta": stampMeta]))
        if let consumer {
            self.consumer = nil
            delivered += 1
            consumer.resume(returning: frame)
            return
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.append((frame, continuation))
        }
    }

    /// Queues a keepalive when nothing is waiting to be written.
    public func keepalive() {
        guard !finished, queue.isEmpty else { return }
        if let consumer {
            self.consumer = nil
            consumer.resume(returning: .keepalive)
        } else {
            queue.append((.keepalive, nil))
        }
    }

    /// The next frame, waiting for one; nil once the stream has ended and every frame was taken.
    public func next() async -> Frame? {
        if !queue.isEmpty {
            let (frame, producer) = queue.removeFirst()
            if let producer {
                delivered += 1
                producer.resume()
            }
            return frame
        }
        if finished { return nil }
        return await withCheckedContinuation { continuation in consumer = continuation }
    }

    /// Ends the stream. Graceful (the server stops the subscription): the listen request's result is the last frame.
    /// Not graceful (the client went away or cancelled): what is queued is dropped.
    public func close(graceful: Bool) async {
        guard !finished else { return }
        finished = true
        await subscriptions?.close()
        subscriptions = nil
        // Updates not taken yet are dropped (their deliveries end); a graceful end keeps the acknowledgement if it
        // was not written yet and ends with the result.
        for entry in queue { entry.producer?.resume(throwing: MCPError.connectionClosed) }
        queue.removeAll { entry in entry.producer != nil || entry.frame == .keepalive || !graceful }
        if graceful {
            let result = JSONValue.object(["_meta": stampMeta]).encoded()
            queue.append((.message(MCPModernProtocol.response(id: id, result: MCPModernProtocol.stamp(result, cacheable: false))), nil))
        }
        if let consumer {
            self.consumer = nil
            consumer.resume(returning: queue.isEmpty ? nil : queue.removeFirst().frame)
        }
    }

    /// True once ``close(graceful:)`` ran.
    public var isClosed: Bool { finished }
}
