import Foundation
import HealthBridgeTesting
import HealthModel
import HealthStore
import HealthStorePostgres
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What only the PostgreSQL store has: migrations, LISTEN/NOTIFY between store objects, the database going away,
/// COPY. The semantics both stores share are the conformance suite's (Tests/HealthStoreTests).
@Suite(.enabled(if: PostgresTesting.enabled, "needs HEALTHBRIDGE_POSTGRES_URL"))
struct PostgresHealthStoreTests {
    // MARK: Migrations

    @Test func migrationsRunOnceAndReopeningChangesNothing() async throws {
        try await PostgresTesting.withSchema { configuration in
            let first = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            #expect(try await first.appliedMigrations() == [1, 2, 3])
            try await first.save([pgSteps(0, 10)])
            await first.close()
            await first.close()  // twice is fine
            let again = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            #expect(try await again.appliedMigrations() == [1, 2, 3])
            #expect(try await again.samples(SampleQuery(type: "stepCount")).samples.count == 1)
            #expect(try await again.currentAnchor() == 1)
            await again.close()
        }
    }

    @Test func concurrentStartsMigrateOnce() async throws {
        try await PostgresTesting.withSchema { configuration in
            let stores = try await withThrowingTaskGroup(of: PostgresHealthStore.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger) }
                }
                var stores: [PostgresHealthStore] = []
                for try await store in group { stores.append(store) }
                return stores
            }
            let rows = try await PostgresTesting.admin(configuration,
                                                       "SELECT version::text FROM \(configuration.schema).schema_migrations ORDER BY version")
            #expect(rows == ["1", "2", "3"])
            try await stores[0].save([pgSteps(0, 5)])
            for store in stores {
                #expect(try await store.samples(SampleQuery(type: "stepCount")).samples.map(\.value.quantity) == [5])
                await store.close()
            }
        }
    }

    @Test func closedStoreRefusesCalls() async throws {
        try await PostgresTesting.withStore { store, _ in
            await store.close()
            await #expect(throws: HealthError.self) { try await store.currentAnchor() }
        }
    }

    // MARK: Notifications

    @Test func commitsOfAnotherStoreObjectAreAnnounced() async throws {
        try await PostgresTesting.withSchema { configuration in
            let listener = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            let writer = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            defer { Task { await listener.close(); await writer.close() } }
            let recorder = NotificationRecorder(listener.changeNotifications())
            defer { recorder.stop() }
            // The listener connects in the background: write until it hears one (each write is a new commit).
            var heard: ChangeNotification?
            var lastAnchor: Int64 = 0
            for attempt in 0..<20 where heard == nil {
                lastAnchor = try await writer.commit(StoreTransaction(samples: [pgSteps(Double(attempt) * 60, 1)])).anchor
                heard = await recorder.next(naming: "stepCount", within: 0.5)
            }
            let notification = try #require(heard)
            #expect(notification.types == ["stepCount"])
            #expect(notification.anchor <= lastAnchor)
            // Its own commits too, and deletions.
            let own = try #require(try await listener.samples(SampleQuery(type: "stepCount", limit: 1)).samples.first)
            let before = recorder.count
            let deleted = try await listener.delete(uuids: [own.uuid])
            #expect(deleted == 1)
            let anchor = try await listener.currentAnchor()
            let deletion = await recorder.next(naming: "stepCount", after: before, anchor: anchor, within: 5)
            #expect(deletion != nil)
        }
    }

    // MARK: The database going away

    @Test func unreachableDatabaseIsUnavailableWithinTheTimeout() async throws {
        // A port where nothing listens: refused at once.
        var refused = try PostgresStoreConfiguration(url: "postgres://healthbridge@127.0.0.1:9/healthbridge?schema=t_none")
        refused.acquireTimeout = .seconds(2)
        let start = ContinuousClock.now
        do {
            _ = try await PostgresHealthStore(configuration: refused, logger: PostgresTesting.logger)
            Issue.record("a store opened on a closed port")
        } catch let error as HealthError {
            #expect(error.code == .storeUnavailable)
        }
        #expect(ContinuousClock.now - start < Self.unavailableBound)
    }

    /// What the two tests above guard against is a caller left waiting on postgres-nio's own reconnection backoff
    /// (it grows to 60 s) or forever. Alone they answer in 0.01 s and 2 s; in the whole suite on two cores the
    /// cooperative pool is shared with every other suite (processes, sockets), and their answers came after up to
    /// 16 s of waiting for a thread: the bound is set below the backoff's 60 s, above that.
    static let unavailableBound: Duration = .seconds(30)

    @Test func silentServerIsUnavailableWithinTheTimeout() async throws {
        // A socket that accepts connections into its backlog and never answers: the TCP connect succeeds, the
        // startup never completes; the acquire timeout answers for it.
        let listener = try SilentListener()
        defer { listener.close() }
        var silent = try PostgresStoreConfiguration(
            url: "postgres://healthbridge@127.0.0.1:\(listener.port)/healthbridge?schema=t_none")
        silent.acquireTimeout = .seconds(2)
        let start = ContinuousClock.now
        do {
            _ = try await PostgresHealthStore(configuration: silent, logger: PostgresTesting.logger)
            Issue.record("a store opened on a silent server")
        } catch let error as HealthError {
            #expect(error.code == .storeUnavailable)
        }
        #expect(ContinuousClock.now - start < Self.unavailableBound)
    }

    @Test func storeReconnectsAfterItsConnectionsAreTerminated() async throws {
        try await PostgresTesting.withStore { store, configuration in
            try await store.save([pgSteps(0, 1)])
            let recorder = NotificationRecorder(store.changeNotifications())
            defer { recorder.stop() }
            try await Task.sleep(for: .milliseconds(300))
            let ended = try await PostgresTesting.terminateConnections(configuration)
            #expect(ended >= 1)
            // Calls fail at most briefly (storeUnavailable, never another error), then work again by themselves.
            var answered = false
            let deadline = ContinuousClock.now + .seconds(10)
            while !answered, ContinuousClock.now < deadline {
                do {
                    #expect(try await store.samples(SampleQuery(type: "stepCount")).samples.count == 1)
                    answered = true
                } catch let error as HealthError {
                    #expect(error.code == .storeUnavailable)
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(answered)
            // The listener came back too: another store object's commit is heard.
            let writer = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            let before = recorder.count
            var heard: ChangeNotification?
            for attempt in 1..<30 where heard == nil {
                try await writer.save([pgSteps(Double(attempt) * 60, 1)])
                heard = await recorder.next(naming: "stepCount", after: before, within: 0.5)
            }
            #expect(heard != nil)
            await writer.close()
        }
    }

    @Test func aDatabaseThatGoesAwayIsUnavailableAtOnceAndBackByItself() async throws {
        try await PostgresTesting.withSchema { direct in
            let proxy = try CuttableProxy(upstreamPort: direct.port)
            var configuration = direct
            configuration.port = proxy.port
            configuration.acquireTimeout = .seconds(2)
            let store = try await PostgresHealthStore(configuration: configuration, logger: PostgresTesting.logger)
            let acknowledged = try await store.save([pgSteps(0, 42)])
            #expect(acknowledged.inserted == 1)

            proxy.cut()
            // Down for three seconds: every call answers storeUnavailable within the bound, none hangs; once the
            // store has found the database away (the first refusal), the next calls are refused at once.
            let downUntil = ContinuousClock.now + .seconds(3)
            var refusals: [Duration] = []
            while ContinuousClock.now < downUntil {
                let start = ContinuousClock.now
                do {
                    _ = try await store.samples(SampleQuery(type: "stepCount"))
                    Issue.record("a call succeeded while the database was away")
                } catch let error as HealthError {
                    #expect(error.code == .storeUnavailable)
                    refusals.append(ContinuousClock.now - start)
                }
                #expect(ContinuousClock.now - start < .seconds(4))
            }
            #expect(refusals.count >= 3, "refused in \(refusals)")
            #expect(refusals.dropFirst(2).allSatisfy { $0 < .seconds(1) }, "refused in \(refusals)")

            try proxy.restore()
            let backBy = ContinuousClock.now + .seconds(5)
            var stored: [HealthSample]?
            while stored == nil, ContinuousClock.now < backBy {
                stored = try? await store.samples(SampleQuery(type: "stepCount")).samples
                if stored == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            // Back by itself, and the acknowledged write is there.
            #expect(stored?.map(\.value.quantity) == [42])
            await store.close()
            proxy.cut()
        }
    }

    // MARK: COPY

    @Test func copyImportKeepsEveryByteAndTheFirstOfEachUUID() async throws {
        try await PostgresTesting.withStore { store, _ in
            // Text COPY must escape: tabs, newlines, backslashes, carriage returns, quotes, non-ASCII.
            let awkward = "tab\tnewline\nback\\slash\rcr \"quoted\" ünï ✓ \\N"
            var samples: [HealthSample] = []
            for index in 0..<5_000 {
                samples.append(pgSteps(Double(index) * 60, Double(index) + 0.1,
                                       source: index % 2 == 0 ? pgPhone : pgWatch,
                                       metadata: index % 7 == 0 ? ["note": awkward, "HKTimeZone": "Europe/Paris"] : [:]))
            }
            var duplicate = samples[10]
            duplicate.value = .quantity(999, unit: "count")  // same UUID: ignored, the first one stays
            let result = try await store.save(SampleBatch(samples + [duplicate]))
            #expect(result == SaveResult(inserted: 5_000, replaced: 0, ignored: 1))
            #expect(try await store.currentAnchor() == 5_000)
            let stored = try await store.samples(SampleQuery(type: "stepCount")).samples
            #expect(stored == samples)
            #expect(stored.first { $0.metadata["note"] != nil }?.metadata["note"] == awkward)
            // Saving the same again adds nothing and leaves the anchor.
            let again = try await store.save(SampleBatch(samples))
            #expect(again == SaveResult(inserted: 0, replaced: 0, ignored: 5_000))
            #expect(try await store.currentAnchor() == 5_000)
            // Change numbers follow the batch order.
            let changes = try await store.changes(since: 0, types: nil, limit: 3)
            #expect(changes.added.map(\.uuid) == samples.prefix(3).map(\.uuid))
            #expect(changes.hasMore)
        }
    }

    @Test func scanStreamsRowsInStartOrderWithUnitsConverted() async throws {
        try await PostgresTesting.withStore { store, _ in
            let grams = HealthSample(type: "bodyMass", start: pgT0, end: pgT0, value: .quantity(70_500, unit: "g"),
                                     source: pgPhone)
            let kilos = HealthSample(type: "bodyMass", start: pgT0.addingTimeInterval(-3_600),
                                     end: pgT0.addingTimeInterval(-3_600), value: .quantity(71, unit: "kg"),
                                     source: pgWatch)
            try await store.save([grams, kilos])
            var rows: [ScanRow] = []
            try await store.scan(ScanRequest(type: "bodyMass", start: pgT0.addingTimeInterval(-86_400),
                                             end: pgT0.addingTimeInterval(86_400), unit: "kg")) { rows.append($0) }
            #expect(rows.count == 2)
            #expect(zip(rows.map(\.value), [71, 70.5]).allSatisfy { abs($0 - $1) < 1e-9 })
            #expect(rows.map(\.start) == [pgT0.timeIntervalSince1970 - 3_600, pgT0.timeIntervalSince1970])
        }
    }
}

/// A loopback TCP socket that listens and never accepts: connections sit in its backlog unanswered.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HealthError(.internalError, "no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { Glibc.close(fd); throw HealthError(.internalError, "no listener") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        #else
        throw HealthError(.internalError, "SilentListener needs Glibc")
        #endif
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #endif
    }
}
