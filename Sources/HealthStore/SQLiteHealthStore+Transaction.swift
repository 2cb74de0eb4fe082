import Foundation
import GRDB
import HealthModel

extension SQLiteHealthStore {
    /// Deletions, samples, correlations and workouts in one SQLite transaction: all or nothing, one change
    /// notification.
    @discardableResult
    public func commit(_ transaction: StoreTransaction) async throws -> TransactionResult {
        let batch = SampleBatch(transaction.samples)
        let (result, types) = try await write { db -> (TransactionResult, Set<String>) in
            var types = Set<String>()
            let (deleted, deletedTypes, _) = try self.deleteObjects(transaction.deletions, db)
            types.formUnion(deletedTypes)
            var saved = SaveResult()
            if !batch.isEmpty {
                let (result, sampleTypes, _) = try self.insert(batch, db)
                saved = saved + result
                types.formUnion(sampleTypes)
            }
            if !transaction.correlations.isEmpty {
                let (result, correlationTypes, _) = try self.insert(correlations: transaction.correlations, db)
                saved = saved + result
                types.formUnion(correlationTypes)
            }
            if !transaction.workouts.isEmpty {
                let (result, _) = try self.insert(workouts: transaction.workouts, db)
                saved = saved + result
                if result.inserted > 0 { types.insert("workout") }
            }
            return (TransactionResult(saved: saved, deleted: deleted, anchor: try self.currentSequence(db)), types)
        }
        notify(types: types, anchor: result.anchor)
        return result
    }
}
