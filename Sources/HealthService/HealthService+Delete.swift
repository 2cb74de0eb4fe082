import Foundation
import HealthAPI
import HealthModel
import HealthStore

extension HealthService {
    /// Deletes objects, leaving tombstones in the change feed. A principal deletes only what it wrote (HealthKit's
    /// rule); the owner deletes anything. Deleting what is already gone deletes nothing and is no error.
    ///
    /// ```swift
    /// try await service.acting(as: app).delete(DeleteRequest(logId: "meal-42"))   // nutrients and correlation
    /// ```
    public func delete(_ request: DeleteRequest) async throws -> DeleteResult {
        let given = [request.uuid, request.logId, request.syncId].compactMap { DateRange.nonEmpty($0) }
        guard given.count == 1 else {
            throw HealthError(.invalidArgument, "give exactly one of uuid, log id or sync id")
        }
        try await requireSharingActive()   // also when nothing matches: a paused device learns nothing
        let own = principal.kind == .owner ? nil : principal.source.key
        var targets: [UUID] = []
        var types: Set<String> = []
        if let text = DateRange.nonEmpty(request.uuid) {
            guard let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
                throw HealthError(.invalidArgument, "uuid '\(text.prefix(64))' is not a UUID")
            }
            if let owner = try await objectSource(uuid) {
                guard own == nil || owner.key == own else {
                    throw HealthError(.notAuthorized, "\(principal.id) may delete only what it wrote; this object comes from \(owner.name)")
                }
                targets = [uuid]
                types.insert(owner.type)
            }
        } else {
            let key = DateRange.nonEmpty(request.logId) != nil ? MetadataKey.logIdentifier : MetadataKey.syncIdentifier
            let value = (DateRange.nonEmpty(request.logId) ?? DateRange.nonEmpty(request.syncId) ?? "")
            try Self.checkIdentifier(value, name: key == MetadataKey.logIdentifier ? "log id" : "sync id")
            for summary in try await store.typeSummaries() where summary.kind == .quantity || summary.kind == .category {
                var cursor: String?
                repeat {
                    let page = try await store.samples(SampleQuery(type: summary.type, sources: own.map { [$0] },
                                                                   metadataKey: key, metadataValues: [value],
                                                                   limit: 1_000, cursor: cursor))
                    targets += page.samples.map(\.uuid)
                    if !page.samples.isEmpty { types.insert(summary.type) }
                    cursor = page.nextCursor
                } while cursor != nil
            }
            let correlations = try await store.correlations(type: "food", start: nil, end: nil, limit: nil)
                .filter { ($0.metadata[key] == value || (key == MetadataKey.syncIdentifier && $0.metadata[key] == value))
                    && (own == nil || $0.source.key == own) }
            targets += correlations.map(\.uuid)
            let workouts = try await store.workouts(WorkoutQuery())
                .filter { $0.metadata[key] == value && (own == nil || $0.source.key == own) }
            targets += workouts.map(\.uuid)
            if !correlations.isEmpty { types.insert("food") }
            if !workouts.isEmpty { types.insert("workout") }
        }
        for type in types { try await authorizeWrite(type) }
        let result = try await store.commit(StoreTransaction(deletions: targets))
        await audit(.delete, types: types, count: result.deleted)
        return DeleteResult(deleted: result.deleted, uuids: targets.map(\.uuidString), anchor: String(result.anchor))
    }

    /// Who wrote an object, and its type: samples by their type, correlations, workouts.
    func objectSource(_ uuid: UUID) async throws -> (key: String, name: String, type: String)? {
        if let workout = try await store.workout(uuid) { return (workout.source.key, workout.source.name, "workout") }
        for correlation in try await store.correlations(type: "food", start: nil, end: nil, limit: nil) where correlation.uuid == uuid {
            return (correlation.source.key, correlation.source.name, "food")
        }
        if let sample = try await store.sample(uuid) { return (sample.source.key, sample.source.name, sample.type) }
        return nil
    }
}
