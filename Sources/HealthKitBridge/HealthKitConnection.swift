import Foundation
import HealthAPI
import HealthBridgeKit
import HealthModel
import HealthSupport
import Logging
import Synchronization

/// What every `HKHealthStore()` of an app shares: the paired server (a ``HealthBridgeManager``) and the app's
/// container beside its credentials file — the anchors of its observers, the cached write authorization and the
/// saves whose answer has not come yet. Files are 0600 in a 0700 folder `HealthKitBridge/`, written atomically.
final class HealthKitConnection: Sendable {
    let manager: HealthBridgeManager
    let container: URL
    let logger: Logger
    /// The write status per type (server name), as last learned; read synchronously by `authorizationStatus(for:)`.
    let authorization: Mutex<[String: HKAuthorizationStatus]>
    /// The anchor per type (server name) up to which observers have delivered and been acknowledged.
    let anchors: Mutex<[String: String]>
    /// Background delivery per type (server name): the frequency asked.
    let background: Mutex<[String: HKUpdateFrequency]>
    /// The one flush of saves left from an earlier launch; queries wait for it.
    let recovery = Mutex<Task<Void, Never>?>(nil)
    /// The saves of this process still waiting for their answer (the recovery of an earlier launch leaves them).
    let inFlight = Mutex<Set<UUID>>([])
    /// When the authorization cache was last refreshed from the server.
    let authorizationRefreshed = Mutex<ContinuousClock.Instant?>(nil)

    init(manager: HealthBridgeManager, logger: Logger) {
        self.manager = manager
        self.logger = logger
        container = manager.credentialsFile.deletingLastPathComponent().appendingPathComponent("HealthKitBridge")
        authorization = Mutex(Self.read([String: Int].self, container.appendingPathComponent("authorization.json"))
            .compactMapValues(HKAuthorizationStatus.init(rawValue:)))
        anchors = Mutex(Self.read([String: String].self, container.appendingPathComponent("anchors.json")))
        background = Mutex(Self.read([String: Int].self, container.appendingPathComponent("background-delivery.json"))
            .compactMapValues(HKUpdateFrequency.init(rawValue:)))
    }

    var pendingDirectory: URL { container.appendingPathComponent("pending-saves") }

    static func read<T: Decodable & ExpressibleByDictionaryLiteral>(_ type: T.Type, _ url: URL) -> T {
        guard let data = try? Data(contentsOf: url), let value = try? JSONDecoder().decode(T.self, from: data) else {
            return [:]
        }
        return value
    }

    func write<T: Encodable>(_ value: T, _ name: String) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try PrivateFile.write(try encoder.encode(value), to: container.appendingPathComponent(name))
        } catch {
            logger.error("HealthKitBridge cannot write its state", metadata: ["file": "\(name)", "error": "\(error)"])
        }
    }

    // MARK: Anchors

    func anchor(for type: String) -> String? { anchors.withLock { $0[type] } }

    /// Keeps `anchor` as the point up to which `type`'s changes were delivered (never moves it back).
    func acknowledge(_ anchor: String, for type: String) {
        let snapshot: [String: String]? = anchors.withLock { anchors in
            if let old = anchors[type], let a = Int64(old), let b = Int64(anchor), b <= a { return nil }
            anchors[type] = anchor
            return anchors
        }
        if let snapshot { write(snapshot, "anchors.json") }
    }

    // MARK: Authorization cache

    func cachedStatus(_ type: String) -> HKAuthorizationStatus? { authorization.withLock { $0[type] } }

    func remember(_ statuses: [String: HKAuthorizationStatus]) {
        let snapshot = authorization.withLock { cache in
            cache.merge(statuses) { _, new in new }
            return cache.mapValues(\.rawValue)
        }
        authorizationRefreshed.withLock { $0 = .now }
        write(snapshot, "authorization.json")
    }

    // MARK: Calls

    func get<Result: Decodable & Sendable>(_ path: String, _ query: [(String, String)], as type: Result.Type) async throws(HKError) -> Result {
        do {
            return try await manager.get(path, query: query, as: type)
        } catch {
            throw HKError.from(error)
        }
    }

    func post<Body: Encodable & Sendable, Result: Decodable & Sendable>(_ path: String, _ body: Body,
                                                                      as type: Result.Type) async throws(HKError) -> Result {
        do {
            return try await manager.post(path, body: body, as: type)
        } catch {
            throw HKError.from(error)
        }
    }

    /// The change feed's anchor now (cheap: no history is read).
    func currentAnchor() async throws(HKError) -> String {
        do {
            return try await manager.changesAnchor()
        } catch {
            throw HKError.from(error)
        }
    }
}
