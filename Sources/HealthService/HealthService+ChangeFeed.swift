import Foundation
import HealthModel
import HealthStore

/// The change feed for subscribers (the OpenClaw node's `health.update`), narrowed to what the principal may read:
/// a change of a type it may not read is never seen, exactly as if nothing had been recorded (HealthKit's rule).
extension HealthService {
    /// Commit notifications — this process's and other processes' — with only the types this principal may read;
    /// a commit of nothing readable is not delivered. Grants are read at each commit, so a change of grants applies
    /// from the next one.
    ///
    /// ```swift
    /// for await change in service.acting(as: .gateway()).changeNotifications() {
    ///     print(change.types, change.anchor)   // never a type the gateway may not read
    /// }
    /// ```
    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        let source = store.changeNotifications()
        let service = self
        let (stream, continuation) = AsyncStream<ChangeNotification>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let task = Task {
            for await change in source {
                guard let grant = try? await service.grants(for: service.principal).read else { continue }
                let readable = change.types.filter(grant.permitsRead)
                if !readable.isEmpty { continuation.yield(ChangeNotification(types: readable, anchor: change.anchor)) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The change feed's anchor now: where a new subscriber starts reading (HealthKit's anchor "now").
    ///
    /// ```swift
    /// let start = try await service.currentAnchor()
    /// ```
    public func currentAnchor() async throws -> Int64 {
        try await store.currentAnchor()
    }

    /// What a subscriber persisted under `key` (its subscribed types and acknowledged anchors), nil if nothing;
    /// kept in the store so that subscriptions survive restarts.
    ///
    /// ```swift
    /// let saved = try await service.subscriberState("openclaw.node.subscriptions")
    /// ```
    public func subscriberState(_ key: String) async throws -> String? {
        try await store.setting(try Self.subscriberKey(key))
    }

    /// Persists a subscriber's state under `key` (nil removes it).
    public func setSubscriberState(_ key: String, _ value: String?) async throws {
        try await store.setSetting(try Self.subscriberKey(key), value)
    }

    /// A subscriber's key ends in `.subscriptions`: the store's other settings (grants, requests) are not its.
    static func subscriberKey(_ key: String) throws(HealthError) -> String {
        guard key.hasSuffix(".subscriptions"), !key.hasPrefix("access.") else {
            throw HealthError(.invalidArgument, "a subscriber's state is kept under a key ending in .subscriptions")
        }
        return key
    }

    /// The samples and workouts added, and the objects deleted, since `anchor` among `types` this principal may read
    /// (at most `limit` objects); the others are left out of the store's query itself, so neither the page nor
    /// `hasMore` depends on them. The answer's anchor is where to read on from.
    ///
    /// ```swift
    /// let page = try await gateway.readableChanges(since: acknowledged, types: ["heartRate"], limit: 10_000)
    /// ```
    public func readableChanges(since anchor: Int64?, types: [String], limit: Int) async throws -> ChangeSet {
        let grant = try await grants(for: principal).read
        let readable = types.filter(grant.permitsRead)
        guard !readable.isEmpty else {
            return ChangeSet(added: [], addedWorkouts: [], deleted: [], anchor: try await store.currentAnchor(),
                             hasMore: false)
        }
        return try await store.changes(since: anchor, types: readable, limit: limit)
    }
}
