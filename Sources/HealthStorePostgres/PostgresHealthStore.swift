import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL ``HealthStore``: many people and several app servers on one database, with exactly the
/// semantics of ``SQLiteHealthStore`` (sync identifiers and versions, tombstones, gap-free anchors, priority order).
///
/// A pool of connections (postgres-nio's `PostgresClient`, run by a task the store owns) serves every call; every
/// table lives in the configured schema (each connection's `search_path`). Every write transaction first locks the
/// one change-counter row, so writers serialize there and anchors are gap-free and in commit order, as in SQLite;
/// readers are never blocked. Commits are announced with `NOTIFY <schema>_changes`, which every store on the schema
/// (this process or another) turns into ``changeNotifications()``.
///
/// When the database cannot be reached, every call throws ``HealthError`` `.storeUnavailable` within
/// ``PostgresStoreConfiguration/acquireTimeout`` and works again by itself once PostgreSQL is back.
///
/// ```swift
/// let configuration = try PostgresStoreConfiguration(url: "postgres://hb@127.0.0.1:5432/health")
/// let store = try await PostgresHealthStore(configuration: configuration, logger: logger)
/// try await store.save(samples)
/// await store.close()
/// ```
public final class PostgresHealthStore: BulkImportStore {
    public let configuration: PostgresStoreConfiguration
    let logger: Logger
    /// The pool and the task running it; replaced by a fresh pool after an outage (see ``recoverFromOutage()``).
    let pool: Mutex<(client: PostgresClient, runner: Task<Void, Never>?)>
    /// The task probing PostgreSQL after a call found it unavailable.
    let recovery = Mutex<Task<Void, Never>?>(nil)
    /// When a probe last found PostgreSQL up at its first try (the pool was only busy).
    let lastHealthyProbe = Mutex<ContinuousClock.Instant?>(nil)
    /// Set while the recovery probe's last attempt to connect failed: calls answer `.storeUnavailable` at once
    /// instead of each waiting out the acquire timeout against a database that is known to be away.
    let knownDown = SharedFlag()
    /// Set when the person's role may sign in (``PostgresStoreConfiguration/rolePassword``): the pool and the
    /// listener connect as the role itself, so no SQL can `RESET ROLE` its way to the administrating user. Unset for a
    /// `NOLOGIN` role an administrator made by hand: the connections then take the role with `SET ROLE`.
    let loginAsRole = SharedFlag()
    /// Answers the calls whose connection closes under them.
    let closeWatch = PostgresCloseWatch()
    var client: PostgresClient { pool.withLock { $0.client } }
    let closed = Mutex(false)
    /// Types, units and sources by database id, filled lazily; only committed ids enter it.
    let interned = Mutex(PostgresInternTable())
    let observers = Mutex(PostgresObserverTable())

    /// The owner's person id: the default of every `person_id` column until people arrive.
    public static let ownerPersonID = "00000000-0000-0000-0000-000000000000"
    static let ownerUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    /// This store's person (``PostgresStoreConfiguration/personUUID``): the `person_id` of every row it writes and
    /// the only one its row-level security lets through.
    let personUUID: UUID

    /// Connects, creates the schema if it is missing and runs the migrations.
    ///
    /// - Throws: ``HealthError`` `.storeUnavailable` when PostgreSQL cannot be reached within the acquire timeout or
    ///   the schema was written by a newer HealthBridge.
    public init(configuration: PostgresStoreConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        personUUID = UUID(uuidString: configuration.personUUID) ?? Self.ownerUUID
        // The pool starts once the migrations have provisioned the role it signs in as.
        pool = Mutex((PostgresClient(configuration: Self.clientConfiguration(configuration, login: false),
                                     backgroundLogger: logger), nil))
        do {
            if try await migrate() { loginAsRole.set() }
            let client = PostgresClient(configuration: Self.clientConfiguration(configuration, login: loginAsRole.isSet),
                                        backgroundLogger: logger)
            pool.withLock { $0 = (client, Task { await client.run() }) }
            // Where a change listener started later catches up from: a commit made between a subscription and its
            // LISTEN taking effect is announced then, not lost.
            let anchor = try await currentAnchor()
            observers.withLock { $0.highest = max($0.highest, anchor) }
        } catch {
            await close()
            throw error
        }
    }

    /// Ends the pool's connections and the change listener; safe to call twice.
    public func close() async {
        let alreadyClosed = closed.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        if alreadyClosed { return }
        let listener = observers.withLock { table -> Task<Void, Never>? in
            let task = table.listener
            table.listener = nil
            for continuation in table.continuations.values { continuation.finish() }
            table.continuations = [:]
            return task
        }
        listener?.cancel()
        recovery.withLock { $0?.cancel() }
        let task = pool.withLock { pool -> Task<Void, Never>? in
            defer { pool.runner = nil }
            return pool.runner
        }
        task?.cancel()
        // Bounded: a pool whose connection is stuck (a peer that stopped answering) must not hold its closer
        // forever; what is left is cancelled and ends on its own.
        for (name, ending) in [("connection pool", task), ("change listener", listener)] {
            guard let ending else { continue }
            if await !Self.wait(for: ending, atMost: Self.closeBound) {
                logger.warning("the PostgreSQL store's \(name) did not end within \(Self.closeBound); closing without it")
            }
        }
    }

    /// How long ``close()`` waits for the pool and the change listener to end.
    static let closeBound: Duration = .seconds(10)

    /// Waits for `task` to end, at most `limit`: `true` when it ended.
    static func wait(for task: Task<Void, Never>, atMost limit: Duration) async -> Bool {
        let ended = try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            let first = FirstResult(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                first.resume(.success(false))
            }
            Task {
                await task.value
                timer.cancel()
                first.resume(.success(true))
            }
        }
        return ended ?? false
    }

    deinit {
        pool.withLock { $0.runner?.cancel() }
        recovery.withLock { $0?.cancel() }
        observers.withLock { $0.listener?.cancel() }
    }

    /// Starts (once at a time) a probe of PostgreSQL after a call found it unavailable: once a connection of its own
    /// succeeds again after failing, the pool is replaced by a fresh one, so that the calls work at once instead of
    /// after the pool's own reconnection backoff (which grows to a minute during a long outage). A pool that was
    /// only busy (the probe connects at the first try) is left alone.
    ///
    /// - Parameter slowLease: the call only waits long for a lease (no failure yet). Under load a saturated pool
    ///   makes many such calls, so a probe for them runs at most once a second after one found the database up.
    func recoverFromOutage(slowLease: Bool = false) {
        if slowLease, let healthy = lastHealthyProbe.withLock({ $0 }), ContinuousClock.now - healthy < .seconds(1) {
            return
        }
        recovery.withLock { task in
            guard task == nil, !closed.withLock({ $0 }) else { return }
            task = Task { [weak self] in
                await self?.probeUntilBack()
                self?.recovery.withLock { $0 = nil }
            }
        }
    }

    private func probeUntilBack() async {
        var sawOutage = false
        while !Task.isCancelled, !closed.withLock({ $0 }) {
            do {
                let connection = try await Self.connect(configuration, login: loginAsRole.isSet, logger: logger)
                try? await connection.close()
                break
            } catch {
                sawOutage = true
                knownDown.set()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { knownDown.clear() }
        if !sawOutage { lastHealthyProbe.withLock { $0 = ContinuousClock.now } }
        guard sawOutage, !Task.isCancelled, !closed.withLock({ $0 }) else { return }
        let fresh = PostgresClient(configuration: Self.clientConfiguration(configuration, login: loginAsRole.isSet),
                                   backgroundLogger: logger)
        let old = pool.withLock { pool -> Task<Void, Never>? in
            guard pool.runner != nil else { return nil }  // closed meanwhile
            let old = pool.runner
            pool = (fresh, Task { await fresh.run() })
            return old
        }
        old?.cancel()
        logger.info("PostgreSQL is back; the store opened a fresh connection pool")
    }

    /// Drops the store's schema with everything in it, and its person's role
    /// (``PostgresStoreConfiguration/roleName``): tests, and `people remove` on PostgreSQL; `store copy` back to
    /// SQLite never does.
    ///
    /// ```swift
    /// try await PostgresHealthStore.dropSchema(configuration: configuration, logger: logger)
    /// ```
    public static func dropSchema(configuration: PostgresStoreConfiguration, logger: Logger) async throws {
        let connection = try await connectWithinTimeout(configuration, asRole: false, logger: logger)
        defer { Task { try? await connection.close() } }
        let role = configuration.roleName
        let application = applicationName(configuration)
        do {
            // The store's own sessions end first (a `serve` still running for this person): one of them inside a
            // transaction would hold the lock DROP SCHEMA waits for. And the wait for a lock is bounded.
            try await connection.query("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE application_name = \(application) AND pid <> pg_backend_pid()
                """, logger: logger)
            try await connection.query("SET lock_timeout = '20s'", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(configuration.schema) CASCADE"),
                                       logger: logger)
            let rows = try await connection.query("SELECT count(*) FROM pg_roles WHERE rolname = \(role)", logger: logger)
            var exists = false
            for try await count in rows.decode(Int64.self) { exists = count > 0 }
            if exists {
                // The role's remaining privileges (the database's TEMPORARY) go first; DROP ROLE refuses otherwise.
                try await connection.query(PostgresQuery(unsafeSQL: "DROP OWNED BY \(role)"), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"), logger: logger)
            }
        } catch {
            throw mapError(error)
        }
    }

    // MARK: Connections

    static func tls(_ mode: PostgresStoreConfiguration.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }

    /// `healthbridge <schema>`: what `pg_stat_activity` shows for the store's connections.
    public static func applicationName(_ configuration: PostgresStoreConfiguration) -> String {
        "healthbridge " + configuration.schema
    }

    static func clientConfiguration(_ configuration: PostgresStoreConfiguration, login: Bool) -> PostgresClient.Configuration {
        var result = PostgresClient.Configuration(host: configuration.host, port: configuration.port,
                                                  username: login ? configuration.roleName : configuration.username,
                                                  password: login ? configuration.rolePassword : configuration.password,
                                                  database: configuration.database, tls: tls(configuration.tls))
        result.options.connectTimeout = configuration.acquireTimeout
        result.options.maximumConnections = configuration.maximumConnections
        // Every pooled connection works as the person's role from its start: signed in as the role (`login`), else
        // taking it in the startup packet (`role`, as `PGOPTIONS='-c role=…'`). No extra round trip per call, and a
        // connection the pool reopens or reuses can never be found without it. Row-level security and the role's
        // privileges apply to all its work.
        result.options.additionalStartupParameters = [("search_path", configuration.schema),
                                                      ("application_name", applicationName(configuration)),
                                                      // A transaction left open (its caller gone) is ended by the
                                                      // server instead of holding its locks for good.
                                                      ("idle_in_transaction_session_timeout", "60s")]
        if !login { result.options.additionalStartupParameters.append(("role", configuration.roleName)) }
        result.options.keepAliveBehavior = .init(frequency: .seconds(15))
        return result
    }

    /// A connection of its own (the change listener, the migrations, ``dropSchema(configuration:logger:)``), within
    /// the acquire timeout: as the person's role (`asRole`), else as the connecting (administrating) user.
    static func connect(_ configuration: PostgresStoreConfiguration, asRole: Bool = true, login: Bool = false,
                        logger: Logger) async throws -> PostgresConnection {
        let signIn = asRole && login
        let tlsMode: PostgresConnection.Configuration.TLS
        switch configuration.tls {
        case .disable: tlsMode = .disable
        case .prefer, .require:
            do {
                let context = try NIOSSLContext(configuration: .makeClientConfiguration())
                tlsMode = configuration.tls == .prefer ? .prefer(context) : .require(context)
            } catch {
                throw HealthError(.storeUnavailable, "cannot set up TLS for PostgreSQL")
            }
        }
        var connectionConfiguration = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port,
            username: signIn ? configuration.roleName : configuration.username,
            password: signIn ? configuration.rolePassword : configuration.password,
            database: configuration.database, tls: tlsMode)
        let seconds = configuration.acquireTimeout.components.seconds
        connectionConfiguration.options.connectTimeout = .seconds(max(1, seconds))
        connectionConfiguration.options.additionalStartupParameters = [("search_path", configuration.schema),
                                                                       ("application_name", applicationName(configuration))]
        if asRole && !signIn {
            connectionConfiguration.options.additionalStartupParameters.append(("role", configuration.roleName))
        }
        do {
            return try await PostgresConnection.connect(configuration: connectionConfiguration,
                                                        id: Int.random(in: 1...Int(Int32.max)), logger: logger)
        } catch {
            throw mapError(error)
        }
    }

    /// ``connect(_:asRole:logger:)`` bounded by the acquire timeout from the caller's side, as
    /// ``withConnection(_:)`` is: the deadline is a task's sleep, not the event loop's timer, so a caller is answered
    /// (`.storeUnavailable`) in time even when the event loops are slow to report. A connection that arrives after
    /// the deadline is closed.
    static func connectWithinTimeout(_ configuration: PostgresStoreConfiguration, asRole: Bool,
                                     logger: Logger) async throws -> PostgresConnection {
        let timeout = configuration.acquireTimeout
        let attempt = Task { try await connect(configuration, asRole: asRole, logger: logger) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresConnection, any Error>) in
            let first = FirstResult(continuation)
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                first.resume(.failure(HealthError(
                    .storeUnavailable, "PostgreSQL did not answer within \(timeout); try again when the database is back")))
                if let late = try? await attempt.value { try? await late.close() }
            }
            Task {
                let result = await attempt.result
                timer.cancel()
                first.resume(result)
            }
        }
    }

    /// Runs `body` on a pooled connection. Acquiring it fails with `.storeUnavailable` after the acquire timeout
    /// instead of waiting for PostgreSQL to come back; every database error is mapped to a ``HealthError``.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        if closed.withLock({ $0 }) {
            throw HealthError(.storeUnavailable, "the PostgreSQL store is closed")
        }
        if knownDown.isSet {
            recoverFromOutage()
            throw HealthError(.storeUnavailable,
                              "PostgreSQL cannot be reached (the last attempt to connect failed); try again when the database is back")
        }
        let acquired = SharedFlag()
        let timeout = configuration.acquireTimeout
        let client = self.client
        // The work runs in a task of its own and the caller waits for whichever comes first, the work or the acquire
        // timeout: a task group would wait for its cancelled child, and the pool may not give up a lease request
        // (its reconnection backoff grows to 60 s) when asked to, so the caller would hang with it.
        // And once it has its connection, the caller is answered when that connection closes under the call
        // (``PostgresCloseWatch``).
        let closing = CloseAction()
        let watch = closeWatch
        let work = Task<T, any Error> {
            try await client.withConnection { connection in
                acquired.set()
                return try await watch.during(connection, onClose: { closing.fire() }) {
                    try await body(connection)
                }
            }
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                    let first = FirstResult(continuation)
                    closing.set {
                        work.cancel()
                        first.resume(.failure(HealthError(
                            .storeUnavailable, "the connection to PostgreSQL closed during the call; try again when the database is back")))
                    }
                    let timer = Task { [weak self] in
                        // A lease that does not come at once starts the probe (a busy pool: it connects and stops; a
                        // database away: it finds that out in milliseconds), and a call still waiting when the probe
                        // has found the database away is answered then, not at the end of the acquire timeout.
                        let deadline = ContinuousClock.now + timeout
                        var waited = Duration.zero
                        while ContinuousClock.now < deadline {
                            try? await Task.sleep(for: .milliseconds(50))
                            waited += .milliseconds(50)
                            guard !Task.isCancelled, !acquired.isSet else { return }
                            if waited == .milliseconds(200) { self?.recoverFromOutage(slowLease: true) }
                            if self?.knownDown.isSet == true { break }
                        }
                        guard !Task.isCancelled, !acquired.isSet else { return }
                        work.cancel()
                        first.resume(.failure(HealthError(
                            .storeUnavailable, "PostgreSQL did not answer within \(timeout); try again when the database is back",
                            hint: nil)))
                    }
                    Task {
                        let result = await work.result
                        timer.cancel()
                        first.resume(result)
                    }
                }
            } onCancel: {
                work.cancel()
            }
        } catch {
            let mapped = Self.mapError(error)
            if (mapped as? HealthError)?.code == .storeUnavailable { recoverFromOutage() }
            throw mapped
        }
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`, `ROLLBACK` when it throws). Writes take the change
    /// counter's row lock first (see ``lockSequence(_:)``).
    func transaction<T: Sendable>(readOnly: Bool = false,
                                  _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN",
                                       logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                // In a task of its own: a cancelled caller's ROLLBACK must still reach the server, or the connection
                // would go back to the pool inside the transaction, holding its locks.
                _ = await Task { try await connection.query("ROLLBACK", logger: logger) }.result
                throw error
            }
        }
    }

    /// A write transaction: the intern entries it made reach the shared cache only once it has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, WriteContext) async throws -> T) async throws -> T {
        let context = WriteContext()
        let value = try await transaction { connection in try await body(connection, context) }
        interned.withLock { $0.merge(context.pending.withLock { $0 }) }
        return value
    }

    // MARK: Errors

    /// Maps a database or pool error to the one error vocabulary, never with SQL text or values.
    static func mapError(_ error: any Error) -> any Error {
        if let error = error as? HealthError { return error }
        if error is CancellationError { return error }
        if let transactionError = error as? PostgresTransactionError {
            if let inner = transactionError.closureError { return mapError(inner) }
            if let inner = transactionError.commitError { return mapError(inner) }
            if let inner = transactionError.beginError { return mapError(inner) }
        }
        guard let error = error as? PSQLError else {
            return HealthError(.storeUnavailable, "PostgreSQL cannot be reached (\(type(of: error)))")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            switch state {
            case "23505":
                return HealthError(.conflict, "the object is already stored (a unique key of the PostgreSQL store)")
            case _ where state.hasPrefix("23"):
                return HealthError(.invalidArgument, "the PostgreSQL store refused a value (constraint \(state))")
            case _ where state.hasPrefix("22"):
                return HealthError(.invalidArgument, "the PostgreSQL store refused a value (data exception \(state))")
            case "40001", "40P01":
                return HealthError(.storeUnavailable, "the PostgreSQL store was busy (\(state)); try again")
            case _ where state.hasPrefix("08") || state.hasPrefix("57") || state.hasPrefix("53"):
                return HealthError(.storeUnavailable, "PostgreSQL is unavailable (\(state)); try again when it is back")
            case "3F000", "42P01":
                return HealthError(.storeUnavailable, "the PostgreSQL store's schema is missing (\(state))")
            case "28000", "28P01":
                return HealthError(.storeUnavailable, "PostgreSQL refused the store's credentials (\(state))")
            case "42501":
                return HealthError(.storeUnavailable,
                                   "the PostgreSQL store's role may not do this (permission denied, 42501)")
            case "42704" where (error.serverInfo?[.message] ?? "").contains("role"):
                return HealthError(.storeUnavailable,
                                   "the PostgreSQL store's role is missing (42704); open the store as its administrator to create it")
            default:
                return HealthError(.internalError, "the PostgreSQL store failed (SQLSTATE \(state))")
            }
        case .tooManyParameters:
            return HealthError(.invalidArgument, "too many values in one PostgreSQL statement")
        case .queryCancelled:
            return CancellationError()
        default:
            return HealthError(.storeUnavailable, "PostgreSQL cannot be reached (\(error.code)); try again when it is back")
        }
    }
}

/// What one write transaction interned: merged into the shared table after the commit, dropped on a rollback.
final class WriteContext: Sendable {
    let pending = Mutex(PostgresInternTable())
}

/// Whether a call has its connection yet (read by the call's timeout).
/// A continuation resumed once, by whichever of its racers comes first; the others are ignored.
final class FirstResult<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>
    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }
    func resume(_ result: Result<T, any Error>) {
        continuation.withLock { pending in
            pending?.resume(with: result)
            pending = nil
        }
    }
}

/// A flag set and read across tasks (a lease acquired; the database known to be down).
final class SharedFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    func clear() { value.store(false, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
