import Foundation
import HealthAPI
import Synchronization

/// What was added and deleted since an anchor: HealthKit's `HKAnchoredObjectQuery`. With an ``updateHandler`` the
/// query keeps running and reports each later change, with the anchor to keep.
///
/// ```swift
/// let query = HKAnchoredObjectQuery(type: HKQuantityType(.bodyMass), predicate: nil, anchor: saved, limit: HKObjectQueryNoLimit) { _, added, deleted, anchor, _ in
///     saved = anchor
/// }
/// store.execute(query)
/// ```
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
    public let limit: Int
    let anchor: HKQueryAnchor?
    let resultsHandler: @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void
    let update = Mutex<(@Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void)?>(nil)

    public init(type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int,
                resultsHandler handler: @escaping @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void) {
        self.limit = limit
        self.anchor = anchor
        self.resultsHandler = handler
        super.init(objectType: type, predicate: predicate)
    }

    /// Set it to keep the query running after the first answer.
    public var updateHandler: (@Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void)? {
        get { update.withLock { $0 } }
        set { update.withLock { $0 = newValue } }
    }

    override func run(on connection: HealthKitConnection) async throws {
        guard let type = sampleType else { throw HKError(.errorInvalidArgument, "an anchored query needs a sample type") }
        let filter = self.filter
        var cursor = anchor?.value
        var (added, deleted) = ([HKSample](), [HKDeletedObject]())
        // The first answer: everything since the anchor, up to the limit.
        while true {
            let wanted = limit > 0 ? min(5_000, limit - added.count - deleted.count) : 5_000
            let batch = try await connection.changes(of: [type.serverName], from: cursor, limit: max(1, wanted))
            cursor = batch.anchor
            Self.collect(batch, filter, &added, &deleted)
            if !batch.hasMore || (limit > 0 && added.count + deleted.count >= limit) { break }
        }
        guard !isCancelled else { return }
        resultsHandler(self, added, deleted, cursor.map(HKQueryAnchor.init(value:)), nil)
        var delay = 0.2
        while !isCancelled, let handler = update.withLock({ $0 }) {
            do {
                let batch = try await connection.changes(of: [type.serverName], from: cursor, wait: 20, limit: 500)
                delay = 0.2
                cursor = batch.anchor
                var (added, deleted) = ([HKSample](), [HKDeletedObject]())
                Self.collect(batch, filter, &added, &deleted)
                guard !added.isEmpty || !deleted.isEmpty, !isCancelled else { continue }
                handler(self, added, deleted, HKQueryAnchor(value: batch.anchor), nil)
            } catch {
                guard await connection.backoff(after: HKError.from(error), &delay) else { throw error }
            }
        }
    }

    static func collect(_ batch: ChangesResult, _ filter: HKPredicateSpec, _ added: inout [HKSample],
                        _ deleted: inout [HKDeletedObject]) {
        for change in batch.added {
            if let object = HealthKitConnection.object(change), filter.matches(object) { added.append(object) }
        }
        for gone in batch.deleted {
            guard let uuid = UUID(uuidString: gone.uuid) else { continue }
            var metadata: [String: HKMetadataValue] = [:]
            if let sync = gone.syncId, !sync.hasPrefix(HKMetadata.kitLogPrefix) { metadata[HKMetadataKeySyncIdentifier] = .string(sync) }
            deleted.append(HKDeletedObject(uuid: uuid, metadata: metadata))
        }
    }

    override func fail(_ error: HKError) {
        if let update = update.withLock({ $0 }) { update(self, nil, nil, nil, error) } else { resultsHandler(self, nil, nil, nil, error) }
    }
}
