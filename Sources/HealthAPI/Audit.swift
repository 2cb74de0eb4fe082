import Foundation

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
        /// A paired app filed an access request (type names only).
        case accessRequest = "access.request"
        /// The owner changed who may do what: grants, an access request decided, a paired device or push token
        /// revoked, sharing paused or resumed (from the CLI or the console).
        case consentChange = "consent.change"
        /// The OAuth authorization server of the MCP endpoint: a token issued, refreshed or revoked, a refresh token
        /// reused (its family revoked), a refused authorization or token request (`action`, `principal`, `reason`;
        /// never a token).
        case oauth = "oauth"
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
        /// How many identical refusals this one row stands for (repeated failures from one address are aggregated).
        public var count: Int?
        /// A pushed batch's facts: Health Auto Export's headers (automation-name, automation-id,
        /// automation-aggregation, automation-period, session-id) and its counts — never a value.
        public var batch: [String: String]?
        /// A consent change: `action` (`grants.update`, `access.approve`, `access.deny`, `device.revoke`,
        /// `ingest_token.revoke`, `sharing.paused`, `sharing.active`) and the principal it concerns.
        public var action: String?
        public var principal: String?

        public init(types: [String]? = nil, sampleCount: Int? = nil, start: String? = nil, end: String? = nil,
                    reason: String? = nil, clientName: String? = nil, count: Int? = nil, batch: [String: String]? = nil,
                    action: String? = nil, principal: String? = nil) {
            self.types = types; self.sampleCount = sampleCount; self.start = start; self.end = end
            self.reason = reason; self.clientName = clientName; self.count = count; self.batch = batch
            self.action = action; self.principal = principal
        }
    }

    public var id: Int64?
    public var at: Date
    public var event: Kind
    public var requestId: String?
    /// The client's audit id (a hash of its id, `PairedClient.auditId`), never its id or token.
    public var client: String?
    public var address: String?
    public var method: String?
    public var route: String?
    public var status: Int?
    public var decision: Decision?
    public var detail: Detail?

    /// Adds `n` to the number of refusals this entry stands for.
    package mutating func addCount(_ n: Int) {
        var detail = self.detail ?? Detail()
        detail.count = (detail.count ?? 1) + n
        self.detail = detail
    }

    /// Security-relevant entries (pairing, data reads) are kept apart from request noise when the log is pruned.
    public var isSecurityRelevant: Bool { event != .apiRequest }

    public init(id: Int64? = nil, at: Date = Date(), event: Kind, requestId: String? = nil, client: String? = nil,
                address: String? = nil, method: String? = nil, route: String? = nil, status: Int? = nil,
                decision: Decision? = nil, detail: Detail? = nil) {
        self.id = id; self.at = at; self.event = event; self.requestId = requestId; self.client = client
        self.address = address; self.method = method; self.route = route; self.status = status
        self.decision = decision; self.detail = detail
    }
}

/// Which audit entries to list: by client (its hash, as entries name it), kind of event, time, and page.
public struct AuditQuery: Sendable, Equatable {
    /// A client's audit id (`PairedClient.auditId`), or a prefix of it.
    public var client: String?
    public var event: AuditEvent.Kind?
    public var since: Date?
    public var until: Date?
    /// Entries older than this id (the next page).
    public var beforeId: Int64?
    public var limit: Int

    public init(client: String? = nil, event: AuditEvent.Kind? = nil, since: Date? = nil, until: Date? = nil,
                beforeId: Int64? = nil, limit: Int = 50) {
        self.client = client; self.event = event; self.since = since; self.until = until
        self.beforeId = beforeId; self.limit = limit
    }
}
