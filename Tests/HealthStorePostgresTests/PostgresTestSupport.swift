import Foundation
import HealthBridgeTesting
import HealthModel
import HealthStore
import HealthStorePostgres
import Logging
import PostgresNIO
import Synchronization
import Testing

/// Whether the PostgreSQL suites run: when `HEALTHBRIDGE_POSTGRES_URL` is set, or when
/// `HEALTHBRIDGE_REQUIRE_POSTGRES=1` demands it (then a missing URL fails every test instead of skipping it).
enum PostgresTesting {
    static var enabled: Bool { TestStores.postgresURL != nil || TestStores.postgresRequired }

    static var logger: Logger { TestStores.logger }

    /// Runs `body` with the configuration of a new schema, dropped afterwards (also when `body` throws).
    static func withSchema<T>(_ body: (PostgresStoreConfiguration) async throws -> T) async throws -> T {
        let configuration: PostgresStoreConfiguration
        do {
            configuration = try TestStores.freshPostgresConfiguration()
        } catch {
            Issue.record("HEALTHBRIDGE_REQUIRE_POSTGRES=1 but no HEALTHBRIDGE_POSTGRES_URL: \(error)")
            throw error
        }
        do {
            let result = try await body(configuration)
            try await PostgresHealthStore.dropSchema(configuration: configuration, logger: logger)
            return result
        } catch {
            try? await PostgresHealthStore.dropSchema(configuration: configuration, logger: logger)
            throw error
        }
    }

    /// Runs `body` with a store on a new schema, closed and dropped afterwards.
    static func withStore<T>(_ body: (PostgresHealthStore, PostgresStoreConfiguration) async throws -> T) async throws -> T {
        try await withSchema { configuration in
            let store = try await PostgresHealthStore(configuration: configuration, logger: logger)
            do {
                let result = try await body(store, configuration)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    /// Runs one SQL statement on a connection of its own (the test's "administrator").
    static func admin(_ configuration: PostgresStoreConfiguration, _ sql: String) async throws -> [String] {
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(host: configuration.host, port: configuration.port,
                                                            username: configuration.username,
                                                            password: configuration.password,
                                                            database: configuration.database, tls: .disable),
            id: 1, logger: logger)
        var values: [String] = []
        do {
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                values.append((try? row.decode(String.self)) ?? "")
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return values
    }

    /// Ends every connection of the store on `configuration`'s schema (as a database restart would).
    @discardableResult
    static func terminateConnections(_ configuration: PostgresStoreConfiguration) async throws -> Int {
        let name = PostgresHealthStore.applicationName(configuration)
        return try await admin(configuration, """
            SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name = '\(name)'
            """).count
    }
}

let pgT0 = Date(timeIntervalSince1970: 1_714_521_600)
let pgPhone = HealthSource(name: "Alex’s iPhone",
                           device: HealthDevice(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone"))
let pgWatch = HealthSource(name: "Alex’s Apple Watch",
                           device: HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch"))

/// A step sample `seconds` after `pgT0`, one minute long.
func pgSteps(_ seconds: Double, _ value: Double, source: HealthSource = pgPhone,
             metadata: [String: String] = [:]) -> HealthSample {
    HealthSample(type: "stepCount", start: pgT0.addingTimeInterval(seconds), end: pgT0.addingTimeInterval(seconds + 60),
                 value: .quantity(value, unit: "count"), source: source, metadata: metadata)
}

/// Records what a change stream emits, from one task that iterates it for the recorder's life (cancelling the
/// iterating task would end the stream).
final class NotificationRecorder: Sendable {
    private final class Received: Sendable {
        let items = Mutex<[ChangeNotification]>([])
    }
    private let box = Received()
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncStream<ChangeNotification>) {
        let box = self.box
        task.withLock { $0 = Task { for await notification in stream { box.items.withLock { $0.append(notification) } } } }
    }

    /// The first notification naming `type` after the first `skipping` ones, waiting at most `seconds`.
    func next(naming type: String, after skipping: Int = 0, anchor: Int64? = nil,
              within seconds: Double) async -> ChangeNotification? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if let found = box.items.withLock({ $0.dropFirst(skipping).first { $0.types.contains(type) && (anchor == nil || $0.anchor == anchor) } }) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    var count: Int { box.items.withLock { $0.count } }

    func stop() { task.withLock { $0?.cancel() } }
}
