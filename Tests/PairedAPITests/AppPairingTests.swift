import HealthAPI
import PairedAPIClient
import PairedAPI
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

    /// Pairs a client with a code the owner issued for `appId` (`healthbridge pair-code --app`).
    func pairApp(_ harness: Harness, appId: String, name: String = "diet") async throws -> PairedAPIRemote {
        let (code, _) = try harness.state.issuePairingCode(appId: appId)
        let record = try await PairedAPIRemote.pair(host: "127.0.0.1", port: harness.port, fingerprint: harness.fingerprint,
                                                 code: code, clientName: name, appId: appId, timeout: .seconds(60))
        #expect(record.appId == appId)
        return PairedAPIRemote(server: record, timeout: .seconds(60))
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
        try await Harness.inProcess { harness in
            let device = try await harness.pairDevice()
            let status = try await harness.send("GET", "/api/v1/access/status?types=stepCount", token: device.token)
            #expect(status.json?["principal"]?.stringValue == "device:\(device.clientId)")

            let (code, _) = try harness.state.issuePairingCode()
            let bad = try await harness.send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                             body: Array(#"{"code":"\#(code)","clientName":"x","appId":"no spaces"}"#.utf8))
            #expect(bad.status == 400 && bad.errorCode == "HEALTH_INVALID_ARGUMENT")
        }
    }

    /// Issue 21, finding 2: an app id is never self-asserted. A plain code with an `appId` claim is refused with the
    /// one vocabulary, and the code still pairs what it was issued for (a device).
    @Test func aClaimedAppIdWithoutACodeIssuedForItIsRefused() async throws {
        try await Harness.inProcess { harness in
            let (code, _) = try harness.state.issuePairingCode()
            let claim = try await harness.send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                               body: Array(#"{"code":"\#(code)","clientName":"x","appId":"org.example.diet"}"#.utf8))
            #expect(claim.status == 403 && claim.errorCode == "HEALTH_NOT_AUTHORIZED")
            #expect(try harness.state.clients().allSatisfy { $0.appId == nil })
            let plain = try await harness.send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                               body: Array(#"{"code":"\#(code)","clientName":"x"}"#.utf8))
            #expect(plain.status == 200)
            #expect(plain.json?["appId"] == nil)
            let token = try #require(plain.json?["token"]?.stringValue)
            let status = try await harness.send("GET", "/api/v1/access/status?types=stepCount", token: token)
            #expect(status.json?["principal"]?.stringValue?.hasPrefix("device:") == true)
        }
    }

    /// A code issued for an app makes its client act as that app, even without a claim; a claim of another app is
    /// refused; each client of an app files its own access request, never touching another's types or reasons.
    @Test func onlyACodeIssuedForAnAppActsAsItAndEachClientAsksForItself() async throws {
        try await Harness.run { harness in
            let (other, _) = try harness.state.issuePairingCode(appId: "org.example.other")
            let wrong = try await harness.send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                               body: Array(#"{"code":"\#(other)","clientName":"x","appId":"org.example.diet"}"#.utf8))
            #expect(wrong.status == 403 && wrong.errorCode == "HEALTH_NOT_AUTHORIZED")

            let first = try await pairApp(harness, appId: "org.example.diet", name: "phone")
            let (second, _) = try harness.state.issuePairingCode(appId: "org.example.diet")
            let record = try await PairedAPIRemote.pair(host: "127.0.0.1", port: harness.port, fingerprint: harness.fingerprint,
                                                     code: second, clientName: "tablet", timeout: .seconds(60))
            #expect(record.appId == "org.example.diet", "the code decides the app, not the client")
            let principals = try harness.state.clients().map(\.principal.id)
            #expect(principals == ["app:org.example.diet", "app:org.example.diet"])

            func file(_ token: String, _ body: String) async throws -> JSONValue? {
                try await harness.send("POST", "/api/v1/access/requests", token: token,
                                       headers: [("Content-Type", "application/json")], body: Array(body.utf8)).json
            }
            let mine = try await file(first.server.token, #"{"write":["dietaryWater"],"reasons":{"dietaryWater":"Hydration"}}"#)
            let theirs = try await file(record.token, #"{"write":["dietaryWater","bodyMass"],"reasons":{"dietaryWater":"EVIL"}}"#)
            let mineId = try #require(mine?["request"]?["id"]?.stringValue)
            #expect(theirs?["request"]?["id"]?.stringValue != mineId)
            let requests = try await harness.server.service.accessRequests(status: .pending).requests
            let kept = try #require(requests.first { $0.id == mineId })
            #expect(kept.write == ["dietaryWater"] && kept.reasons == ["dietaryWater": "Hydration"])
            #expect(kept.client == first.server.clientId)
        }
    }
}
