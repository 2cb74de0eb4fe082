import HealthModel

/// Where the service reports every write and delete, before it answers: who, which types, how many objects — never
/// a value. The CLI, MCP and the OpenClaw node report to the audit log of the data directory (`healthbridge audit`);
/// the HTTPS API writes its own entries, with the request id and the peer address.
///
/// ```swift
/// let audited = service.auditing(to: auditor)
/// ```
public protocol HealthAuditor: Sendable {
    func record(_ entry: WriteAuditEntry) async
    /// A change of consent by the owner: grants changed, an access request approved or denied.
    func record(_ change: ConsentAuditEntry) async
}

/// One change of who may do what, as the audit log keeps it: the action, the principal it concerns, the types.
public struct ConsentAuditEntry: Sendable, Hashable {
    /// `grants.update`, `access.approve` or `access.deny`.
    public var action: String
    /// Who made the change (the owner).
    public var actor: Principal
    /// The principal whose grants changed (`app:…`, `device:*`, …).
    public var target: String
    /// The types named by the change, sorted (`*` for every type).
    public var types: [String]

    public init(action: String, actor: Principal, target: String, types: [String]) {
        self.action = action; self.actor = actor; self.target = target; self.types = types
    }
}

/// One write or delete, as the audit log keeps it.
public struct WriteAuditEntry: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable { case write, delete }
    public var action: Action
    public var principal: Principal
    /// The types written or deleted, sorted.
    public var types: [String]
    /// How many objects.
    public var count: Int
    /// Facts of a pushed batch (its headers and counts: `automation-name`, `inserted`…), never a value.
    public var detail: [String: String]?

    public init(action: Action, principal: Principal, types: [String], count: Int, detail: [String: String]? = nil) {
        self.action = action; self.principal = principal; self.types = types; self.count = count; self.detail = detail
    }
}

extension HealthService {
    /// The same service reporting its writes and deletes to `auditor` (nil: to nobody).
    public func auditing(to auditor: (any HealthAuditor)?) -> HealthService {
        var copy = self
        copy.auditor = auditor
        return copy
    }

    func auditConsent(_ action: String, target: String, types: some Sequence<String>) async {
        await auditor?.record(ConsentAuditEntry(action: action, actor: principal, target: target,
                                                types: Set(types).sorted()))
    }

    func audit(_ action: WriteAuditEntry.Action, types: some Sequence<String>, count: Int,
               detail: [String: String]? = nil) async {
        guard count > 0 || detail != nil, let auditor else { return }
        await auditor.record(WriteAuditEntry(action: action, principal: principal, types: Set(types).sorted(), count: count,
                                             detail: detail))
    }
}
