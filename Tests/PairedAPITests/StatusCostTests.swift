import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthService
import HealthStore
import Hummingbird
import HummingbirdTesting
import Testing
@testable import PairedAPI

/// Issue 24: `GET /api/v1/status` cost 200 ms on a one-year store because it listed the types with their counts (a
/// scan of every sample). It now asks the store only which types are present (an index probe per type) and the
/// grants: nothing whose cost grows with the samples. Proven on the calls the request makes, not on a timing.
@Suite("Status costs the same whatever the store holds")
struct StatusCostTests {
    /// A server over a demo store that records what the store is asked; `body` gets the in-process harness and the store.
    static func withRecordingServer(_ body: @Sendable (Harness, RecordingHealthStore) async throws -> Void) async throws {
        let (demo, _) = try await DemoWorld(days: 4, seed: 11, end: Fixture.end, zone: Fixture.utc).store()
        let store = RecordingHealthStore(demo)
        let service = HealthService(store: store, homeTimeZone: Fixture.utc, clock: { Fixture.end })
        let home = try Fixture.temporaryHome()
        let state = try AccessStore(home: home)
        var configuration = PairedAPIServerConfiguration()
        configuration.rateLimit = 0
        configuration.defaultDeviceName = "test-device"
        let server = PairedAPIServer(configuration: configuration, identity: Fixture.identity, state: state,
                                     service: service, logger: Fixture.logger)
        try await server.application().test(.router) { client in
            let harness = Harness(home: home, state: state, server: server, port: 0, task: nil, router: client)
            do {
                try await body(harness, store)
            } catch {
                await harness.stop()
                throw error
            }
            await harness.stop()
        }
    }

    /// What a store may be asked by `status`: the grants (settings) and the present types, nothing that reads samples.
    static let allowedCalls: Set<String> = ["presentTypes", "setting", "settings"]

    @Test func statusReadsNoSampleAndNoCount() async throws {
        try await Self.withRecordingServer { harness, store in
            // Shared: two types with data and one granted without any.
            try await harness.share(["stepCount", "heartRate", "bloodGlucose"])
            let device = try await harness.pairDevice()
            for _ in 0..<3 {
                store.reset()
                let reply = try await harness.send("GET", "/api/v1/status", token: device.token)
                #expect(reply.status == 200)
                let calls = store.calls
                #expect(Set(calls.keys).isSubset(of: Self.allowedCalls), "status asked the store for \(calls)")
                #expect(calls["presentTypes"] == 1, "\(calls)")
                #expect(calls["typeSummaries"] == nil && calls["scan"] == nil && calls["samples"] == nil)
                let enabled = reply.json?["enabledTypes"]?.arrayValue?.compactMap(\.stringValue)
                #expect(enabled == ["bloodGlucose", "heartRate", "stepCount"])
            }
        }
    }

    /// The names `status` reports are those the full listing (with counts) gives, for a device granted some types,
    /// one granted every type, and one granted nothing.
    @Test func statusNamesTheTypesTheListingGives() async throws {
        try await Self.withRecordingServer { harness, store in
            let device = try await harness.pairDevice()
            let principal = Principal.device(device.clientId)
            let service = harness.server.service.acting(as: principal, client: device.clientId)
            for grant in [[], ["stepCount", "heartRate", "bloodGlucose", "dietaryWater"], ["*"]] as [[String]] {
                try await harness.server.service.updateGrants(GrantsUpdate(principal: principal.id, allowRead: grant,
                                                                           deny: grant.isEmpty ? ["*"] : []))
                let listed = try await service.types(includingGranted: true).types.map(\.type)
                store.reset()
                let reply = try await harness.send("GET", "/api/v1/status", token: device.token)
                #expect(reply.status == 200)
                let enabled = reply.json?["enabledTypes"]?.arrayValue?.compactMap(\.stringValue)
                #expect(enabled == listed, "grant \(grant)")
                #expect(Set(store.calls.keys).isSubset(of: Self.allowedCalls), "grant \(grant): \(store.calls)")
                if grant == ["*"] { #expect(listed.count > 5, "every present type: \(listed)") }
            }
        }
    }
}
