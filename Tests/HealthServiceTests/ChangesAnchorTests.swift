import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// The current anchor (`changesAnchor()`): the anchor of the last commit, answered without reading any sample, and
/// a starting point from which `changes` answers only what comes later.
@Suite struct ChangesAnchorTests {
    static let now = HealthServiceTests.now

    @Test func theAnchorAfterAWriteIsThatWritesAndChangesFromItAreOnlyLaterOnes() async throws {
        let (demo, _) = try await DemoWorld(days: 10, seed: 3, end: Self.now, zone: HealthServiceTests.utc).store()
        let store = RecordingHealthStore(demo)
        let owner = HealthService(store: store, homeTimeZone: HealthServiceTests.utc, clock: { Self.now })
        try await owner.updateGrants(GrantsUpdate(principal: "app:com.example.diet", allowRead: ["bodyMass"],
                                                  allowWrite: ["bodyMass"]))
        let app = owner.acting(as: Principal(kind: .app, name: "com.example.diet"))

        let written = try await app.logWeight(72.4, at: "2024-06-30T07:00:00Z", logId: "w-1")
        store.reset()
        let anchor = try await app.changesAnchor()
        #expect(anchor.anchor == written.anchor, "the anchor of the last commit")
        #expect(store.dataReads.isEmpty, "no history read: \(store.dataReads)")
        #expect(try JSONEncoder.wire.encode(anchor).count < 64, "a few bytes, whatever the store holds")

        // The whole history is there: from the beginning, changes has far more than a page.
        let everything = try await owner.changes(ChangesRequest(limit: 10))
        #expect(everything.hasMore)

        // From the anchor: nothing yet, then exactly the next write.
        let nothing = try await app.changes(ChangesRequest(types: ["bodyMass"], anchor: anchor.anchor))
        #expect(nothing.added.isEmpty && nothing.deleted.isEmpty && nothing.anchor == anchor.anchor)
        let next = try await app.logWeight(72.1, at: "2024-06-30T08:00:00Z", logId: "w-2")
        let later = try await app.changes(ChangesRequest(types: ["bodyMass"], anchor: anchor.anchor))
        #expect(later.added.compactMap(\.sample?.uuid) == next.objects.map(\.uuid) && later.added.count == 1)
        #expect(later.anchor == next.anchor)
        #expect(try await app.changesAnchor().anchor == next.anchor)
    }

    @Test func pausedSharingRefusesTheAnchorAsItRefusesChanges() async throws {
        let owner = try await AccessUseCaseTests.owner()
        let app = owner.acting(as: Principal(kind: .app, name: "com.example.diet"))
        #expect(Int64(try await app.changesAnchor().anchor) == (try await owner.currentAnchor()))
        try await owner.setSharing(.paused)
        for call in [{ _ = try await app.changesAnchor() }, { _ = try await app.changes(ChangesRequest()) }]
            as [() async throws -> Void] {
            do {
                try await call()
                Issue.record("answered while sharing is paused")
            } catch let error as HealthError {
                #expect(error.code == .sharingPaused)
            }
        }
        // The owner and agents are not paired clients.
        #expect(try await owner.changesAnchor().anchor == String(try await owner.currentAnchor()))
        #expect(try await owner.acting(as: .mcp()).changesAnchor().anchor == String(try await owner.currentAnchor()))
    }
}
