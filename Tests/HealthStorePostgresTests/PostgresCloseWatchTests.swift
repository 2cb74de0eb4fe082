import Foundation
import HealthModel
@testable import HealthStorePostgres
import PostgresNIO
import Testing

/// A call whose connection closes under it is answered `.storeUnavailable` at once, even when what it waits for never
/// comes (as a query sent while PostgreSQL shuts down can wait): ``PostgresCloseWatch``.
@Suite(.enabled(if: PostgresTesting.enabled, "needs HEALTHBRIDGE_POSTGRES_URL"))
struct PostgresCloseWatchTests {
    @Test func aCallWhoseConnectionIsEndedIsAnsweredAtOnce() async throws {
        try await PostgresTesting.withStore { store, configuration in
            let started = ContinuousClock.now
            let call = Task<Void, any Error> {
                try await store.withConnection { _ in
                    // Stands in for an answer that never comes: a wait that ignores the caller's cancellation.
                    await Task.detached { try? await Task.sleep(for: .seconds(20)) }.value
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await PostgresTesting.terminateConnections(configuration) >= 1)
            do {
                try await call.value
                Issue.record("the call returned although its connection was ended")
            } catch let error as HealthError {
                #expect(error.code == .storeUnavailable)
            }
            #expect(ContinuousClock.now - started < .seconds(10), "answered in \(ContinuousClock.now - started)")
            // The store works again with a fresh connection, and the watch forgot the ended one.
            var answered = false
            let deadline = ContinuousClock.now + .seconds(10)
            while !answered, ContinuousClock.now < deadline {
                answered = (try? await store.currentAnchor()) != nil
                if !answered { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(answered)
            #expect(store.closeWatch.count <= 1)
        }
    }

    @Test func callsOnOneConnectionRegisterOneCloseCallback() async throws {
        try await PostgresTesting.withStore { store, _ in
            for _ in 0..<50 { _ = try await store.currentAnchor() }
            #expect(store.closeWatch.count >= 1 && store.closeWatch.count <= 4)
        }
    }
}
