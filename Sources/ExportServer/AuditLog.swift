import ExportClient
import Foundation
import Logging
import Synchronization

/// One audit entry. By construction it holds no health value: only the event, the request id, the client as a hash,
/// the peer address, the route and status, and for reads the type names, a sample count and the requested range.
public struct AuditEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case pairSuccess = "pair.success"
        case pairFailure = "pair.failure"
        case apiRequest = "api.request"
        case dataRead = "data.read"
        /// A paired client wrote (type names and how many objects, never a value).
        case dataWrite = "data.write"
        /// A paired client deleted (how many objects).
        case dataDelete = "data.delete"
    }

    public enum Decision: String, Sendable, Codable {
        case allowed
        case denied
    }

    /// The extra facts of an event. Closed set of fields on purpose: there is nowhere to put a value.
    public struct Detail: Sendable, Codable, Equatable {
        /// Type identifiers read or refused.
        public var types: [String]?
        public var sampleCount: Int?
        /// The requested range (ISO-8601 instants).
        public var start: String?
        public var end: String?
        /// A machine reason for a refusal (`PAIR_CODE_INVALID`, `TOKEN_INVALID`, `RATE_LIMITED`, …).
        public var reason: String?
        /// The name a client gave itself when pairing.
        public var clientName: String?

        public init(types: [String]? = nil, sampleCount: Int? = nil, start: String? = nil, end: String? = nil,
                    reason: String? = nil, clientName: String? = nil) {
            self.types = types; self.sampleCount = sampleCount; self.start = start; self.end = end
            self.reason = reason; self.clientName = clientName
        }
    }

    public var id: Int64?
    public var at: Date
    public var event: Kind
    public var requestId: String?
    /// ``ExportState/clientHash(_:)`` of the client, never its id or token.
    public var client: String?
    public var address: String?
    public var method: String?
    public var route: String?
    public var status: Int?
    public var decision: Decision?
    public var detail: Detail?

    public init(id: Int64? = nil, at: Date = Date(), event: Kind, requestId: String? = nil, client: String? = nil,
                address: String? = nil, method: String? = nil, route: String? = nil, status: Int? = nil,
                decision: Decision? = nil, detail: Detail? = nil) {
        self.id = id; self.at = at; self.event = event; self.requestId = requestId; self.client = client
        self.address = address; self.method = method; self.route = route; self.status = status
        self.decision = decision; self.detail = detail
    }
}

/// Collects audit events in memory and writes them to ``ExportState`` in batches (every `interval`, or sooner when
/// many are waiting), so that a request never waits on a disk write. ``flush()`` writes what is pending now.
public final class AuditLog: Sendable {
    let state: ExportState
    let logger: Logger
    let interval: Duration
    private let pending = Mutex<Pending>(Pending())

    struct Pending {
        var events: [AuditEvent] = []
        var lastSeen: [String: Date] = [:]
        var lastExport: Date?
    }

    public init(state: ExportState, interval: Duration = .milliseconds(200), logger: Logger) {
        self.state = state; self.interval = interval; self.logger = logger
    }

    public func record(_ event: AuditEvent) {
        pending.withLock { $0.events.append(event) }
    }

    public func clientSeen(_ id: String, at date: Date) {
        pending.withLock { $0.lastSeen[id] = date }
    }

    public func exported(at date: Date) {
        pending.withLock { $0.lastExport = date }
    }

    /// The last export not yet written, if any.
    public var pendingLastExport: Date? { pending.withLock { $0.lastExport } }

    /// Writes everything pending.
    public func flush() async {
        let batch = pending.withLock { pending -> Pending in
            let batch = pending
            pending = Pending()
            return batch
        }
        guard !batch.events.isEmpty || !batch.lastSeen.isEmpty || batch.lastExport != nil else { return }
        do {
            try await state.append(batch.events, lastSeen: batch.lastSeen, lastExport: batch.lastExport)
        } catch {
            logger.error("cannot write \(batch.events.count) audit events: \(error)")
            // Keep them for the next attempt rather than lose them.
            pending.withLock { pending in
                pending.events.insert(contentsOf: batch.events, at: 0)
                pending.lastSeen.merge(batch.lastSeen) { newer, _ in newer }
                pending.lastExport = pending.lastExport ?? batch.lastExport
            }
        }
    }

    /// Flushes every `interval` until cancelled, then once more.
    public func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await flush()
        }
        await flush()
    }
}
