import Foundation
import HealthAPI
import HealthModel

/// The household seen from one process: each person's service opened once, what people share with each other, and
/// the view a caregiver gets of another person's data.
///
/// People stay strictly apart unless one of them shares: a person grants another person of the household
/// (`person:<id>`, a caregiver, a partner, a coach) reading of some types, in their own store's grants, as they grant
/// an app or an agent. Nothing is shared by default and nothing shared is ever writable. The caregiver's view is the
/// sharer's own service acting as `person:<caregiver>`, so every use case applies the grant as it does for any
/// principal: a type not shared looks like a type with no data. Every view is recorded in the sharer's audit log
/// (`data.read`, principal `person:<caregiver>`, the types and the range; never a value), and only the household's
/// owner adds people.
///
/// ```swift
/// let household = HouseholdServices(household: Household(home: home)) { id in try await openService(for: id) }
/// try await household.share("alex", with: "owner", read: ["stepCount", "sleepAnalysis"])
/// try await household.sharedWith("owner").map(\.person)      // ["alex"]
/// let view = try await household.view(of: "alex", for: "owner")
/// try await view.summary(SummaryRequest(type: "stepCount", start: "7d"))   // Alex's steps
/// try await view.summary(SummaryRequest(type: "heartRate", start: "7d"))   // not shared: no data
/// ```
public actor HouseholdServices {
    /// Opens a person's service (their store and access state), acting for that person.
    public typealias Opener = @Sendable (_ person: String) async throws -> HealthService

    public nonisolated let household: Household
    let opener: Opener
    /// Each person's service, opened at most once (concurrent callers wait for the same opening).
    private var opened: [String: Task<HealthService, any Error>] = [:]

    public init(household: Household, opener: @escaping Opener) {
        self.household = household
        self.opener = opener
    }

    /// Uses `service` as `person`'s (the one a process already opened for them) instead of opening another.
    public func use(_ service: HealthService, for person: String) throws {
        let id = try Household.checkID(person)
        opened[id] = Task { service }
    }

    /// The service of `person` (their own, acting for them). `HEALTH_NOT_FOUND` for nobody of that id.
    public func service(of person: String) async throws -> HealthService {
        let id = try Household.checkID(person)
        if let task = opened[id] { return try await task.value }
        _ = try household.home(of: id)   // HEALTH_NOT_FOUND for no such person
        let opener = self.opener
        let task = Task { try await opener(id) }
        opened[id] = task
        do {
            return try await task.value
        } catch {
            if opened[id] == task { opened[id] = nil }   // a later call tries again (the database may be back)
            throw error
        }
    }

    /// Sets what `person` shares with `caregiver`: exactly `types` to read (`*` for all; none stops sharing).
    ///
    /// ```swift
    /// try await household.share("alex", with: "owner", read: ["stepCount"])   // Alex shares steps with the owner
    /// try await household.share("alex", with: "owner", read: [])             // and stops
    /// ```
    @discardableResult
    public func share(_ person: String, with caregiver: String, read types: [String]) async throws -> SharedData {
        let (sharer, reader) = try pair(person, caregiver)
        let names = types.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
        let service = try await service(of: sharer.id)
        let entry = try await service.updateGrants(GrantsUpdate(principal: Principal.person(reader.id).id,
                                                                allowRead: names, reset: true))
        return SharedData(person: sharer.id, personName: sharer.name, caregiver: reader.id, caregiverName: reader.name,
                          read: entry.grants.read.summary, grant: entry.grants.read)
    }

    /// Everyone who shares something with `caregiver`, and what.
    public func sharedWith(_ caregiver: String) async throws -> [SharedData] {
        let people = try household.people()
        guard let reader = people.first(where: { $0.id == caregiver }) else { throw Self.noSuchPerson(caregiver) }
        var shared: [SharedData] = []
        for sharer in people where sharer.id != reader.id {
            let grant = try await service(of: sharer.id).grants(for: .person(reader.id)).read
            guard !grant.isEmpty else { continue }
            shared.append(SharedData(person: sharer.id, personName: sharer.name, caregiver: reader.id,
                                     caregiverName: reader.name, read: grant.summary, grant: grant))
        }
        return shared
    }

    /// What `person` shares, with whom.
    public func sharedBy(_ person: String) async throws -> [SharedData] {
        let people = try household.people()
        guard let sharer = people.first(where: { $0.id == person }) else { throw Self.noSuchPerson(person) }
        let service = try await service(of: sharer.id)
        var shared: [SharedData] = []
        for reader in people where reader.id != sharer.id {
            let grant = try await service.grants(for: .person(reader.id)).read
            guard !grant.isEmpty else { continue }
            shared.append(SharedData(person: sharer.id, personName: sharer.name, caregiver: reader.id,
                                     caregiverName: reader.name, read: grant.summary, grant: grant))
        }
        return shared
    }

    /// The view `caregiver` has of `person`'s data: `person`'s service acting as `person:<caregiver>`, reading only
    /// what was shared. `HEALTH_NOT_FOUND` alike for nobody of that id and for somebody who shares nothing with
    /// `caregiver` (who cannot tell them apart).
    public func view(of person: String, for caregiver: String) async throws -> HealthService {
        let (sharer, reader) = try pair(person, caregiver, refusal: .notFound)
        let service = try await service(of: sharer.id)
        guard !(try await service.grants(for: .person(reader.id)).read.isEmpty) else {
            throw Self.nothingShared(person)
        }
        return service.acting(as: .person(reader.id))
    }

    /// Takes back everything the others share with `person` (before `person` is removed, so that somebody added
    /// later under the same id inherits nothing). Returns the people who had shared something.
    @discardableResult
    public func forget(_ person: String) async throws -> [String] {
        let id = try Household.checkID(person)
        var revoked: [String] = []
        for sharer in try household.people() where sharer.id != id {
            let service = try await service(of: sharer.id)
            guard !(try await service.grants(for: .person(id)).read.isEmpty) else { continue }
            try await service.updateGrants(GrantsUpdate(principal: Principal.person(id).id, reset: true))
            revoked.append(sharer.id)
        }
        return revoked
    }

    /// Records in `person`'s audit log that `caregiver` viewed their data: of the types asked, those the grant let
    /// through, and the range; never a value.
    public func recordView(of person: String, by caregiver: String, types: [String], count: Int? = nil,
                           start: String? = nil, end: String? = nil) async throws {
        let service = try await service(of: person)
        let grant = try await service.grants(for: .person(caregiver)).read
        let read = Set(types.filter(grant.permitsRead)).sorted()
        let principal = Principal.person(caregiver).id
        try await service.accessStore().append([AuditEvent(
            event: .dataRead, client: principal,
            detail: .init(types: read, sampleCount: count, start: start, end: end, principal: principal))])
    }

    /// Both people, distinct and present.
    private func pair(_ person: String, _ caregiver: String, refusal: HealthError.Code = .invalidArgument) throws
        -> (Household.Person, Household.Person)
    {
        let people = try household.people()
        guard let sharer = people.first(where: { $0.id == person }) else {
            throw refusal == .notFound ? Self.nothingShared(person) : Self.noSuchPerson(person)
        }
        guard let reader = people.first(where: { $0.id == caregiver }) else { throw Self.noSuchPerson(caregiver) }
        guard sharer.id != reader.id else {
            throw refusal == .notFound ? Self.nothingShared(person)
                : HealthError(.invalidArgument, "a person always reads their own data; name another person of the household",
                              argument: "caregiver")
        }
        return (sharer, reader)
    }

    static func noSuchPerson(_ id: String) -> HealthError {
        HealthError(.notFound, "no person '\(id.prefix(60))' in this household; `healthbridge people list` shows them",
                    argument: "person")
    }

    static func nothingShared(_ id: String) -> HealthError {
        HealthError(.notFound, "nobody called '\(id.prefix(60))' shares data with you", argument: "person")
    }
}
