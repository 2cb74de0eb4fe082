import Foundation
import HealthModel
import HealthStore

/// HealthKit's anchored object query: what was added and deleted since an anchor, and the anchor to ask from next.
///
/// ```swift
/// var feed = try await service.changes(ChangesRequest(types: ["bodyMass"]))        // everything so far
/// feed = try await service.changes(ChangesRequest(types: ["bodyMass"], anchor: feed.anchor, wait: 30))   // long-poll
/// ```
public struct ChangesRequest: Codable, Sendable, Hashable {
    /// Types to follow (default every type).
    public var types: [String]?
    /// The `anchor` of the previous answer; absent: from the beginning.
    public var anchor: String?
    /// Seconds to wait for a change when there is none yet (long-poll), 0…60; default 0.
    public var wait: Double?
    /// Changes per answer, 1…5,000 (default 500).
    public var limit: Int?
    public var timeZone: String?

    public init(types: [String]? = nil, anchor: String? = nil, wait: Double? = nil, limit: Int? = nil,
                timeZone: String? = nil) {
        self.types = types; self.anchor = anchor; self.wait = wait; self.limit = limit; self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey { case types, anchor, wait, limit, timeZone = "time_zone" }
}

public struct ChangesResult: Codable, Sendable, Hashable {
    public var added: [ChangedObject]
    public var deleted: [DeletedObject]
    /// Pass it back to get what changed after this answer.
    public var anchor: String
    /// True when `limit` cut the answer: ask again from `anchor` at once.
    public var hasMore: Bool

    public struct ChangedObject: Codable, Sendable, Hashable {
        public var type: String
        public var sample: SampleRecord?
        public var workout: WorkoutRecord?
    }

    public struct DeletedObject: Codable, Sendable, Hashable {
        public var uuid: String
        public var type: String
        public var syncId: String?
        public var deletedAt: String
        enum CodingKeys: String, CodingKey { case uuid, type, syncId = "sync_id", deletedAt = "deleted_at" }
    }

    enum CodingKeys: String, CodingKey { case added, deleted, anchor, hasMore = "has_more" }
}

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
        let grants = try await grants(for: principal).read
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
            readable = types.filter(grants.allows)
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

    func changeSet(since anchor: Int64?, types: [String]?, limit: Int, grants: TypeGrant,
                   service: HealthService) async throws -> ChangesResult {
        if let types, types.isEmpty {
            return ChangesResult(added: [], deleted: [], anchor: String(try await store.currentAnchor()), hasMore: false)
        }
        let set = try await store.changes(since: anchor, types: types, limit: limit)
        var added: [ChangesResult.ChangedObject] = []
        for sample in set.added where grants.allows(sample.type) {
            guard let type = SampleTypeRegistry.registered(sample.type) ?? SampleTypeRegistry.unregistered(sample.type) else { continue }
            added.append(.init(type: sample.type, sample: try service.record(sample, type: type)))
        }
        if grants.allows("workout") {
            let routes = grants.allows(Self.workoutRouteType)
            added += set.addedWorkouts.map { .init(type: "workout", workout: service.workoutRecord($0, routes: routes)) }
        }
        let deleted = set.deleted.filter { grants.allows($0.type) }.map {
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
