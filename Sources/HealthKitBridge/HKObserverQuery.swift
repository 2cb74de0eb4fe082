import Foundation

/// Call it when the app has dealt with an observer's update: HealthKit's `HKObserverQueryCompletionHandler`.
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// Tells the app that samples of a type changed: HealthKit's `HKObserverQuery`.
///
/// The kit keeps, per type and in the app's container, the point of the change feed up to which the app has been
/// told and has called the completion handler. When the query starts it tells the app at once if anything changed
/// since then — a weight logged while the app was closed reaches the handler at the next launch — then whenever a
/// change is committed (within a second, over a long-poll). Starting costs one small request: no history is read.
/// A handler that does not call its completion handler is told again at the next launch. The predicate narrows
/// nothing: the observer is told of any change of its type (a superset of HealthKit's, never a miss).
///
/// ```swift
/// let query = HKObserverQuery(sampleType: HKQuantityType(.bodyMass), predicate: nil) { _, completionHandler, error in
///     if error == nil { Task { await refreshWeight() } }
///     completionHandler()
/// }
/// store.execute(query)
/// ```
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
    let updateHandler: @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void

    public init(sampleType: HKSampleType, predicate: NSPredicate?,
                updateHandler: @escaping @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void) {
        self.updateHandler = updateHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    override func run(on connection: HealthKitConnection) async throws {
        guard let type = sampleType else { throw HKError(.errorInvalidArgument, "an observer needs a sample type") }
        let name = type.serverName
        var delay = 0.2
        // Where the app was last told up to; the first launch ever starts now and is told once.
        var position: String
        var changed: Bool
        if let acknowledged = connection.anchor(for: name) {
            position = acknowledged
            changed = false
        } else {
            position = try await connection.currentAnchor()
            changed = true
        }
        while !isCancelled {
            do {
                if !changed {
                    let batch = try await connection.changes(of: [name], from: position, wait: 20, limit: 1)
                    changed = !batch.added.isEmpty || !batch.deleted.isEmpty
                    if !changed { position = batch.anchor }
                }
                guard changed, !isCancelled else { continue }
                // Everything up to `upTo` is visible to what the handler reads next.
                let upTo = try await connection.currentAnchor()
                guard !isCancelled else { return }
                updateHandler(self, { connection.acknowledge(upTo, for: name) }, nil)
                position = upTo
                changed = false
                delay = 0.2
                if let pause = connection.background.withLock({ $0[name] })?.interval {
                    try await Task.sleep(for: pause)   // hourly, daily, weekly: at most once per period
                }
            } catch is CancellationError {
                return
            } catch {
                guard await connection.backoff(after: HKError.from(error), &delay) else { throw error }
            }
        }
    }

    override func fail(_ error: HKError) { updateHandler(self, {}, error) }
}
