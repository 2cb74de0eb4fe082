import Foundation
import HealthModel
import HealthStore
import HealthStorePostgres
import Logging
import Synchronization

/// A kind of ``HealthStore`` the conformance tests run on: one test, every store, the same assertions.
///
/// ```swift
/// @Test(arguments: TestStores.kinds)
/// func savingTwiceStoresOnce(kind: TestStoreKind) async throws {
///     try await TestStores.withStore(kind) { store in … }
/// }
/// ```
public enum TestStoreKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The embedded store (in memory, or a file for tests that open it twice). Always tested.
    case sqlite
    /// The PostgreSQL store, each test in a schema of its own, on the cluster `HEALTHBRIDGE_POSTGRES_URL` names.
    case postgres

    public var description: String { rawValue }
}

/// The stores under test and a fresh store per test.
///
/// `.sqlite` is always a kind. `.postgres` is one when `HEALTHBRIDGE_POSTGRES_URL` is set
/// (`postgres://user@127.0.0.1:54329/db`), and also when `HEALTHBRIDGE_REQUIRE_POSTGRES=1` without it: CI asks for
/// PostgreSQL, so a missing URL fails every PostgreSQL case (``withStore(_:_:)`` throws) instead of skipping them.
/// Each PostgreSQL store lives in a new schema `t_<random>` of that database, dropped when the test ends, also when
/// it throws.
///
/// ```swift
/// try await TestStores.withStore(.postgres) { store in
///     try await store.save([sample])
/// }
/// try await TestStores.withPlace(.sqlite) { place in
///     let server = try await place.open(), importer = try await place.open()   // two "processes", one store
/// }
/// ```
public enum TestStores {
    /// The PostgreSQL cluster the tests may use (any `schema=` in it is replaced per test).
    public static let urlVariable = "HEALTHBRIDGE_POSTGRES_URL"
    /// `1`: the PostgreSQL cases must run (CI); without a URL they fail.
    public static let requireVariable = "HEALTHBRIDGE_REQUIRE_POSTGRES"

    /// The URL of the PostgreSQL cluster, nil when none is configured.
    public static var postgresURL: String? {
        guard let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty else { return nil }
        return url
    }

    /// Whether PostgreSQL is required (`HEALTHBRIDGE_REQUIRE_POSTGRES=1`).
    public static var postgresRequired: Bool {
        ProcessInfo.processInfo.environment[requireVariable] == "1"
    }

    /// The kinds to test: SQLite always, PostgreSQL when configured or required.
    public static var kinds: [TestStoreKind] {
        postgresURL != nil || postgresRequired ? [.sqlite, .postgres] : [.sqlite]
    }

    /// A quiet logger for test stores (warnings and errors only).
    public static var logger: Logger {
        var logger = Logger(label: "healthbridge.test-store")
        logger.logLevel = .warning
        return logger
    }

    /// The configuration of a new, unused schema `t_<32 hex digits>` on the configured cluster.
    ///
    /// - Throws: ``HealthError`` `.storeUnavailable` when `HEALTHBRIDGE_POSTGRES_URL` is not set, `.invalidArgument`
    ///   when it is not a PostgreSQL URL.
    public static func freshPostgresConfiguration() throws -> PostgresStoreConfiguration {
        guard let url = postgresURL else {
            throw HealthError(.storeUnavailable,
                              "a PostgreSQL test needs \(urlVariable) (IntegrationTests/postgres.sh starts a cluster); "
                                  + (postgresRequired ? "\(requireVariable)=1 makes it required" : "it is not set"))
        }
        var configuration = try PostgresStoreConfiguration(url: url)
        configuration.schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return configuration
    }

    /// Runs `body` with a fresh, empty store of `kind` (SQLite: in memory; PostgreSQL: a new schema), then closes it
    /// and removes what it stored, whether `body` returns or throws.
    ///
    /// A body whose only `try`s are inside `#expect` must say `{ store throws in … }`: the compiler does not see
    /// the `try`s inside the macro when it decides whether the closure throws.
    public static func withStore(_ kind: TestStoreKind, _ body: (any HealthStore) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            try await body(try SQLiteHealthStore.inMemory(logger: logger))
        case .postgres:
            try await withPlace(kind) { place in try await body(try await place.open()) }
        }
    }

    /// Runs `body` with a fresh place for stores of `kind` that ``TestStorePlace/open()`` opens as often as a test
    /// needs (another process on the same store, a reopening), then closes every store opened there and removes the
    /// place (SQLite: a temporary directory; PostgreSQL: the schema), whether `body` returns or throws.
    public static func withPlace(_ kind: TestStoreKind, _ body: (TestStorePlace) async throws -> Void) async throws {
        let place = try TestStorePlace(kind)
        do {
            try await body(place)
        } catch {
            await place.remove()
            throw error
        }
        try await place.removeChecked()
    }
}

/// Where the stores of one test live: a SQLite file in a temporary directory, or a PostgreSQL schema. Every
/// ``open()`` gives a new store instance on the same data, as a second process would have.
public final class TestStorePlace: Sendable {
    public let kind: TestStoreKind
    /// The SQLite file (`health.sqlite` in a temporary 0700 directory); nil for PostgreSQL.
    public let sqliteFile: URL?
    /// The PostgreSQL configuration with this test's schema; nil for SQLite.
    public let postgres: PostgresStoreConfiguration?
    private let directory: TemporaryHome?
    private let opened = Mutex<[PostgresHealthStore]>([])

    init(_ kind: TestStoreKind) throws {
        self.kind = kind
        switch kind {
        case .sqlite:
            let home = try TemporaryHome("store")
            directory = home
            sqliteFile = home.appending("health.sqlite")
            postgres = nil
        case .postgres:
            directory = nil
            sqliteFile = nil
            postgres = try TestStores.freshPostgresConfiguration()
        }
    }

    /// Opens a new store instance on this place's data (creating the store the first time).
    public func open() async throws -> any HealthStore {
        if let sqliteFile {
            return try SQLiteHealthStore(location: .file(sqliteFile), logger: TestStores.logger)
        }
        guard let postgres else { throw HealthError(.internalError, "a test store place without a store") }
        let store = try await PostgresHealthStore(configuration: postgres, logger: TestStores.logger)
        opened.withLock { $0.append(store) }
        return store
    }

    /// Closes what was opened and removes the data, reporting a failure to drop the schema.
    func removeChecked() async throws {
        await closeAll()
        directory?.remove()
        if let postgres {
            try await PostgresHealthStore.dropSchema(configuration: postgres, logger: TestStores.logger)
        }
    }

    /// Closes and removes on the error path: the body's error is the one reported.
    func remove() async {
        try? await removeChecked()
    }

    private func closeAll() async {
        let stores = opened.withLock { stores in
            defer { stores.removeAll() }
            return stores
        }
        for store in stores { await store.close() }
    }
}
