import Foundation
import HealthModel
import HealthService
import Logging

/// Where ``HealthSubscriptions`` sends its events: the live gateway connection.
public protocol HealthUpdateSink: AnyObject, Sendable {
    /// Queues a `node.event` request — synchronously, in order with everything else the node sends — and returns
    /// the promise of the gateway's `res`.
    func sendEvent(_ params: NodeEventParams) throws -> ResponsePromise
}

/// `health.subscribe` / `health.unsubscribe` and the `health.update` events, from the store's change feed.
///
/// - The subscribed types and, per type, the last anchor the gateway acknowledged are kept by the service
///   (``settingKey``), so subscriptions survive restarts and reconnects.
/// - Commits are noticed through the service's `changeNotifications()` — this process's and other processes' (an
///   import while `serve` runs), only of types the principal may read — and coalesced: at most one event per type per
///   ``window``. A flush reads the service's `readableChanges(since:types:limit:)` from
///   the acknowledged anchor, page by page, keeping only the newest five new samples of each type (history is never
///   re-queried), and sends one `health.update` `{type, latestSamples}` per type that has new samples.
/// - The acknowledged anchor advances only after the gateway's `res ok`: what was not acknowledged before a
///   disconnect — or stored while disconnected — is sent after the next `hello-ok` (at least once).
public actor HealthSubscriptions {
    public static let settingKey = "openclaw.node.subscriptions"
    /// The newest samples a `health.update` carries.
    public static let latestCount = 5

    /// Acting for the subscriber (the gateway): its grants decide which changes it sees.
    public let service: HealthService
    public let window: Duration
    let pageSize: Int
    let logger: Logger

    /// Subscribed type → last acknowledged anchor.
    var anchors: [String: Int64] = [:]
    var types: [String: SampleType] = [:]
    var started = false
    var sink: (any HealthUpdateSink)?
    var dirty = false
    var flushTask: Task<Void, Never>?
    var lastFlushStart: ContinuousClock.Instant?
    var lastPersist: ContinuousClock.Instant?
    var unpersisted = false
    var listener: Task<Void, Never>?
    /// Counters, for logs and tests.
    public private(set) var eventsSent = 0
    public private(set) var flushes = 0

    public init(service: HealthService, window: Duration = .milliseconds(250),
                pageSize: Int = 10_000, logger: Logger = Logger(label: "healthbridge.node")) {
        self.service = service
        self.window = window
        self.pageSize = max(1, pageSize)
        self.logger = logger
    }

    struct Persisted: Codable {
        var version = 1
        var types: [String: Int64]
    }

    /// Loads the persisted subscriptions and starts listening to the service's change feed. Idempotent.
    public func start() async throws {
        guard !started else { return }
        started = true
        if let text = try await service.subscriberState(Self.settingKey), let data = text.data(using: .utf8),
           let persisted = try? JSONDecoder().decode(Persisted.self, from: data) {
            for (name, anchor) in persisted.types {
                guard let type = try? await service.sampleType(name, use: "health.subscribe") else {
                    logger.warning("dropping the subscription to unknown type '\(name)'")
                    continue
                }
                anchors[name] = anchor
                types[name] = type
            }
            if !anchors.isEmpty {
                logger.info("health subscriptions: \(anchors.keys.sorted().joined(separator: ", "))")
            }
        }
        // Only commits of types this principal may read arrive (the service filters by its grants).
        let stream = service.changeNotifications()
        listener = Task { [weak self] in
            for await note in stream {
                guard let self else { return }
                await self.noteChange(note.types)
            }
        }
    }

    /// Stops listening and flushing; keeps the acknowledged anchors.
    public func stop() async {
        listener?.cancel()
        listener = nil
        flushTask?.cancel()
        flushTask = nil
        sink = nil
        started = false
        if unpersisted {
            do { try await persist() } catch { logger.warning("cannot persist the acknowledged anchors: \(error)") }
        }
    }

    /// The subscribed types, sorted.
    public var subscribedTypes: [String] { anchors.keys.sorted() }

    /// The acknowledged anchor of a subscribed type.
    public func acknowledgedAnchor(_ type: String) -> Int64? { anchors[type] }

    // MARK: Commands

    /// Subscribes to types (quantity or category types, by any name the registry knows); a type already subscribed
    /// keeps its anchor. New subscriptions start at the store's current anchor.
    public func subscribe(_ names: [String]) async throws {
        let resolved = try await resolve(names)
        let current = try await service.currentAnchor()
        var added: [String] = []
        for type in resolved where anchors[type.identifier] == nil {
            anchors[type.identifier] = current
            types[type.identifier] = type
            added.append(type.identifier)
        }
        if !added.isEmpty {
            try await persist()
            logger.info("subscribed to \(added.joined(separator: ", "))")
        }
    }

    /// Unsubscribes; no event for these types is sent after this returns.
    public func unsubscribe(_ names: [String]) async throws {
        let resolved = try await resolve(names)
        var removed: [String] = []
        for type in resolved where anchors.removeValue(forKey: type.identifier) != nil {
            types[type.identifier] = nil
            removed.append(type.identifier)
        }
        if !removed.isEmpty {
            try await persist()
            logger.info("unsubscribed from \(removed.joined(separator: ", "))")
        }
    }

    func resolve(_ names: [String]) async throws -> [SampleType] {
        var result: [SampleType] = []
        for name in names {
            result.append(try await service.sampleType(name, use: "health.subscribe"))
        }
        return result
    }

    func persist() async throws {
        let data = try JSONEncoder.wire.encode(Persisted(types: anchors))
        try await service.setSubscriberState(Self.settingKey, String(decoding: data, as: UTF8.self))
        unpersisted = false
        lastPersist = .now
    }

    // MARK: Connection

    /// A connection is ready (`hello-ok`): send what changed since the acknowledged anchors.
    public func attach(_ sink: any HealthUpdateSink) {
        self.sink = sink
        dirty = true
        scheduleFlush()
    }

    /// The connection is gone; events wait for the next one.
    public func detach(_ sink: any HealthUpdateSink) {
        if self.sink === sink { self.sink = nil }
    }

    func noteChange(_ changed: Set<String>) {
        guard changed.contains(where: { anchors[$0] != nil }) else { return }
        dirty = true
        scheduleFlush()
    }

    func scheduleFlush() {
        guard flushTask == nil, sink != nil, dirty, !anchors.isEmpty else { return }
        flushTask = Task { await self.flushLoop() }
    }

    /// Flushes while there is something to send, at most one flush (one event per type) per window.
    func flushLoop() async {
        while dirty, sink != nil, !anchors.isEmpty, !Task.isCancelled {
            if let last = lastFlushStart {
                let wait = last.advanced(by: window) - .now
                if wait > .zero { try? await Task.sleep(for: wait) }
            }
            guard let sink, !Task.isCancelled else { break }
            dirty = false
            lastFlushStart = .now
            let outcome = await flush(to: sink)
            flushes += 1
            if outcome == .interrupted { dirty = true; break }
            if outcome == .more { dirty = true }
        }
        flushTask = nil
        // Interrupted by a connection that is gone while a new one is already attached: start over on it.
        if dirty, sink != nil, !Task.isCancelled { scheduleFlush() }
    }

    enum FlushOutcome { case done, more, interrupted, failed }

    /// One flush: the newest new samples of every subscribed type since its acknowledged anchor. Reading stops after
    /// about one window (a million-sample import is sent in steps, one event per type per window, each acknowledged)
    /// and the outcome is `.more` when the change feed has more.
    func flush(to sink: any HealthUpdateSink) async -> FlushOutcome {
        let deadline = ContinuousClock.now.advanced(by: max(window, .milliseconds(100)))
        var caughtUp = true
        // Types that share an anchor are read together (after the first flush, usually all of them).
        let groups = Dictionary(grouping: anchors.keys.sorted(), by: { anchors[$0] ?? 0 })
        var advances: [(types: [String], anchor: Int64)] = []
        var latest: [String: LatestSamples] = [:]
        do {
            for (anchor, groupTypes) in groups.sorted(by: { $0.key < $1.key }) {
                var from = anchor
                while true {
                    let page = try await service.readableChanges(since: from, types: groupTypes, limit: pageSize)
                    for sample in page.added where anchors[sample.type] != nil {
                        latest[sample.type, default: LatestSamples()].insert(sample)
                    }
                    from = page.anchor
                    if !page.hasMore || Task.isCancelled { break }
                    if ContinuousClock.now >= deadline {
                        caughtUp = false
                        break
                    }
                }
                if Task.isCancelled { return .interrupted }
                advances.append((groupTypes, from))
            }
        } catch {
            logger.error("health.update: cannot read the change feed: \(error)")
            return .failed
        }

        // Queue the events in one turn of this actor: an unsubscribe cannot slip in between the check and the send.
        guard self.sink === sink else { return .interrupted }
        var pending: [(String, ResponsePromise)] = []
        for type in latest.keys.sorted() {
            // Types the gateway may not read never reach here: the service's change feed leaves them out.
            guard anchors[type] != nil, let sampleType = types[type],
                  let samples = latest[type]?.samples, !samples.isEmpty else { continue }
            do {
                let payload = OpenClawHealthUpdatePayload(
                    type: type, latestSamples: try samples.map { try service.wireSample($0, type: sampleType) })
                let json = String(decoding: try JSONEncoder.wire.encode(payload), as: UTF8.self)
                pending.append((type, try sink.sendEvent(NodeEventParams(event: "health.update", payloadJSON: json))))
            } catch {
                logger.debug("health.update for \(type) not sent: \(error)")
                return .interrupted
            }
        }
        var rejected = false
        for (type, promise) in pending {
            do {
                let response = try await promise.value()
                if response.ok {
                    eventsSent += 1
                } else {
                    rejected = true
                    logger.error("the gateway refused health.update for \(type): \(response.error.map { "\($0)" } ?? "no reason")")
                }
            } catch {
                logger.debug("health.update for \(type) not acknowledged: \(error)")
                return .interrupted
            }
        }
        if rejected { return .failed }
        var changed = false
        for (groupTypes, anchor) in advances {
            for type in groupTypes {
                if let current = anchors[type], anchor > current {
                    anchors[type] = anchor
                    changed = true
                }
            }
        }
        // Persisted when caught up, else at most once a second (a crash re-sends at most that much: at least once).
        if changed { unpersisted = true }
        if unpersisted, caughtUp || lastPersist.map({ ContinuousClock.now - $0 > .seconds(1) }) ?? true {
            do {
                try await persist()
            } catch {
                logger.warning("cannot persist the acknowledged anchors: \(error)")
            }
        }
        return caughtUp ? .done : .more
    }
}

/// The newest samples seen, newest first, at most ``HealthSubscriptions/latestCount``.
struct LatestSamples {
    var samples: [HealthSample] = []

    mutating func insert(_ sample: HealthSample) {
        func newer(_ a: HealthSample, _ b: HealthSample) -> Bool {
            a.start != b.start ? a.start > b.start : a.end > b.end
        }
        if samples.count == HealthSubscriptions.latestCount, let last = samples.last, !newer(sample, last) { return }
        let index = samples.firstIndex(where: { newer(sample, $0) }) ?? samples.endIndex
        samples.insert(sample, at: index)
        if samples.count > HealthSubscriptions.latestCount { samples.removeLast() }
    }
}
