import Foundation
import HealthAPI
import HealthBridgeKit

extension HealthKitConnection {
    /// One answer of the change feed for `types` after `anchor` (nil: from the beginning); `wait` long-polls.
    func changes(of types: [String], from anchor: String?, wait: Double = 0, limit: Int = 500) async throws(HKError) -> ChangesResult {
        do {
            return try await manager.changes(types: Set(types.map { HealthDataType($0) }), anchor: anchor, wait: wait, limit: limit)
        } catch {
            throw HKError.from(error)
        }
    }

    /// Waits before retrying a feed that did not answer; false when the error is not worth retrying.
    func backoff(after error: HKError, _ delay: inout Double) async -> Bool {
        guard error.code == .errorDatabaseInaccessible, !Task.isCancelled else { return false }
        try? await Task.sleep(for: .milliseconds(Int(delay * 1_000 * Double.random(in: 0.5...1))))
        delay = min(delay * 2, 5)
        return true
    }
}
