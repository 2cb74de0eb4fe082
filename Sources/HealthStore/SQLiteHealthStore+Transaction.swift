import Foundation
import GRDB
import HealthModel

extension SQLiteHealthStore {
    /// Deletions, samples, correlations, workouts and routes in one SQLite transaction: all or nothing, one change
    /// notification.
    @discardableResult
    public func commit(_ transaction: StoreTransaction) async throws -> TransactionResult {
        try await commit(deletions: transaction.deletions, batch: SampleBatch(transaction.samples),
                         correlations: transaction.correlations, workouts: transaction.workouts,
                         routes: transaction.routes.map { ($0.key, $0.value.count, RoutePointColumns($0.value).packed()) },
                         pageCacheMegabytes: nil)
    }

    /// The same for a packed batch and route columns, under the transaction's page-cache cap.
    @discardableResult
    public func commit(_ transaction: BulkTransaction) async throws -> TransactionResult {
        try await commit(deletions: transaction.deletions, batch: transaction.batch,
                         correlations: transaction.correlations, workouts: transaction.workouts,
                         routes: transaction.routes.map { ($0.key, $0.value.count, $0.value.packed()) },
                         pageCacheMegabytes: transaction.pageCacheMegabytes)
    }

    func commit(deletions: [UUID], batch: SampleBatch, correlations: [HealthCorrelation], workouts: [HealthWorkout],
                routes packedRoutes: [(UUID, Int, Data)], pageCacheMegabytes cacheLimit: Int?) async throws
        -> TransactionResult
    {
        let (result, types) = try await write { db -> (TransactionResult, Set<String>) in
            var types = Set<String>()
            if let cacheLimit {
                try db.execute(sql: "PRAGMA cache_size = -\(max(1, cacheLimit) * 1024)")
            }
            defer { if cacheLimit != nil { try? db.execute(sql: "PRAGMA cache_size = -65536") } }
            let (deleted, deletedTypes, _) = try self.deleteObjects(deletions, db)
            types.formUnion(deletedTypes)
            var saved = SaveResult()
            if !batch.isEmpty {
                let (result, sampleTypes, _) = try self.insert(batch, db)
                saved = saved + result
                types.formUnion(sampleTypes)
            }
            if !correlations.isEmpty {
                let (result, correlationTypes, _) = try self.insert(correlations: correlations, db)
                saved = saved + result
                types.formUnion(correlationTypes)
            }
            if !workouts.isEmpty {
                let (result, _) = try self.insert(workouts: workouts, db)
                saved = saved + result
                if result.inserted > 0 { types.insert("workout") }
            }
            for (route, count, points) in packedRoutes { try self.insert(route: route, count: count, packed: points, db) }
            return (TransactionResult(saved: saved, deleted: deleted, anchor: try self.currentSequence(db)), types)
        }
        notify(types: types, anchor: result.anchor)
        return result
    }
}
