import Foundation
import HealthAPI
import HealthAccess
import HealthModel
import HealthStore

/// Consent: the grants of each principal, per type and direction, persisted in the store's settings.
extension HealthService {
    static let grantsSettingPrefix = "access.grants."
    static let principalsSetting = "access.principals"
    /// Names a grant may use besides sample types: activity rings are not a sample type in HealthKit either, and
    /// workout routes (`HKSeriesType.workoutRoute()`) are a type of their own: a `workout` grant does not give
    /// their GPS points.
    static let extraGrantTypes: Set<String> = ["activitySummary", "workoutRoute"]
    /// Other spellings of the extra grant types (HealthKit's identifiers).
    static let extraGrantAliases: [String: String] = [
        "HKWorkoutRouteTypeIdentifier": "workoutRoute", "HKSeriesTypeIdentifierWorkoutRoute": "workoutRoute",
        "HKActivitySummaryTypeIdentifier": "activitySummary",
    ]

    /// The grants `principal` has now: its own if the owner gave it some, else (for a paired device) those of every
    /// paired device (`device:*`), else its kind's defaults (the owner everything; MCP clients and gateways read
    /// everything; devices, ingest tokens and apps nothing).
    ///
    /// ```swift
    /// try await service.grants(for: .device(id)).read.allows("stepCount")
    /// ```
    public func grants(for principal: Principal) async throws -> AccessGrants {
        if principal.kind == .owner { return principal.defaultGrants }
        if let own = try await storedGrants(principal) { return own }
        if principal.kind == .device, principal != .allDevices, let shared = try await storedGrants(.allDevices) {
            return shared
        }
        return principal.defaultGrants
    }

    /// Every principal the owner gave grants to, and the kinds' defaults.
    ///
    /// ```swift
    /// for entry in try await service.listGrants().principals { print(entry.principal, entry.read) }
    /// ```
    public func listGrants() async throws -> GrantsResult {
        var ids = try await principalIDs()
        for fixed in [Principal.mcp(), Principal.gateway(), Principal.allDevices] where !ids.contains(fixed.id) {
            ids.append(fixed.id)
        }
        var entries: [GrantsResult.Entry] = [GrantsResult.Entry(principal: Principal.owner.id, read: TypeGrant.all.summary,
                                                                write: TypeGrant.all.summary, explicit: false,
                                                                grants: Principal.owner.defaultGrants)]
        for id in ids.sorted() {
            guard let principal = try? Principal(parsing: id), principal.kind != .owner else { continue }
            let explicit = try await storedGrants(principal) != nil
            let grants = try await self.grants(for: principal)
            entries.append(.init(principal: id, read: grants.read.summary, write: grants.write.summary,
                                 explicit: explicit, grants: grants))
        }
        return GrantsResult(principals: entries)
    }

    /// Changes the grants of `principal`: types to allow for reading or writing (`*` for all), types to deny in both
    /// directions, or `reset` back to the defaults first. Only the owner may change grants.
    ///
    /// ```swift
    /// try await service.updateGrants(GrantsUpdate(principal: "device:*", allowRead: ["stepCount", "heartRate"]))
    /// ```
    @discardableResult
    public func updateGrants(_ update: GrantsUpdate) async throws -> GrantsResult.Entry {
        let entry = try await changeGrants(update)
        await auditConsent("grants.update", target: entry.principal,
                           types: ((try? Self.grantTypes(update.allowRead + update.allowWrite + update.deny)) ?? [])
                               + (update.reset ? ["reset"] : []))
        return entry
    }

    /// ``updateGrants(_:)`` without its audit entry (an approved access request records its own).
    func changeGrants(_ update: GrantsUpdate) async throws -> GrantsResult.Entry {
        guard principal.kind == .owner else {
            throw HealthError(.notAuthorized, "only the owner may change grants", hint: .ownerChangesGrants)
        }
        let target = try Principal(parsing: update.principal)
        guard target.kind != .owner else {
            throw HealthError(.invalidArgument, "the owner has every grant; name another principal (mcp, gateway, device:ID, device:*, ingest:NAME, app:ID, person:ID)")
        }
        if target.kind == .person {
            // A caregiver reads what was shared and never writes into another person's data.
            _ = try Household.checkID(target.name)
            guard (try Self.grantTypes(update.allowWrite)).isEmpty else {
                throw HealthError(.invalidArgument, "\(target.id) is another person of the household: they may be granted reading, never writing",
                                  argument: "allowWrite")
            }
        }
        var grants = update.reset ? target.defaultGrants : try await self.grants(for: target)
        if update.reset, target.kind == .device, target != .allDevices, let shared = try await storedGrants(.allDevices) {
            grants = shared
        }
        for name in try Self.grantTypes(update.allowRead) { grants.read.allow(name) }
        for name in try Self.grantTypes(update.allowWrite) { grants.write.allow(name) }
        for name in try Self.grantTypes(update.deny) {
            grants.read.deny(name)
            grants.write.deny(name)
        }
        if update.reset && update.allowRead.isEmpty && update.allowWrite.isEmpty && update.deny.isEmpty {
            try await store.setSetting(Self.grantsSettingPrefix + target.id, nil)
            try await updatePrincipalIDs { $0.remove(target.id) }
        } else {
            let data = try JSONEncoder.wire.encode(grants)
            try await store.setSetting(Self.grantsSettingPrefix + target.id, String(decoding: data, as: UTF8.self))
            try await updatePrincipalIDs { $0.insert(target.id) }
        }
        let stored = try await storedGrants(target) != nil
        let effective = try await self.grants(for: target)
        return .init(principal: target.id, read: effective.read.summary, write: effective.write.summary,
                     explicit: stored, grants: effective)
    }

    /// The read grant of this service's principal, for use cases over many types (the export stream, changes,
    /// today): `HEALTH_SHARING_PAUSED` first for a paired device or app while sharing is paused.
    func readGrant() async throws -> TypeGrant {
        try await requireSharingActive()
        return try await grants(for: principal).read
    }

    /// Whether this service's principal may read `type`.
    public func mayRead(_ type: String) async throws -> Bool {
        try await grants(for: principal).read.permitsRead(SampleTypeRegistry.shortIdentifier(type))
    }

    /// Every type name `grant` allows to read, of the registry's and the store's types: what a query over "every
    /// type" is narrowed to for a principal that may not read everything.
    func readableTypes(_ grant: TypeGrant) async throws -> [String] {
        guard grant.all else {
            // The correlation types read through a granted member (a meal through its nutrients), not by their name.
            let correlations = SampleTypeRegistry.types(of: .correlation).map(\.identifier).filter(grant.permitsRead)
            return Set(grant.types.filter(grant.permitsRead)).union(correlations).sorted()
        }
        var names = Set(SampleTypeRegistry.all.map(\.identifier)).union(Self.extraGrantTypes)
        names.formUnion(try await store.typeSummaries().map(\.type))
        return names.filter(grant.permitsRead).sorted()
    }

    /// Read consent for a use case: true when readable; false when the answer must look like no data; throws
    /// `HEALTH_NOT_AUTHORIZED` (with the types) when this principal is told about denial, and
    /// `HEALTH_SHARING_PAUSED` for a paired device or app while the owner has paused sharing.
    func authorizeRead(_ types: [String]) async throws -> Bool {
        try await requireSharingActive()
        let grants = try await grants(for: principal)
        let denied = types.filter { !grants.read.permitsRead($0) }
        guard !denied.isEmpty else { return true }
        if principal.seesReadDenial {
            throw HealthError(.notAuthorized,
                              "not shared with this device: \(denied.joined(separator: ", "))",
                              hint: .ownerSharesTypes, deniedTypes: denied)
        }
        return false
    }

    /// Write consent: `HEALTH_NOT_AUTHORIZED` naming the command the owner would run; `HEALTH_SHARING_PAUSED` for a
    /// paired device or app while sharing is paused. A correlation type is authorized through its members, as
    /// HealthKit does: every member type the registry lists for it (blood pressure: systolic and diastolic), the
    /// refusal naming the first member not granted. A meal is checked on the nutrients it holds instead
    /// (``logFood(_:)``), never on all of food's.
    func authorizeWrite(_ type: String) async throws {
        try await requireSharingActive()
        let grant = try await grants(for: principal).write
        let members = SampleTypeRegistry.registered(type)?.correlationMemberTypes ?? []
        let needed = members.isEmpty ? [type] : members
        if let denied = needed.first(where: { !grant.allows($0) }) {
            throw HealthError(.notAuthorized,
                              "\(principal.id) may not write \(denied)\(members.isEmpty ? "" : " (a member of \(type))"); the owner can allow it",
                              hint: .ownerAllowsWrite(principal: principal.id, type: denied))
        }
    }

    func storedGrants(_ principal: Principal) async throws -> AccessGrants? {
        guard let text = try await store.setting(Self.grantsSettingPrefix + principal.id) else { return nil }
        return try? JSONDecoder().decode(AccessGrants.self, from: Data(text.utf8))
    }

    func principalIDs() async throws -> [String] {
        guard let text = try await store.setting(Self.principalsSetting),
              let ids = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { return [] }
        return ids
    }

    /// Changes the index of principals with grants in one store transaction (two updates never lose each other).
    func updatePrincipalIDs(_ change: @escaping @Sendable (inout Set<String>) -> Void) async throws {
        try await store.updateSetting(Self.principalsSetting) { text in
            var ids = Set(text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? [])
            change(&ids)
            let data = try JSONEncoder.wire.encode(ids.sorted())
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Type names of a grant, resolved to short identifiers; `*` stays.
    static func grantTypes(_ names: [String]) throws(HealthError) -> [String] {
        try (list(names) ?? []).map { name throws(HealthError) in
            if name == "*" || name.lowercased() == "all" { return "*" }
            if extraGrantTypes.contains(name) { return name }
            if let alias = extraGrantAliases[name] { return alias }
            return try SampleTypeRegistry.resolve(name).identifier
        }
    }
}

extension TypeGrant {
    /// Whether this read grant lets its holder read `type`. A correlation type is read through its members
    /// (HealthKit's rule): it is readable when one of the member types the registry lists for it is, and its own
    /// name in a grant gives nothing.
    ///
    /// ```swift
    /// TypeGrant(types: ["dietaryProtein"]).permitsRead("food")   // true: a meal shows its readable nutrients
    /// TypeGrant(types: ["food"]).permitsRead("food")             // false
    /// ```
    public func permitsRead(_ type: String) -> Bool {
        let members = SampleTypeRegistry.registered(type)?.correlationMemberTypes ?? []
        return members.isEmpty ? allows(type) : members.contains(where: allows)
    }
}
