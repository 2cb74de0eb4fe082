import Foundation
import HealthAPI
import HealthModel
import HealthStore

/// Authorization the way HealthKit asks for it: an app (or device, or push token) files a request for the types it
/// wants to read and write, with a reason for each; the owner approves or denies it (`healthbridge grants requests`,
/// the web console); the app learns whether it may *write* a type, never whether it may read one (a denied read looks
/// like no data, HealthKit's rule).
extension HealthService {
    static let requestSettingPrefix = "access.request."
    /// At most this many pending requests at once, from every principal together (each principal has at most one).
    static let maximumPendingRequests = 200

    /// Files a request for access for this service's principal, HealthKit's `requestAuthorization(toShare:read:)`.
    ///
    /// Every read asked for is recorded, whatever is granted: which reads are granted is never revealed by what the
    /// request files (HealthKit's rule). Types of this principal's decided requests are not asked again (whatever the
    /// answer was), nor writes already granted; when nothing is left to ask, no request is filed. Each paired client
    /// (``client``) has at most one pending request: a second one adds its types to it; another client of the same
    /// app files its own, never touching this one's types or reasons. A correlation type (food, blood pressure) is
    /// never asked for — HealthKit authorizes it through its member types — so it is dropped from what is filed (the
    /// rest of the request stands) and only its status is answered.
    ///
    /// ```swift
    /// let app = service.acting(as: try Principal(parsing: "app:com.example.diet"))
    /// let filed = try await app.requestAccess(AccessRequestInput(read: ["bodyMass"], write: ["dietaryEnergyConsumed"],
    ///                                                            reasons: ["bodyMass": "Track weight trends"]))
    /// filed.request?.status   // .pending until the owner decides
    /// ```
    public func requestAccess(_ input: AccessRequestInput) async throws -> AccessRequestFiling {
        guard principal.kind != .owner else {
            throw HealthError(.invalidArgument, "the owner has every grant; access requests come from apps, devices and tokens")
        }
        let read = try Self.requestTypes(input.read)
        let write = try Self.requestTypes(input.write)
        guard !read.isEmpty || !write.isEmpty else {
            throw HealthError(.invalidArgument, "name at least one type to read or to write")
        }
        let reasons = try Self.requestReasons(input.reasons).filter { !Self.isCorrelationType($0.key) }
        let decided = try await decidedTypes(for: principal)
        let grants = try await grants(for: principal)
        // Reads: only "asked before" (approved or denied alike) drops a type, never whether it is granted.
        let askRead = read.filter { !Self.isCorrelationType($0) && !decided.read.contains($0) }
        let askWrite = write.filter {
            !Self.isCorrelationType($0) && !decided.write.contains($0) && !grants.write.allows($0)
        }
        var filed: AccessRequest?
        if !askRead.isEmpty || !askWrite.isEmpty {
            filed = try await fileRequest(read: askRead, write: askWrite, reasons: reasons)
        }
        let status = try await authorizationStatus(types: write)
        return AccessRequestFiling(request: filed, write: status.write)
    }

    /// Whether this service's principal may write each type: HealthKit's `authorizationStatus(for:)`.
    /// `notDetermined` until the owner decides; reads are never reported (denial looks like no data). A correlation
    /// type is answered through its members: `sharingAuthorized` when an entry can be written — every member each entry
    /// holds (blood pressure: both) and at least one member (a meal with that nutrient) may be written; each write is
    /// still checked member by member — else `sharingDenied` when a member was decided, else `notDetermined`.
    ///
    /// ```swift
    /// try await app.authorizationStatus(types: ["dietaryWater"]).write["dietaryWater"]   // .sharingAuthorized
    /// try await app.authorizationStatus(types: ["bloodPressure"]).write["bloodPressure"]  // systolic and diastolic
    /// ```
    public func authorizationStatus(types: [String]) async throws -> AuthorizationStatusResult {
        let names = try Self.requestTypes(types)
        let grants = try await grants(for: principal)
        let decided = try await decidedTypes(for: principal)
        var write: [String: AuthorizationStatus] = [:]
        for name in names {
            let type = SampleTypeRegistry.registered(name)
            let members = type?.correlationMemberTypes ?? []
            let required = type?.correlationRequiredMemberTypes ?? []
            let missing = (members.isEmpty ? [name] : members).filter { !grants.write.allows($0) }
            // A correlation: an entry can be written when every member each entry holds may be (blood pressure: both)
            // and at least one member may be (a meal with that nutrient); every write is still checked member by
            // member. Food's members are every dietary type, so "all of them" would never hold.
            let writable = members.isEmpty
                ? missing.isEmpty
                : missing.count < members.count && required.allSatisfy { grants.write.allows($0) }
            if writable {
                write[name] = .sharingAuthorized
            } else if missing.contains(where: decided.write.contains) || principal.kind == .owner {
                write[name] = .sharingDenied
            } else {
                write[name] = .notDetermined
            }
        }
        let pending = try await requests(of: principal).contains { $0.status == .pending && $0.client == client }
        return AuthorizationStatusResult(principal: principal.id, write: write, requestPending: pending)
    }

    /// The access requests (owner only), pending first, newest first; `status` keeps one kind.
    ///
    /// ```swift
    /// for request in try await service.accessRequests(status: .pending).requests { print(request.principal) }
    /// ```
    public func accessRequests(status: AccessRequest.Status? = nil) async throws -> AccessRequestsResult {
        try requireOwner("see access requests")
        let all = try await allRequests().filter { status == nil || $0.status == status }
        return AccessRequestsResult(requests: all.sorted {
            ($0.status == .pending ? 0 : 1, $1.createdAt, $0.id) < ($1.status == .pending ? 0 : 1, $0.createdAt, $1.id)
        })
    }

    /// Approves or denies a pending request (owner only). Approving grants the requested types, or the subset
    /// `read`/`write` names; the rest of the request counts as denied and is not asked again.
    ///
    /// ```swift
    /// try await service.decideAccessRequest(AccessDecision(id: request.id, approve: true))
    /// ```
    @discardableResult
    public func decideAccessRequest(_ decision: AccessDecision) async throws -> AccessRequest {
        try requireOwner("decide access requests")
        guard let request = try await request(id: decision.id) else {
            throw HealthError(.notFound, "no access request \(decision.id)")
        }
        guard request.status == .pending else {
            throw HealthError(.conflict, "access request \(decision.id) was already \(request.status.rawValue)")
        }
        var grantedRead: [String] = [], grantedWrite: [String] = []
        if decision.approve {
            grantedRead = try decision.read.map { try Self.requestTypes($0) }.map { subset in
                request.read.filter(subset.contains)
            } ?? request.read
            grantedWrite = try decision.write.map { try Self.requestTypes($0) }.map { subset in
                request.write.filter(subset.contains)
            } ?? request.write
            if !grantedRead.isEmpty || !grantedWrite.isEmpty {
                _ = try await changeGrants(GrantsUpdate(principal: request.principal, allowRead: grantedRead,
                                                    allowWrite: grantedWrite))
            }
        }
        let now = ISO8601.string(clock())
        let key = Self.requestSettingPrefix + request.id
        let (read, write) = (grantedRead, grantedWrite)
        let updated = try await store.updateSetting(key) { text in
            guard let text, var stored = try? JSONDecoder().decode(AccessRequest.self, from: Data(text.utf8)) else {
                throw HealthError(.notFound, "no access request \(decision.id)")
            }
            guard stored.status == .pending else {
                throw HealthError(.conflict, "access request \(decision.id) was already \(stored.status.rawValue)")
            }
            stored.status = decision.approve ? .approved : .denied
            stored.decidedAt = now
            stored.grantedRead = read
            stored.grantedWrite = write
            return String(decoding: try JSONEncoder.wire.encode(stored), as: UTF8.self)
        }
        guard let updated, let result = try? JSONDecoder().decode(AccessRequest.self, from: Data(updated.utf8)) else {
            throw HealthError(.internalError, "access request \(decision.id) was not stored")
        }
        await auditConsent(decision.approve ? "access.approve" : "access.deny", target: result.principal,
                           types: decision.approve ? result.grantedRead + result.grantedWrite : result.read + result.write)
        return result
    }

    // MARK: - Storage

    func fileRequest(read: [String], write: [String], reasons: [String: String]) async throws -> AccessRequest {
        let mine = { (request: AccessRequest) in
            request.status == .pending && request.principal == self.principal.id && request.client == self.client
        }
        let pendingCount = try await allRequests().filter { $0.status == .pending && !mine($0) }.count
        guard pendingCount < Self.maximumPendingRequests else {
            throw HealthError(.rateLimited, "too many access requests are waiting for the owner; try again later")
        }
        let now = ISO8601.string(clock())
        // Only this client's own pending request is extended: another client of the same app files its own.
        if var pending = try await requests(of: principal).first(where: mine) {
            let key = Self.requestSettingPrefix + pending.id
            let client = self.client
            let text = try await store.updateSetting(key) { text in
                guard let text, var stored = try? JSONDecoder().decode(AccessRequest.self, from: Data(text.utf8)),
                      stored.status == .pending, stored.client == client else {
                    return text
                }
                stored.read = Self.union(stored.read, read)
                stored.write = Self.union(stored.write, write)
                stored.reasons.merge(reasons) { _, new in new }
                stored.createdAt = now
                return String(decoding: try JSONEncoder.wire.encode(stored), as: UTF8.self)
            }
            if let text, let merged = try? JSONDecoder().decode(AccessRequest.self, from: Data(text.utf8)),
               merged.status == .pending {
                return merged
            }
            pending.status = .denied  // decided meanwhile: file a new one below
        }
        let request = AccessRequest(id: "req-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16),
                                    principal: principal.id, read: read, write: write, reasons: reasons, createdAt: now,
                                    client: client)
        let data = try JSONEncoder.wire.encode(request)
        try await store.setSetting(Self.requestSettingPrefix + request.id, String(decoding: data, as: UTF8.self))
        return request
    }

    func allRequests() async throws -> [AccessRequest] {
        try await store.settings(prefix: Self.requestSettingPrefix).values.compactMap {
            try? JSONDecoder().decode(AccessRequest.self, from: Data($0.utf8))
        }
    }

    func requests(of principal: Principal) async throws -> [AccessRequest] {
        try await allRequests().filter { $0.principal == principal.id }
    }

    func request(id: String) async throws -> AccessRequest? {
        guard let text = try await store.setting(Self.requestSettingPrefix + id) else { return nil }
        return try? JSONDecoder().decode(AccessRequest.self, from: Data(text.utf8))
    }

    /// The types of this principal's decided requests: asked once, not asked again.
    func decidedTypes(for principal: Principal) async throws -> (read: Set<String>, write: Set<String>) {
        var read = Set<String>(), write = Set<String>()
        for request in try await requests(of: principal) where request.status != .pending {
            read.formUnion(request.read)
            write.formUnion(request.write)
        }
        return (read, write)
    }

    func requireOwner(_ action: String) throws(HealthError) {
        guard principal.kind == .owner else {
            throw HealthError(.notAuthorized, "only the owner may \(action)")
        }
    }

    static func requestTypes(_ names: [String]) throws(HealthError) -> [String] {
        var seen = Set<String>(), result: [String] = []
        for name in try grantTypes(names) where seen.insert(name).inserted {
            guard name != "*" else {
                throw HealthError(.invalidArgument, "an access request names its types; `*` is for the owner's grants")
            }
            result.append(name)
        }
        return result
    }

    static func requestReasons(_ reasons: [String: String]) throws(HealthError) -> [String: String] {
        guard reasons.count <= 200 else { throw HealthError(.invalidArgument, "at most 200 reasons") }
        var result: [String: String] = [:]
        for (name, reason) in reasons {
            let type = try grantTypes([name]).first ?? name
            let text = reason.trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count <= 200, !text.contains(where: \.isNewline) else {
                throw HealthError(.invalidArgument, "the reason for \(name) is one line of at most 200 characters")
            }
            result[type] = text
        }
        return result
    }

    /// Whether `name` is a correlation type (food, blood pressure): authorized through its members, never asked for.
    static func isCorrelationType(_ name: String) -> Bool {
        SampleTypeRegistry.registered(name)?.kind == .correlation
    }

    static func union(_ a: [String], _ b: [String]) -> [String] {
        a + b.filter { !a.contains($0) }
    }
}
