import Foundation
import HealthModel
import HealthService
import Logging
import MCP

/// One MCP session's resource subscriptions (`resources/subscribe`, `resources/unsubscribe`) and the delivery of
/// `notifications/resources/updated` when a commit changes a subscribed resource.
///
/// It listens to the service's change feed (``HealthService/changeNotifications()``, already narrowed to the types the
/// principal may read) while at least one resource is subscribed. A commit of a type marks `summary/{type}` and
/// `latest/{type}`; any commit marks `types`, `sources` and `today`. Marked URIs wait in a queue that holds each URI
/// once (a second change before delivery coalesces into the first) and at most ``maxSubscriptions`` of them; one
/// delivery runs at a time, in its own task, so a slow client only makes its own updates coalesce, and a client
/// that is gone (delivery fails) loses its subscriptions. Neither the change feed nor the server waits for it.
///
/// ```swift
/// let subscriptions = ResourceSubscriptions(service: toolbox.service, logger: logger) { uri in
///     try await server.notify(ResourceUpdatedNotification.message(.init(uri: uri)))
/// }
/// try await subscriptions.subscribe("healthbridge://latest/bodyMass")
/// ```
public actor ResourceSubscriptions {
    /// The most resources one session may subscribe to.
    public static let maxSubscriptions = 128

    let service: HealthService
    let logger: Logger
    let deliver: @Sendable (String) async throws -> Void
    /// Subscribed URI (as the client wrote it) → what it names.
    private(set) var subscribed: [String: HealthResources.Address] = [:]
    /// URIs changed and not delivered yet, oldest first, each once.
    public private(set) var pending: [String] = []
    /// How many commits this session's subscriptions have seen (readable ones, while subscribed).
    public private(set) var commitsSeen = 0
    private var delivering: Task<Void, Never>?
    private var listener: Task<Void, Never>?

    /// `deliver` sends one `notifications/resources/updated`; when it throws, the client is taken to be gone.
    public init(service: HealthService,
                logger: Logger = Logger(label: "healthbridge.mcp", factory: { _ in SwiftLogNoOpLogHandler() }),
                deliver: @escaping @Sendable (String) async throws -> Void) {
        self.service = service
        self.logger = logger
        self.deliver = deliver
    }

    deinit {
        listener?.cancel()
        delivering?.cancel()
    }

    /// The subscribed URIs, sorted.
    public var uris: [String] { subscribed.keys.sorted() }

    /// Subscribes to a resource: an unknown URI or type is the same error `resources/read` gives.
    public func subscribe(_ uri: String) throws {
        let address = try HealthResources.parse(uri)
        guard subscribed[uri] != nil || subscribed.count < Self.maxSubscriptions else {
            throw MCPError.invalidParams("at most \(Self.maxSubscriptions) resources may be subscribed to in one session; unsubscribe from some first")
        }
        subscribed[uri] = address
        startListening()
    }

    /// Ends a subscription (nothing happens for a URI that was not subscribed).
    public func unsubscribe(_ uri: String) {
        subscribed[uri] = nil
        pending.removeAll { $0 == uri }
        if subscribed.isEmpty { stopListening() }
    }

    /// Marks the subscribed resources a commit of `types` changes and starts their delivery.
    func noteChange(_ types: Set<String>) {
        commitsSeen += 1
        let changed = Set(types.map(SampleTypeRegistry.shortIdentifier))
        for (uri, address) in subscribed.sorted(by: { $0.key < $1.key }) {
            if let type = address.type, !changed.contains(type) { continue }
            if !pending.contains(uri) { pending.append(uri) }
        }
        if pending.count > Self.maxSubscriptions { pending.removeFirst(pending.count - Self.maxSubscriptions) }
        guard !pending.isEmpty, delivering == nil else { return }
        delivering = Task { await self.deliverPending() }
    }

    private func deliverPending() async {
        while !pending.isEmpty, !Task.isCancelled {
            let uri = pending.removeFirst()
            do {
                try await deliver(uri)
            } catch {
                logger.debug("MCP client gone: its resource subscriptions end", metadata: ["error": "\(error)"])
                subscribed.removeAll()
                pending.removeAll()
                stopListening()
                break
            }
        }
        delivering = nil
    }

    private func startListening() {
        guard listener == nil else { return }
        let changes = service.changeNotifications()
        listener = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.noteChange(change.types)
            }
        }
    }

    private func stopListening() {
        listener?.cancel()
        listener = nil
    }

    /// Ends every subscription and stops listening (the session is closing).
    public func close() {
        subscribed.removeAll()
        pending.removeAll()
        stopListening()
        delivering?.cancel()
        delivering = nil
    }
}
