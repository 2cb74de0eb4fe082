import HealthAPI
import Foundation
import Logging
import Synchronization

/// The export API's audit log in front of ``AccessStore``.
///
/// - ``record(_:)`` queues an entry; ``commit()`` returns once every entry recorded before it is in the database
///   (one WAL transaction, fsync'd: the state database runs with `synchronous = FULL`). Concurrent commits share one
///   transaction (group commit).
/// - ``commit(since:)`` is the gatekeeper's: an answer whose request recorded more than its `api.request` line — a
///   data read, a write, a pairing, an access request — waits until its entries are durable, so they are visible to
///   `healthbridge audit` at once and survive a crash; an answer without data (`status`, a refusal) leaves at once
///   and its `api.request` line goes with the next group write (``run()`` every `interval`, a data answer's commit,
///   or ``flush()`` when the server stops).
/// - Refusals that say nothing new — unauthenticated 401 and 429 answers, failed pairing attempts — are aggregated
///   per address, route, status and reason into one entry with a `count`, written when the aggregation window ends
///   (``run()``) or on ``flush()``: a burst of 2,000 bad tokens is a handful of rows, not 2,000.
public final class AuditLog: Sendable {
    let state: AccessStore
    let logger: Logger
    let interval: Duration
    let noiseWindow: Duration
    private let pending = Mutex<Pending>(Pending())
    private let writer = AuditWriter()
    private let transactions = Atomic<Int>(0)

    /// Transactions written so far (each one fsync): with group commit, far fewer than the entries (tests, logs).
    public var transactionCount: Int { transactions.load(ordering: .relaxed) }

    struct NoiseKey: Hashable {
        var event: AuditEvent.Kind
        var address: String?
        var route: String?
        var status: Int?
        var reason: String?
    }

    struct Pending {
        var events: [AuditEvent] = []
        var lastSeen: [String: Date] = [:]
        var lastExport: Date?
        /// Aggregated refusals, each with the time its window opened.
        var noise: [NoiseKey: (event: AuditEvent, opened: ContinuousClock.Instant)] = [:]
        /// Sequence number of the last entry recorded (noise excluded).
        var recorded: UInt64 = 0
        /// Sequence number of the last entry recorded that must be durable before its answer leaves
        /// (``mustPrecedeAnswer(_:)``).
        var mustPrecede: UInt64 = 0
    }

    /// - Parameters:
    ///   - interval: how often ``run()`` writes what is pending (client last-seen times, ended noise windows).
    ///   - noiseWindow: how long repeated refusals are aggregated into one entry.
    public init(state: AccessStore, interval: Duration = .milliseconds(200), noiseWindow: Duration = .seconds(10),
                logger: Logger) {
        self.state = state; self.interval = interval; self.noiseWindow = noiseWindow; self.logger = logger
    }

    /// True for entries aggregated rather than written one by one.
    static func isNoise(_ event: AuditEvent) -> Bool {
        switch event.event {
        case .pairFailure:
            return true
        case .apiRequest:
            return event.decision == .denied && event.client == nil && (event.status == 401 || event.status == 429)
        case .pairSuccess, .dataRead, .dataWrite, .dataDelete, .accessRequest, .consentChange, .oauth:
            return false
        }
    }

    /// True for entries that must be on disk before their request's answer leaves: everything but the `api.request`
    /// line every answer gets (a data read, a write or delete, a pairing, an access request, a consent change).
    static func mustPrecedeAnswer(_ event: AuditEvent) -> Bool {
        switch event.event {
        case .apiRequest, .pairFailure: return false   // wrong codes are aggregated per window (``isNoise(_:)``)
        case .pairSuccess, .dataRead, .dataWrite, .dataDelete, .accessRequest, .consentChange, .oauth: return true
        }
    }

    /// Entries waiting for a write beyond which every commit waits for one, whatever it recorded: memory stays
    /// bounded, and a log that cannot be written withholds the answers (503) instead of growing.
    static let maxPendingEntries = 8_192

    public func record(_ event: AuditEvent) {
        if Self.isNoise(event) {
            let key = NoiseKey(event: event.event, address: event.address, route: event.route, status: event.status,
                               reason: event.detail?.reason)
            pending.withLock { pending in
                if var entry = pending.noise[key] {
                    entry.event.addCount(1)
                    pending.noise[key] = entry
                } else {
                    var first = event
                    var detail = first.detail ?? AuditEvent.Detail()
                    detail.count = 1
                    first.detail = detail
                    first.requestId = nil  // one row stands for many requests
                    pending.noise[key] = (first, .now)
                }
            }
            return
        }
        let precedes = Self.mustPrecedeAnswer(event)
        pending.withLock { pending in
            pending.events.append(event)
            pending.recorded &+= 1
            if precedes { pending.mustPrecede = pending.recorded }
        }
    }

    /// The sequence number of the last entry recorded: a request notes it when it starts, for ``commit(since:)``.
    ///
    /// ```swift
    /// let mark = audit.mark
    /// let response = try await next(request, context)   // handlers record their entries
    /// audit.record(requestLine)
    /// try await audit.commit(since: mark)
    /// ```
    public var mark: UInt64 { pending.withLock { $0.recorded } }

    /// The gatekeeper's commit: when an entry that must precede its answer (``mustPrecedeAnswer(_:)``) was recorded
    /// after `mark` — this request's, or a concurrent one's — returns once every entry recorded so far is durable
    /// (group commit, as ``commit()``); otherwise returns at once and the entries go with the next group write.
    /// Throws when a needed write fails: the caller must then not let the answer leave.
    ///
    /// - Returns: whether it waited for the entries to be durable.
    @discardableResult
    public func commit(since mark: UInt64) async throws -> Bool {
        let (target, needed) = pending.withLock { pending in
            (pending.recorded, pending.mustPrecede > mark || pending.events.count >= Self.maxPendingEntries)
        }
        guard needed else { return false }
        try await writer.sync(upTo: target) { try await self.write(noiseOlderThan: nil, allNoise: false) }
        return true
    }

    public func clientSeen(_ id: String, at date: Date) {
        pending.withLock { $0.lastSeen[id] = date }
    }

    public func exported(at date: Date) {
        pending.withLock { $0.lastExport = date }
    }

    /// The last export not yet written, if any.
    public var pendingLastExport: Date? { pending.withLock { $0.lastExport } }

    /// Returns once every entry recorded before the call is durable. Throws when the database cannot be written: the
    /// caller must then not let the answer leave.
    public func commit() async throws {
        let target = pending.withLock { $0.recorded }
        try await writer.sync(upTo: target) { try await self.write(noiseOlderThan: nil, allNoise: false) }
    }

    /// Writes everything pending, aggregated refusals included.
    public func flush() async {
        do {
            try await writer.exclusive { try await self.write(noiseOlderThan: nil, allNoise: true) }
        } catch {
            logger.error("cannot write the audit log: \(error)")
        }
    }

    /// Writes client last-seen times, pending entries and ended aggregation windows every `interval` until cancelled,
    /// then everything once more.
    public func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            do {
                let window = noiseWindow
                try await writer.exclusive { try await self.write(noiseOlderThan: window, allNoise: false) }
            } catch {
                logger.error("cannot write the audit log: \(error)")
            }
        }
        await flush()
    }

    /// One transaction: the pending entries, the aggregated refusals whose window ended (or all), last-seen times.
    /// Returns the sequence number of the last entry written. On failure everything is put back for the next attempt.
    private func write(noiseOlderThan window: Duration?, allNoise: Bool) async throws -> UInt64 {
        let now = ContinuousClock.now
        let (batch, noise, upTo) = pending.withLock { pending -> (Pending, [NoiseKey: (event: AuditEvent, opened: ContinuousClock.Instant)], UInt64) in
            let batch = Pending(events: pending.events, lastSeen: pending.lastSeen, lastExport: pending.lastExport)
            pending.events = []
            pending.lastSeen = [:]
            pending.lastExport = nil
            var due: [NoiseKey: (event: AuditEvent, opened: ContinuousClock.Instant)] = [:]
            if allNoise {
                due = pending.noise
                pending.noise = [:]
            } else if let window {
                for (key, entry) in pending.noise where now - entry.opened >= window || pending.noise.count > 1_000 {
                    due[key] = entry
                }
                for key in due.keys { pending.noise.removeValue(forKey: key) }
            }
            return (batch, due, pending.recorded)
        }
        let events = batch.events + noise.values.map(\.event).sorted { $0.at < $1.at }
        guard !events.isEmpty || !batch.lastSeen.isEmpty || batch.lastExport != nil else { return upTo }
        do {
            try await state.append(events, lastSeen: batch.lastSeen, lastExport: batch.lastExport)
            transactions.add(1, ordering: .relaxed)
        } catch {
            pending.withLock { pending in
                pending.events.insert(contentsOf: batch.events, at: 0)
                pending.lastSeen.merge(batch.lastSeen) { newer, _ in newer }
                pending.lastExport = pending.lastExport ?? batch.lastExport
                for (key, entry) in noise {
                    if var current = pending.noise[key] {
                        current.event.addCount(entry.event.detail?.count ?? 1)
                        current.event.at = entry.event.at
                        pending.noise[key] = current
                    } else {
                        pending.noise[key] = entry
                    }
                }
            }
            throw error
        }
        return upTo
    }
}

/// Serializes the audit log's writes and tells each committer when its entries are durable: a commit that finds a
/// write under way waits for it and then writes what is still pending, so concurrent requests share transactions.
actor AuditWriter {
    private var durable: UInt64 = 0
    private var writing = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Returns once entries up to sequence number `target` are written, writing them if needed.
    func sync(upTo target: UInt64, _ write: @Sendable () async throws -> UInt64) async throws {
        while durable < target {
            if writing {
                await withCheckedContinuation { waiters.append($0) }
                continue
            }
            try await run(write)
        }
    }

    /// Runs one write alone.
    func exclusive(_ write: @Sendable () async throws -> UInt64) async throws {
        while writing { await withCheckedContinuation { waiters.append($0) } }
        try await run(write)
    }

    private func run(_ write: @Sendable () async throws -> UInt64) async throws {
        writing = true
        defer {
            writing = false
            let woken = waiters
            waiters = []
            for waiter in woken { waiter.resume() }
        }
        let written = try await write()
        durable = max(durable, written)
    }
}
