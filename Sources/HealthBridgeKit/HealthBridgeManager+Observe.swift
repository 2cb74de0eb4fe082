import Foundation
import HealthAPI
import HealthModel
import HealthSupport

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
    public func observe(_ types: Set<HealthDataType>, from anchor: String? = nil, wait: Double = 20,
                        limit: Int? = nil) -> AsyncThrowingStream<ChangesResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ChangesResult, any Error>.makeStream()
        let logger = self.logger
        let task = Task { [self] in
            var anchor = anchor
            var delay = 0.2
            while !Task.isCancelled {
                do {
                    let batch = try await changes(types: types, anchor: anchor, wait: wait, limit: limit)
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

// The seed's background delivery (§5): observers that post notifications when weight or active energy change,
// resuming at each launch from where the app was last told, so nothing committed while the app was closed is missed.
extension HealthBridgeManager {
    /// Background delivery: observers always resume from the anchor kept for each type beside the credentials file
    /// (`observer-anchors.json`), so changes made while the app was closed are delivered at its next launch; there
    /// is nothing to enable. Kept for the seed's call sites.
    ///
    /// ```swift
    /// manager.enableBackgroundDelivery()
    /// ```
    public func enableBackgroundDelivery() {}

    /// The change feed's anchor now: one small request, no history (`GET /api/v1/health/changes/anchor`).
    ///
    /// ```swift
    /// let now = try await manager.changesAnchor()
    /// ```
    public func changesAnchor() async throws(HealthBridgeError) -> String {
        try await get("health/changes/anchor", as: ChangesAnchor.self).anchor
    }

    /// Starts observers on `bodyMass` and `activeEnergyBurned` that post ``Foundation/Notification/Name/healthBridgeWeightUpdated``
    /// and ``Foundation/Notification/Name/healthBridgeEnergyUpdated`` when samples change, the seed's
    /// `setupObserverQueries()`. Each type resumes from the anchor kept at its last delivery: a change made while the
    /// app was closed is posted once at launch. The first launch starts from the current anchor (no history is
    /// downloaded). Stop them with ``stopObserverQueries()``.
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
                var anchor = observerAnchors.withLock { $0[type.rawValue] }
                while !Task.isCancelled, anchor == nil {
                    do {
                        anchor = try await changesAnchor()
                    } catch {
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
                // Only whether something changed matters here: one change is enough to post, then the observer
                // moves to the feed's current anchor (a thousand imported weights post once, not a thousand times).
                var delay = 0.2
                while !Task.isCancelled, let from = anchor {
                    do {
                        let batch = try await changes(types: [type], anchor: from, wait: 20, limit: 1)
                        delay = 0.2
                        guard !batch.isEmpty else {
                            anchor = batch.anchor
                            continue
                        }
                        let upTo = try await changesAnchor()
                        guard !Task.isCancelled else { return }
                        NotificationCenter.default.post(name: name, object: nil)
                        keepObserverAnchor(upTo, for: type)
                        anchor = upTo
                    } catch {
                        let failure = error as? HealthBridgeError
                        guard failure?.isTransient ?? true, !Task.isCancelled else {
                            logger.warning("observer stopped", metadata: ["type": "\(type.rawValue)",
                                                                          "code": "\(failure?.code?.rawValue ?? "no answer")"])
                            return
                        }
                        try? await Task.sleep(for: .milliseconds(Int(delay * 1_000 * Double.random(in: 0.5...1))))
                        delay = min(delay * 2, 5)
                    }
                }
            }
        }
        observerTasks.withLock { $0 += tasks }
    }

    /// Keeps the point up to which `type`'s observer has posted (0600, atomic).
    func keepObserverAnchor(_ anchor: String, for type: HealthDataType) {
        let snapshot = observerAnchors.withLock { anchors in
            anchors[type.rawValue] = anchor
            return anchors
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try PrivateFile.write(try encoder.encode(snapshot), to: observerAnchorsFile)
        } catch {
            logger.error("cannot keep the observers' anchors", metadata: ["error": "\(error)"])
        }
    }

    var observerAnchorsFile: URL { credentialsFile.deletingLastPathComponent().appendingPathComponent("observer-anchors.json") }

    static func loadObserverAnchors(_ credentials: URL) -> [String: String] {
        let url = credentials.deletingLastPathComponent().appendingPathComponent("observer-anchors.json")
        guard let data = try? Data(contentsOf: url), let anchors = try? JSONDecoder().decode([String: String].self, from: data) else {
            return [:]
        }
        return anchors
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
