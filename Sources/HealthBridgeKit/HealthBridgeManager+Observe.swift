import Foundation
import HealthModel

// The seed's observer queries and background delivery (§5), over the anchored change feed.
extension HealthBridgeManager {
    /// Changes to `types` as they are committed on the server: HealthKit's `HKObserverQuery` with background
    /// delivery, and the anchored query that tells what changed.
    ///
    /// The stream long-polls the change feed from `anchor` (nil: from the beginning). Each element is a non-empty
    /// batch; save its ``ChangesResult/anchor`` and pass it back after a restart to resume where you were. A dropped
    /// connection, a server restart or paused sharing is retried with backoff from the last anchor, without
    /// losing or repeating a change; the stream ends with an error only when retrying cannot help (unpaired,
    /// revoked, another certificate).
    ///
    /// ```swift
    /// for try await batch in manager.observe([.bodyMass], from: savedAnchor) {
    ///     for added in batch.added { print(added.sample?.value ?? 0) }
    ///     savedAnchor = batch.anchor
    /// }
    /// ```
    public func observe(_ types: Set<HealthDataType>, from anchor: String? = nil,
                        wait: Double = 20) -> AsyncThrowingStream<ChangesResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ChangesResult, any Error>.makeStream()
        let logger = self.logger
        let task = Task { [self] in
            var anchor = anchor
            var delay = 0.2
            while !Task.isCancelled {
                do {
                    let batch = try await changes(types: types, anchor: anchor, wait: wait)
                    delay = 0.2
                    anchor = batch.anchor
                    if !batch.isEmpty { continuation.yield(batch) }
                } catch {
                    let transient = (error as? HealthBridgeError)?.isTransient ?? true
                    guard transient, !Task.isCancelled else {
                        continuation.finish(throwing: error)
                        return
                    }
                    logger.debug("change feed interrupted; retrying", metadata: ["delay": "\(delay)"])
                    try? await Task.sleep(for: .milliseconds(Int(delay * 1_000 * Double.random(in: 0.5...1))))
                    delay = min(delay * 2, 5)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

// The seed's background delivery (§5): observers that post notifications when weight or active energy change.
extension HealthBridgeManager {
    /// Background delivery: with HealthBridge the change feed is always on, so there is nothing to enable. Kept for
    /// the seed's call sites.
    ///
    /// ```swift
    /// manager.enableBackgroundDelivery()
    /// ```
    public func enableBackgroundDelivery() {}

    /// Starts observers on `bodyMass` and `activeEnergyBurned` that post ``Foundation/Notification/Name/healthBridgeWeightUpdated``
    /// and ``Foundation/Notification/Name/healthBridgeEnergyUpdated`` when new samples arrive (from now on), the
    /// seed's `setupObserverQueries()`. Stop them with ``stopObserverQueries()``.
    ///
    /// ```swift
    /// manager.setupObserverQueries()
    /// NotificationCenter.default.addObserver(forName: .healthBridgeWeightUpdated, object: nil, queue: nil) { _ in … }
    /// ```
    public func setupObserverQueries() {
        let watched: [(HealthDataType, Notification.Name)] = [(.bodyMass, .healthBridgeWeightUpdated),
                                                             (.activeEnergyBurned, .healthBridgeEnergyUpdated)]
        let tasks = watched.map { type, name in
            Task { [self] in
                // From now on: skip what is already stored.
                var anchor: String?
                while !Task.isCancelled, anchor == nil {
                    do {
                        var batch = try await changes(types: [type], limit: 5_000)
                        while batch.hasMore { batch = try await changes(types: [type], anchor: batch.anchor, limit: 5_000) }
                        anchor = batch.anchor
                    } catch {
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
                do {
                    for try await _ in observe([type], from: anchor) {
                        NotificationCenter.default.post(name: name, object: nil)
                    }
                } catch {
                    let code = (error as? HealthBridgeError)?.code?.rawValue ?? "no answer"
                    logger.warning("observer stopped", metadata: ["type": "\(type.rawValue)", "code": "\(code)"])
                }
            }
        }
        observerTasks.withLock { $0 += tasks }
    }

    /// Stops the observers of ``setupObserverQueries()``.
    ///
    /// ```swift
    /// manager.stopObserverQueries()
    /// ```
    public func stopObserverQueries() {
        observerTasks.withLock { tasks in
            for task in tasks { task.cancel() }
            tasks.removeAll()
        }
    }
}

extension Notification.Name {
    /// Posted by ``HealthBridgeManager/setupObserverQueries()`` when weights were added (seed `healthKitWeightUpdated`).
    public static let healthBridgeWeightUpdated = Notification.Name("healthBridgeWeightUpdated")
    /// Posted when active energy was added (seed `healthKitEnergyUpdated`).
    public static let healthBridgeEnergyUpdated = Notification.Name("healthBridgeEnergyUpdated")
}
