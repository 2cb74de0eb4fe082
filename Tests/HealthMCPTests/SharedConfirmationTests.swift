import Foundation
import HealthAPI
import HealthBridgeTesting
import HealthMCP
import HealthModel
import HealthService
import HealthStore
import Testing

/// MCP 2026-07-28 delete confirmations kept in the store: two app servers on one database (two store instances of
/// one SQLite file, or of one PostgreSQL schema) accept a confirmation the other issued, once.
@Suite("Shared tool confirmations")
struct SharedConfirmationTests {
    static func service(_ place: TestStorePlace, at date: Date = Fixture.end) async throws -> HealthService {
        HealthService(store: try await place.open(), homeTimeZone: Fixture.utc, clock: { date })
    }

    static var eliciting: [String: Any] {
        var meta = ModernProtocolTests.meta
        meta["io.modelcontextprotocol/clientCapabilities"] = ["elicitation": ["form": [String: Any]()]]
        return meta
    }

    static func accept(_ state: String, arguments: [String: Any]) -> [String: Any] {
        ["name": "delete_entries", "arguments": arguments, "requestState": state,
         "inputResponses": ["confirm": ["action": "accept", "content": ["confirm": true]]]]
    }

    @Test(arguments: TestStores.kinds)
    func aDeleteConfirmedOnAnotherServerRunsOnce(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            // Each server reads the grants when it opens: given before both start, as an operator would.
            try await Self.service(place).updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["bodyMass"]))
            let first = try await Self.service(place), second = try await Self.service(place)
            let (serverA, serverB) = (HealthMCPModernServer(), HealthMCPModernServer())
            let (toolboxA, toolboxB) = (HealthToolbox(service: first), HealthToolbox(service: second))
            _ = try await toolboxA.service.logWeight(71.5, unit: "kg", logId: "w-1")   // written by the agent (mcp)
            let arguments: [String: Any] = ["log_id": "w-1"]

            // Asked by server A, answered through server B: deleted.
            let asked = ModernProtocolTests.result(try await ModernProtocolTests.send(
                serverA, toolbox: toolboxA, "tools/call", params: ["name": "delete_entries", "arguments": arguments],
                meta: Self.eliciting).json)
            #expect(asked["resultType"] as? String == "input_required")
            let state = try #require(asked["requestState"] as? String)
            let done = ModernProtocolTests.result(try await ModernProtocolTests.send(
                serverB, toolbox: toolboxB, "tools/call", params: Self.accept(state, arguments: arguments), meta: Self.eliciting).json)
            #expect(done["resultType"] as? String == "complete" && done["isError"] as? Bool == false, "\(done)")
            #expect((done["structuredContent"] as? [String: Any])?["deleted"] as? Int == 1, "\(done)")
            #expect(try await first.latest(LatestRequest(type: "bodyMass")).found == false)

            // The same state again, on either server, after the entry was written again: a new question, nothing deleted.
            _ = try await toolboxA.service.logWeight(72, unit: "kg", logId: "w-1")
            for (server, toolbox) in [(serverA, toolboxA), (serverB, toolboxB)] {
                let replay = ModernProtocolTests.result(try await ModernProtocolTests.send(
                    server, toolbox: toolbox, "tools/call", params: Self.accept(state, arguments: arguments), meta: Self.eliciting).json)
                #expect(replay["resultType"] as? String == "input_required", "\(replay)")
            }
            #expect(try await second.latest(LatestRequest(type: "bodyMass")).found == true)
        }
    }

    @Test(arguments: TestStores.kinds)
    func aConfirmationIsSingleUseBoundAndExpires(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            let issuer = try await Self.service(place), other = try await Self.service(place)
            let binding = "delete_entries\u{1F}mcp\u{1F}{\"log_id\":\"w-1\"}"
            let token = try await issuer.issueToolConfirmation(binding: binding)
            #expect(token.count == 48)

            // Another binding does not spend it; the right one does, once, whichever server asks.
            #expect(try await other.redeemToolConfirmation(token, binding: binding + "x") == false)
            #expect(try await other.redeemToolConfirmation(token, binding: binding) == true)
            #expect(try await issuer.redeemToolConfirmation(token, binding: binding) == false)
            #expect(try await other.redeemToolConfirmation(token, binding: binding) == false)
            #expect(try await other.redeemToolConfirmation("not-a-token", binding: binding) == false)

            // Redeemed at once by eight callers on two servers: exactly one wins.
            let raced = try await issuer.issueToolConfirmation(binding: binding)
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    let service = index.isMultiple(of: 2) ? issuer : other
                    group.addTask { try await service.redeemToolConfirmation(raced, binding: binding) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)

            // Past its lifetime (a server whose clock is 11 minutes on): refused, and removed.
            let late = try await Self.service(place, at: Fixture.end.addingTimeInterval(HealthService.toolConfirmationLifetime + 60))
            let expiring = try await issuer.issueToolConfirmation(binding: binding)
            #expect(try await late.redeemToolConfirmation(expiring, binding: binding) == false)
            #expect(try await issuer.redeemToolConfirmation(expiring, binding: binding) == false)

            // Only the hashes are kept, and used or expired questions are gone.
            let kept = try await place.open().settings(prefix: HealthService.toolConfirmationSettingPrefix)
            #expect(kept.isEmpty, "\(kept.keys)")
            let pending = try await issuer.issueToolConfirmation(binding: binding)
            let stored = try await place.open().settings(prefix: HealthService.toolConfirmationSettingPrefix)
            #expect(stored.count == 1 && !stored.keys.contains { $0.contains(pending) } && !stored.values.contains { $0.contains("w-1") })

            // A store copy leaves the pending question behind (one server's state, not the person's data).
            let target = try SQLiteHealthStore.inMemory()
            _ = try await StoreCopier(from: try await place.open(), to: target, sourceName: "test").run()
            #expect(try await target.settings(prefix: HealthService.toolConfirmationSettingPrefix).isEmpty)
        }
    }
}
