import Foundation
import HealthAPI
import Testing
@testable import HealthAccess

/// Issue 24: the durable audit at full speed. An answer with data waits for its entries to be on disk (group commit:
/// one transaction, one fsync, for every request waiting); an answer without data (`status`, a refusal) does not wait,
/// and its `api.request` line goes with the next group write or the final flush.
@Suite("The audit log's group commit")
struct AuditLogTests {
    static func log(_ home: URL, interval: Duration = .seconds(3600)) throws -> (AuditLog, AccessStore) {
        let state = try AccessStore(home: home)
        return (AuditLog(state: state, interval: interval, logger: Fixture.logger), state)
    }

    static func line(_ id: String, status: Int = 200) -> AuditEvent {
        AuditEvent(event: .apiRequest, requestId: id, client: "c1", address: "10.0.0.2", method: "GET",
                   route: "/api/v1/status", status: status, decision: .allowed)
    }

    static func read(_ id: String) -> AuditEvent {
        AuditEvent(event: .dataRead, requestId: id, client: "c1", address: "10.0.0.2",
                   detail: .init(types: ["stepCount"], sampleCount: 3))
    }

    /// What another process (`healthbridge audit`) would read from the file now.
    static func stored(_ home: URL) throws -> [AuditEvent] { try AccessStore(home: home).auditEvents(limit: 100_000) }

    @Test func anAnswerWithoutDataDoesNotWaitAndIsFlushed() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (audit, _) = try Self.log(home)
        let mark = audit.mark
        audit.record(Self.line("status-1"))
        #expect(try await audit.commit(since: mark) == false, "a status answer must not wait for an fsync")
        #expect(try Self.stored(home).isEmpty)
        #expect(audit.transactionCount == 0)
        // The graceful stop writes it.
        await audit.flush()
        #expect(try Self.stored(home).map(\.requestId) == ["status-1"])
    }

    @Test func anAnswerWithDataWaitsUntilItsEntriesAreOnDisk() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (audit, _) = try Self.log(home)
        audit.record(Self.line("status-0"))
        let mark = audit.mark
        audit.record(Self.read("data-1"))
        audit.record(Self.line("data-1"))
        #expect(try await audit.commit(since: mark) == true)
        let stored = try Self.stored(home)
        #expect(stored.filter { $0.requestId == "data-1" }.map(\.event) == [.dataRead, .apiRequest])
        // The status line recorded before went with the same transaction.
        #expect(stored.contains { $0.requestId == "status-0" })
        #expect(audit.transactionCount == 1)
        // Nothing new since: the next commit has nothing to wait for.
        #expect(try await audit.commit(since: audit.mark) == false)
    }

    @Test func concurrentAnswersShareTransactions() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (audit, _) = try Self.log(home)
        let requests = 256
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<requests {
                group.addTask {
                    let mark = audit.mark
                    audit.record(Self.read("r\(index)"))
                    audit.record(Self.line("r\(index)"))
                    let waited = try await audit.commit(since: mark)
                    #expect(waited, "an answer with data waits for its entries")
                }
            }
            try await group.waitForAll()
        }
        let reads = try Self.stored(home).filter { $0.event == .dataRead }
        #expect(reads.count == requests)
        #expect(audit.transactionCount < requests / 2, "group commit: \(audit.transactionCount) transactions for \(requests) answers")
    }

    /// Each answer finds its own entries in the file the moment its commit returns.
    @Test func everyCommittedAnswerIsOnDiskWhenItsCommitReturns() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (audit, _) = try Self.log(home)
        let reader = try AccessStore(home: home)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    let mark = audit.mark
                    audit.record(Self.read("w\(index)"))
                    try await audit.commit(since: mark)
                    let found = try reader.auditEvents(limit: 100_000).contains { $0.requestId == "w\(index)" }
                    #expect(found, "w\(index) answered before its entry was written")
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func aFullQueueMakesEveryAnswerWait() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let (audit, _) = try Self.log(home)
        let mark = audit.mark
        for index in 0..<AuditLog.maxPendingEntries { audit.record(Self.line("s\(index)")) }
        #expect(try await audit.commit(since: mark) == true, "memory stays bounded: a full queue is written first")
        #expect(try Self.stored(home).count == AuditLog.maxPendingEntries)
    }

    /// A prune walks up to `keepAtMost` entries per kind: it runs once per tenth of that, not every thousand rows.
    @Test func pruningIsAmortizedOverTheCap() {
        #expect(AccessStore.pruneInterval(keepAtMost: 1_000_000) == 100_000)
        #expect(AccessStore.pruneInterval(keepAtMost: 100) == AccessStore.pruneEvery)
    }
}
