import Foundation
import HealthAPI
import HealthBridgeKit
import HealthModel
import Logging
import Synchronization

/// Whether the app may write a type (HealthKit's `HKAuthorizationStatus`). As in HealthKit, an app never learns
/// whether it may read a type: a read it was not granted looks like no data.
public enum HKAuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case sharingDenied = 1
    case sharingAuthorized = 2
}

/// How often background delivery wakes the app (HealthKit's `HKUpdateFrequency`).
public enum HKUpdateFrequency: Int, Sendable {
    case immediate = 1
    case hourly = 2
    case daily = 3
    case weekly = 4

    var interval: Duration? {
        switch self {
        case .immediate: nil
        case .hourly: .seconds(3_600)
        case .daily: .seconds(86_400)
        case .weekly: .seconds(604_800)
        }
    }
}

/// The access point to the person's health data: HealthKit's `HKHealthStore`, answered by a paired HealthBridge
/// server. Configure the connection once at launch; every `HKHealthStore()` then uses it.
///
/// ```swift
/// let manager = try HealthBridgeManager(appId: "com.example.diet", credentialsFile: support.appendingPathComponent("healthbridge.json"))
/// HKHealthStore.configure(manager)
/// let store = HKHealthStore()
/// try await store.requestAuthorization(toShare: [HKQuantityType(.dietaryWater)], read: [HKQuantityType(.bodyMass)])
/// ```
public final class HKHealthStore: Sendable {
    static let configured = Mutex<HealthKitConnection?>(nil)
    static let defaultSourceName = "HealthBridgeKit app"
    let explicit: HealthKitConnection?

    /// Connects every `HKHealthStore()` of the app to a paired server; call it at launch, before the first query.
    /// Logs (never a health value) go to `logger`.
    ///
    /// ```swift
    /// HKHealthStore.configure(try HealthBridgeManager(appId: "com.example.diet", credentialsFile: credentials))
    /// ```
    public static func configure(_ manager: HealthBridgeManager, logger: Logger = HealthBridgeManager.silentLogger) {
        let connection = HealthKitConnection(manager: manager, logger: logger)
        configured.withLock { $0 = connection }
    }

    /// Whether health data can be reached: a connection is configured and paired.
    ///
    /// ```swift
    /// guard HKHealthStore.isHealthDataAvailable() else { return }
    /// ```
    public static func isHealthDataAvailable() -> Bool {
        configured.withLock { $0 }?.manager.isAvailable ?? false
    }

    /// A store on the connection of ``configure(_:logger:)``.
    public init() { explicit = nil }

    /// A store on a connection of its own.
    public init(manager: HealthBridgeManager, logger: Logger = HealthBridgeManager.silentLogger) {
        explicit = HealthKitConnection(manager: manager, logger: logger)
    }

    /// The connection, or HealthKit's "health data unavailable".
    func connection() throws(HKError) -> HealthKitConnection {
        guard let connection = explicit ?? Self.configured.withLock({ $0 }), connection.manager.isAvailable else {
            throw HKError(.errorHealthDataUnavailable,
                          "HealthBridge is not paired: pair the app, then call HKHealthStore.configure(_:) at launch")
        }
        return connection
    }

    /// Runs a query; its handler is called on a background task (HealthKit's `execute(_:)`).
    ///
    /// ```swift
    /// store.execute(HKSampleQuery(sampleType: HKQuantityType(.bodyMass), predicate: nil, limit: 1, sortDescriptors: nil) { _, samples, _ in … })
    /// ```
    public func execute(_ query: HKQuery) {
        let connection: HealthKitConnection
        do {
            connection = try self.connection()
        } catch {
            query.start { _ in throw error }
            return
        }
        query.start { query in
            await connection.recoverPendingSaves()
            try await query.run(on: connection)
        }
    }

    /// Stops a long-running query (an observer, an anchored query with an update handler, a statistics collection
    /// with an update handler); its handlers are not called again.
    public func stop(_ query: HKQuery) { query.cancel() }

    /// The earliest date a sample may carry (HealthKit's `earliestPermittedSampleDate()`).
    public func earliestPermittedSampleDate() -> Date { Date(timeIntervalSince1970: ISO8601.earliestWritable) }
}
