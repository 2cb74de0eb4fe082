import Foundation
import HealthAccess
import HealthAPI
import HealthModel
import Testing

/// The access state keeps the file and the migrations of the export server's state it was: an existing
/// `export.sqlite` opens and keeps working.
@Suite struct AccessStoreTests {
    static func temporaryHome() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hb-access-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return url
    }

    @Test func keepsTheFileNameAndItsMode() throws {
        let home = try Self.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let store = try AccessStore(home: home)
        #expect(AccessStore.fileName == "export.sqlite")
        #expect(store.url?.lastPathComponent == "export.sqlite")
        let mode = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("export.sqlite").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aSecondOpeningSeesWhatTheFirstWrote() async throws {
        let home = try Self.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try AccessStore(home: home)
        let (code, _) = try first.issuePairingCode(appId: "org.example.app")
        guard case .paired(_, let clientID) = try await first.redeem(code: code, clientName: "phone") else {
            Issue.record("the code did not pair")
            return
        }
        try first.setSharingState(.paused)
        // Another handle on the same file (another process, a later version): migrations already applied, data kept.
        let second = try AccessStore(home: home)
        let client = try #require(try await second.client(id: clientID))
        #expect(client.principal == Principal(kind: .app, name: "org.example.app"))
        #expect(try second.sharing().state == .paused)
    }

    /// Audit entries already written name clients by this hash: it may never change.
    @Test func aClientsAuditIdIsTheSameAsBefore() {
        #expect(AccessStore.clientHash("3f2a9c01b2d4") == "7c3904299571595c")
    }

    @Test func inMemoryHasTheSameSchema() async throws {
        let store = try AccessStore.inMemory()
        #expect(store.url == nil)
        let token = try store.createIngestToken(name: "iphone")
        #expect(try await store.ingestTokenName(tokenHash: AccessStore.tokenHash(token)) == "iphone")
        let key = try store.issueConsoleKey()
        #expect(try await store.redeemConsoleKey(key))
        #expect(try await store.redeemConsoleKey(key) == false)
    }
}
