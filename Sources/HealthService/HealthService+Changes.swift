import Foundation
import HealthAPI
import HealthModel
import HealthStore

extension HealthService {
    /// Objects added and deleted since an anchor, in commit order, of the types this principal may read (others
    /// look unchanged). With `wait`, an answer with nothing in it waits up to that many seconds for the next commit.
    public func changes(_ request: ChangesRequest) async throws -> ChangesResult {
        let service = try zoned(request.timeZone)
        let limit = try Self.limit(request.limit, default: 500, range: 1...5_000)
        let wait = request.wait ?? 0
        guard wait.isFinite, (0...60).contains(wait) else {
            throw HealthError(.invalidArgument, "wait must be 0 to 60 seconds")
        }
        var anchor: Int64? = nil
        if let text = DateRange.nonEmpty(request.anchor) {
            guard let value = Int64(text), value >= 0 else {
                throw HealthError(.invalidArgument, "anchor is not valid: pass the anchor of the previous answer, or leave it out to start from the beginning")
            }
            anchor = value
        }
        let grants = try await readGrant()   // paused sharing refuses paired devices and apps first
        var types: [String]? = nil
        if let names = Self.list(request.types) {
            types = try await names.asyncMap { name in
                let type = try await resolveType(name)
                return type.identifier
            }
        }
        // Types not readable are filtered out, as if nothing had changed for them — in the store's query itself, so
        // that neither the page's size, `hasMore`, nor when a long-poll wakes depends on data this principal may
        // not read.
        let readable: [String]?
        if let types {
            readable = types.filter(grants.permitsRead)
        } else if grants.all && grants.except.isEmpty {
            readable = nil
        } else {
            readable = try await readableTypes(grants)
        }
        let notifications = wait > 0 ? store.changeNotifications() : nil
        var result = try await changeSet(since: anchor, types: readable, limit: limit, grants: grants, service: service)
        if wait > 0, result.added.isEmpty, result.deleted.isEmpty, let notifications {
            let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1_000))
            let watched = Set(readable ?? [])
            let waiter = Task { () -> Bool in
                for await change in notifications {
                    if readable == nil || !change.types.isDisjoint(with: watched) { return true }
                    if ContinuousClock.now >= deadline { return false }
                }
                return false
            }
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                waiter.cancel()
            }
            _ = await waiter.value
            timer.cancel()
            result = try await changeSet(since: anchor, types: readable, limit: limit, grants: grants, service: service)
        }
        return result
    }

    /// The change feed's anchor now, in O(1) whatever the store holds (the store's last change number; no sample is
    /// read): an observer starting from it gets only later changes, without downloading the history. A paired device
    /// or app gets `HEALTH_SHARING_PAUSED` while sharing is paused, as for ``changes(_:)``.
    ///
    /// ```swift
    /// let now = try await service.acting(as: app).changesAnchor()
    /// let next = try await service.acting(as: app).changes(ChangesRequest(types: ["bodyMass"], anchor: now.anchor, wait: 30))
    /// ```
    public func changesAnchor() async throws -> ChangesAnchor {
        try await requireSharingActive()
        return ChangesAnchor(anchor: String(try await store.currentAnchor()))
    }

    func changeSet(since anchor: Int64?, types: [String]?, limit: Int, grants: TypeGrant,
                   service: HealthService) async throws -> ChangesResult {
        if let types, types.isEmpty {
            return ChangesResult(added: [], deleted: [], anchor: String(try await store.currentAnchor()), hasMore: false)
        }
        let set = try await store.changes(since: anchor, types: types, limit: limit)
        var added: [ChangesResult.ChangedObject] = []
        for sample in set.added where grants.permitsRead(sample.type) {
            guard let type = SampleTypeRegistry.registered(sample.type) ?? SampleTypeRegistry.unregistered(sample.type) else { continue }
            added.append(.init(type: sample.type, sample: try service.record(sample, type: type)))
        }
        if grants.allows("workout") {
            let routes = grants.allows(Self.workoutRouteType)
            added += set.addedWorkouts.map { .init(type: "workout", workout: service.workoutRecord($0, routes: routes)) }
        }
        // A correlation's tombstone (a meal deleted) shows when one of its member types is readable.
        let deleted = set.deleted.filter { grants.permitsRead($0.type) }.map {
            ChangesResult.DeletedObject(uuid: $0.uuid.uuidString, type: $0.type, syncId: $0.syncIdentifier,
                                        deletedAt: service.iso($0.deletedAt))
        }
        return ChangesResult(added: added, deleted: deleted, anchor: String(set.anchor), hasMore: set.hasMore)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        result.reserveCapacity(count)
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
