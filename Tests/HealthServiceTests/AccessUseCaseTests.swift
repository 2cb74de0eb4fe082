import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// The access use cases (pairing, clients, sharing, ingest tokens, console keys, the audit log) as service methods
/// acting for a principal: the owner may, others are refused; paused sharing refuses paired devices' and apps'
/// reads; the change feed never shows a principal a type it may not read.
@Suite struct AccessUseCaseTests {
    static let now = ISO8601.date("2024-06-30T15:30:00Z")!

    static func owner() async throws -> HealthService {
        try await DemoWorld(days: 3, seed: 5, end: now, zone: TimeZone(identifier: "UTC")!).service()
            .withAccess(try AccessStore.inMemory())
    }

    /// Pairs a device through the service; answers its token and id.
    static func pairDevice(_ owner: HealthService, appId: String? = nil) async throws -> (token: String, id: String) {
        let code = try await owner.issuePairingCode(appId: appId)
        guard case .paired(let token, let id) = try await owner.pair(code: code.code, clientName: "phone", appId: appId)
        else { throw HealthError(.internalError, "the code did not pair") }
        return (token, id)
    }

    static func expectRefused(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await body()
            Issue.record("not refused", sourceLocation: sourceLocation)
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func onlyTheOwnerIssuesCodesListsClientsAndReadsTheAudit() async throws {
        let owner = try await Self.owner()
        let (_, id) = try await Self.pairDevice(owner)
        #expect(try await owner.pairedClients().map(\.id) == [id])
        for principal in [Principal.device(id), .mcp(), .gateway(), Principal(kind: .app, name: "org.example"),
                          Principal(kind: .ingest, name: "iphone")] {
            let other = owner.acting(as: principal)
            await Self.expectRefused { _ = try await other.issuePairingCode() }
            await Self.expectRefused { _ = try await other.pairedClients() }
            await Self.expectRefused { _ = try await other.revokePairedClient(id) }
            await Self.expectRefused { _ = try await other.auditEvents(AuditQuery()) }
            await Self.expectRefused { _ = try await other.recentAuditEvents() }
            await Self.expectRefused { _ = try await other.sharingStatus() }
            await Self.expectRefused { try await other.setSharing(.paused) }
            await Self.expectRefused { try await other.setDeviceName("x") }
            await Self.expectRefused { _ = try await other.createIngestToken(name: "x", allowWrite: ["stepCount"]) }
            await Self.expectRefused { _ = try await other.ingestTokens() }
            await Self.expectRefused { _ = try await other.issueConsoleKey() }
        }
        #expect(try await owner.pairedClients().first?.isRevoked == false, "nothing was revoked by a refused call")
        #expect(try await owner.revokePairedClient(id)?.isRevoked == true)
        #expect(try await owner.recentAuditEvents().contains { $0.detail?.action == "device.revoke" })
        #expect(try await owner.auditEvents(AuditQuery(event: .consentChange)).count == 1)
    }

    @Test func anIngestTokenIsCreatedGrantedListedAndRevokedInOneCallEach() async throws {
        let owner = try await Self.owner()
        let created = try await owner.createIngestToken(name: "iphone", allowWrite: ["stepCount", "bodyMass"])
        #expect(created.principal == Principal(kind: .ingest, name: "iphone"))
        #expect(try await owner.ingestPrincipal(token: created.token) == created.principal)
        let grants = try await owner.grants(for: created.principal)
        #expect(grants.write.allows("bodyMass") && !grants.read.allows("bodyMass"))
        #expect(try await owner.ingestTokens().map(\.name) == ["iphone"])
        #expect(try await owner.revokeIngestToken(name: "iphone")?.isRevoked == true)
        #expect(try await owner.ingestPrincipal(token: created.token) == nil)
    }

    @Test func theTokenLookupAnswersTheClientsOwnService() async throws {
        let owner = try await Self.owner()
        let (token, id) = try await Self.pairDevice(owner)
        let (appToken, _) = try await Self.pairDevice(owner, appId: "org.example.diet")
        guard case .authenticated(let device) = try await owner.authenticatePairedClient(token: token),
              case .authenticated(let app) = try await owner.authenticatePairedClient(token: appToken) else {
            Issue.record("a paired client's token is not authenticated")
            return
        }
        #expect(device.service.principal == .device(id) && device.service.client == id)
        #expect(app.service.principal == Principal(kind: .app, name: "org.example.diet"))
        guard case .unknownToken = try await owner.authenticatePairedClient(token: "nope") else {
            Issue.record("an unknown token is authenticated")
            return
        }
        try await owner.revokePairedClient(id)
        guard case .revoked(let client) = try await owner.authenticatePairedClient(token: token) else {
            Issue.record("a revoked client is authenticated")
            return
        }
        #expect(client.id == id)
    }

    @Test func pausedSharingRefusesPairedReadsAndWritesThroughTheService() async throws {
        let owner = try await Self.owner()
        try await owner.shareTypes(enable: ["stepCount"])
        let (token, id) = try await Self.pairDevice(owner)
        let request = SummaryRequest(type: "stepCount", start: "2024-06-29", interval: "day")
        let device = owner.acting(as: .device(id))
        #expect(try await device.summary(request).buckets.isEmpty == false)

        try await owner.setSharing(.paused)
        #expect(try await owner.sharingStatus().state == .paused)
        guard case .authenticated(let session) = try await owner.authenticatePairedClient(token: token) else {
            Issue.record("not authenticated")
            return
        }
        #expect(session.sharing.state == .paused)
        for service in [device, session.service, owner.acting(as: Principal(kind: .app, name: "org.example"))] {
            for read in [{ _ = try await service.summary(request) },
                         { _ = try await service.samples(SamplesRequest(type: "stepCount", start: "2024-06-29")) },
                         { _ = try await service.latest(LatestRequest(type: "stepCount")) }] as [() async throws -> Void] {
                await #expect(throws: HealthError.self) { try await read() }
                do { try await read() } catch let error as HealthError { #expect(error.code == .sharingPaused) }
            }
            do {
                _ = try await service.logWater(250, unit: "mL", at: "2024-06-30T10:00:00Z")
                Issue.record("a write went through while sharing is paused")
            } catch let error as HealthError {
                #expect(error.code == .sharingPaused)
            }
        }
        // The owner, MCP clients and gateways are not paired clients: pausing does not concern them.
        #expect(try await owner.summary(request).buckets.isEmpty == false)
        #expect(try await owner.acting(as: .mcp()).summary(request).buckets.isEmpty == false)

        try await owner.setSharing(.active)
        #expect(try await device.summary(request).buckets.isEmpty == false)
    }

    @Test func theChangeFeedNeverShowsATypeThePrincipalMayNotRead() async throws {
        let owner = try await Self.owner()
        try await owner.updateGrants(GrantsUpdate(principal: Principal.gateway().id, deny: ["bodyMass"]))
        let gateway = owner.acting(as: .gateway())
        let start = try await owner.store.currentAnchor()
        var notifications = gateway.changeNotifications().makeAsyncIterator()
        var ownerNotifications = owner.changeNotifications().makeAsyncIterator()

        _ = try await owner.logWeight(70, unit: "kg", at: "2024-06-30T08:00:00Z")
        _ = try await owner.logWater(250, unit: "mL", at: "2024-06-30T09:00:00Z")

        #expect(await ownerNotifications.next()?.types == ["bodyMass"], "the owner sees every commit")
        let first = await notifications.next()
        #expect(first?.types == ["dietaryWater"], "the weight's commit is not delivered to the gateway at all")

        let page = try await gateway.readableChanges(since: start, types: ["bodyMass", "dietaryWater"], limit: 100)
        #expect(page.added.map(\.type) == ["dietaryWater"])
        let denied = try await gateway.readableChanges(since: start, types: ["bodyMass"], limit: 100)
        #expect(denied.added.isEmpty && !denied.hasMore)
        let all = try await owner.readableChanges(since: start, types: ["bodyMass", "dietaryWater"], limit: 100)
        #expect(Set(all.added.map(\.type)) == ["bodyMass", "dietaryWater"])
    }
}
