import Foundation
import HealthAPI
import HealthModel
import HealthStore

extension HealthService {
    /// Deletes objects in one transaction, leaving tombstones in the change feed. A principal deletes only what it
    /// wrote (HealthKit's rule); the owner deletes anything. Deleting what is already gone (or never was) deletes
    /// nothing and is no error. A correlation (a meal) is authorized through its member types, as HealthKit does:
    /// deleting a meal needs a write grant on each nutrient it holds, never a `food` grant.
    ///
    /// ```swift
    /// try await service.acting(as: app).delete(DeleteRequest(logId: "meal-42"))   // nutrients and correlation
    /// try await service.acting(as: app).delete(DeleteRequest(uuids: [a.uuidString, b.uuidString]))   // both or neither
    /// ```
    public func delete(_ request: DeleteRequest) async throws -> DeleteResult {
        let given = [request.uuid, request.logId, request.syncId].compactMap { DateRange.nonEmpty($0) }.count
            + (request.uuids == nil ? 0 : 1)
        guard given == 1 else {
            throw HealthError(.invalidArgument, "give exactly one of uuid, uuids, log id or sync id")
        }
        if let uuids = request.uuids, !(1...DeleteRequest.maxUUIDs).contains(uuids.count) {
            throw HealthError(.invalidArgument, "uuids must hold 1 to \(DeleteRequest.maxUUIDs) UUIDs, got \(uuids.count)")
        }
        try await requireSharingActive()   // also when nothing matches: a paused device learns nothing
        let own = principal.kind == .owner ? nil : principal.source.key
        var targets: [UUID] = []
        /// The types of what is deleted, for the audit entry; `writeTypes` the grants the delete needs.
        var types: Set<String> = []
        var writeTypes: Set<String> = []
        if let texts = DateRange.nonEmpty(request.uuid).map({ [$0] }) ?? request.uuids {
            // Every UUID is read first: one that is not a UUID refuses the whole delete, nothing is deleted.
            let uuids = try texts.map { text throws(HealthError) -> UUID in
                guard let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
                    throw HealthError(.invalidArgument, "uuid '\(text.prefix(64))' is not a UUID")
                }
                return uuid
            }
            var seen = Set<UUID>()
            var lookup = ObjectLookup()
            for uuid in uuids where seen.insert(uuid).inserted {
                guard let object = try await objectSource(uuid, lookup: &lookup) else { continue }   // unknown: skipped
                guard own == nil || object.key == own else {
                    throw HealthError(.notAuthorized, "\(principal.id) may delete only what it wrote; object \(uuid.uuidString) comes from \(object.name)")
                }
                targets.append(uuid)
                types.insert(object.type)
                writeTypes.formUnion(object.writeTypes)
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
            writeTypes = types
            for correlationType in SampleTypeRegistry.types(of: .correlation) {
                let correlations = try await store.correlations(type: correlationType.identifier, start: nil, end: nil, limit: nil)
                    .filter { $0.metadata[key] == value && (own == nil || $0.source.key == own) }
                for correlation in correlations {
                    targets.append(correlation.uuid)
                    types.insert(correlation.type)
                    writeTypes.formUnion(try await memberTypes(of: correlation))
                }
            }
            let workouts = try await store.workouts(WorkoutQuery())
                .filter { $0.metadata[key] == value && (own == nil || $0.source.key == own) }
            targets += workouts.map(\.uuid)
            if !workouts.isEmpty { types.insert("workout"); writeTypes.insert("workout") }
        }
        for type in writeTypes.sorted() { try await authorizeWrite(type) }
        let result = try await store.commit(StoreTransaction(deletions: targets))
        await audit(.delete, types: types, count: result.deleted)
        return DeleteResult(deleted: result.deleted, uuids: targets.map(\.uuidString), anchor: String(result.anchor))
    }

    /// The correlations of every registered correlation type by UUID, read once per delete and only when a UUID is
    /// neither a workout nor a sample.
    struct ObjectLookup {
        var correlations: [UUID: HealthCorrelation]?
    }

    /// Who wrote an object, its type, and the types whose write grant deleting it needs: a sample or workout its own
    /// type, a correlation the types of the members it holds (HealthKit's rule).
    func objectSource(_ uuid: UUID, lookup: inout ObjectLookup)
        async throws -> (key: String, name: String, type: String, writeTypes: Set<String>)?
    {
        if let workout = try await store.workout(uuid) {
            return (workout.source.key, workout.source.name, "workout", ["workout"])
        }
        if let sample = try await store.sample(uuid) {
            return (sample.source.key, sample.source.name, sample.type, [sample.type])
        }
        if lookup.correlations == nil {
            var all: [UUID: HealthCorrelation] = [:]
            for type in SampleTypeRegistry.types(of: .correlation) {
                for correlation in try await store.correlations(type: type.identifier, start: nil, end: nil, limit: nil) {
                    all[correlation.uuid] = correlation
                }
            }
            lookup.correlations = all
        }
        guard let correlation = lookup.correlations?[uuid] else { return nil }
        return (correlation.source.key, correlation.source.name, correlation.type, try await memberTypes(of: correlation))
    }

    /// The types of the members a correlation holds (those still stored).
    func memberTypes(of correlation: HealthCorrelation) async throws -> Set<String> {
        var types = Set<String>()
        for member in correlation.members {
            if let sample = try await store.sample(member) { types.insert(sample.type) }
        }
        return types
    }
}
