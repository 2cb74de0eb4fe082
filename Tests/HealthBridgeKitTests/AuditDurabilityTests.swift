import Foundation
import HealthBridgeKit
import Testing

/// Issue 17, finding 12: a request's audit entry is committed (fsync'd, `synchronous = FULL`) before its answer
/// leaves the server, so a server killed right after answering still has it. With the old 200 ms batching, a
/// SIGKILL a few milliseconds after the answer lost the entry.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct AuditDurabilityTests {
    /// The events of `healthbridge audit --json`, by name.
    static func auditedEvents(_ home: URL) async throws -> [String] {
        let audit = try await Binaries.healthbridge(["audit", "--json", "--limit", "1000"], home: home)
        try #require(audit.status == 0, "audit failed: \(audit.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        return entries.compactMap { entry in
            entry.values.compactMap { $0 as? String }.first { $0.contains(".") && AuditDurabilityTests.kinds.contains($0) }
        }
    }

    static let kinds: Set<String> = ["data.read", "data.write", "data.delete", "api.request", "pair.success",
                                     "access.request", "consent.change"]

    @Test func readsAndWritesAreAuditedBeforeTheAnswerLeaves() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let owner = try await Binaries.healthbridge(["log", "weight", "80.2", "--at", "1h"], home: server.home)
        try #require(owner.status == 0, "\(owner.stderr)")
        let (manager, _) = try await server.pairedApp()
        let before = try await Self.auditedEvents(server.home)

        // A read whose answer carries data, then a write; the server is killed the moment the write is answered.
        let history = try await manager.fetchWeightHistory(days: 7)
        #expect(history.map(\.weight) == [80.2])
        try await manager.writeWater(250)
        await server.kill9()

        let after = try await Self.auditedEvents(server.home)
        let reads = after.filter { $0 == "data.read" }.count - before.filter { $0 == "data.read" }.count
        let writes = after.filter { $0 == "data.write" }.count - before.filter { $0 == "data.write" }.count
        #expect(reads >= 1, "the read's data.read entry was lost with the server: \(after)")
        #expect(writes == 1, "the write's data.write entry was lost with the server: \(after)")
    }
}
