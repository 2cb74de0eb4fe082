import ExportClient
import ExportServer
import Foundation
import HealthModel
import HealthService
import Testing

/// Clients paired with an app id (HealthBridgeKit) act as `app:<appId>`: they ask for access with
/// `POST access/requests`, learn their write status from `GET access/status`, and never learn that a read was
/// denied. Clients paired without one stay `device:<clientId>`.
@Suite("Apps: pairing with an app id, access requests")
struct AppPairingTests {
    static let range = DataRequest(types: ["stepCount"], start: "2026-01-08T00:00:00Z", end: "2026-01-10T00:00:00Z")

    func pairApp(_ harness: Harness, appId: String) async throws -> ExportRemote {
        let (code, _) = try harness.state.issuePairingCode()
        let record = try await ExportRemote.pair(host: "127.0.0.1", port: harness.port, fingerprint: harness.fingerprint,
                                                 code: code, clientName: "diet", appId: appId, timeout: .seconds(60))
        #expect(record.appId == appId)
        return ExportRemote(server: record, timeout: .seconds(60))
    }

    @Test func anAppAsksTheOwnerDecidesReadsNeverRevealDenial() async throws {
        try await Harness.run { harness in
            try await harness.share(["stepCount"])
            let device = try await harness.pair()
            let app = try await pairApp(harness, appId: "org.example.diet")
            #expect(try harness.state.clients().map(\.appId).contains("org.example.diet"))
            // Devices get what device:* has; the app has nothing yet and cannot tell: ok, no samples.
            #expect(try await !device.data(Self.range).samples.isEmpty)
            let hidden = try await app.data(Self.range)
            #expect(hidden.status == .ok && hidden.samples.isEmpty && hidden.deniedTypes == nil)

            let token = app.server.token
            let status = try await harness.send("GET", "/api/v1/access/status?types=dietaryWater,stepCount", token: token)
            #expect(status.status == 200)
            #expect(status.json?["principal"]?.stringValue == "app:org.example.diet")
            #expect(status.json?["write"]?["dietaryWater"]?.stringValue == "notDetermined")

            let body = Array(#"{"read":["stepCount"],"write":["dietaryWater"],"reasons":{"dietaryWater":"Hydration"}}"#.utf8)
            let filed = try await harness.send("POST", "/api/v1/access/requests", token: token,
                                               headers: [("Content-Type", "application/json")], body: body)
            #expect(filed.status == 200)
            let id = try #require(filed.json?["request"]?["id"]?.stringValue)
            #expect(filed.json?["request"]?["principal"]?.stringValue == "app:org.example.diet")
            try await harness.server.service.decideAccessRequest(AccessDecision(id: id, approve: true))

            let after = try await harness.send("GET", "/api/v1/access/status?types=dietaryWater", token: token)
            #expect(after.json?["write"]?["dietaryWater"]?.stringValue == "sharingAuthorized")
            #expect(try await !app.data(Self.range).samples.isEmpty)

            // The owner's decisions are not asked again.
            let again = try await harness.send("POST", "/api/v1/access/requests", token: token,
                                               headers: [("Content-Type", "application/json")], body: body)
            #expect(again.status == 200 && again.json?["request"] == nil)

            // A request without types is refused with the one vocabulary.
            let missing = try await harness.send("GET", "/api/v1/access/status", token: token)
            #expect(missing.status == 400 && missing.errorCode == "HEALTH_INVALID_ARGUMENT")
        }
    }

    @Test func aDeviceStaysADeviceAndAppIdsAreChecked() async throws {
        try await Harness.run { harness in
            let device = try await harness.pair()
            let status = try await harness.send("GET", "/api/v1/access/status?types=stepCount", token: device.server.token)
            #expect(status.json?["principal"]?.stringValue == "device:\(device.server.clientId)")

            let (code, _) = try harness.state.issuePairingCode()
            let bad = try await harness.send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                             body: Array(#"{"code":"\#(code)","clientName":"x","appId":"no spaces"}"#.utf8))
            #expect(bad.status == 400 && bad.errorCode == "HEALTH_INVALID_ARGUMENT")
        }
    }
}
