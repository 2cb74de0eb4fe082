import Foundation
import HealthAPI
import HealthModel
import HealthService
import PairedAPIClient
import Testing
@testable import PairedAPI

/// The routes a HealthKit-shaped client needs beyond the diet app's: the current anchor
/// (`GET health/changes/anchor`), the sample query with its metadata predicate (`POST health/samples/query`) and the
/// delete of several objects in one transaction (`POST health/delete`), each as the paired app.
@Suite("HealthKit routes: anchor, sample query, delete")
struct HealthKitRoutesTests {
    static let appId = "org.example.diet"
    static let json = [("Content-Type", "application/json")]

    /// Pairs an app through `POST /api/v1/pair` with a code issued for it and grants it `read`/`write`: its token.
    static func pairApp(_ harness: Harness, read: [String], write: [String]) async throws -> String {
        let (code, _) = try harness.state.issuePairingCode(appId: appId)
        let body = Array(try JSONEncoder().encode(PairRequest(code: code, clientName: "diet", appId: appId)))
        let reply = try await harness.send("POST", "/api/v1/pair", headers: json, body: body)
        let token = try #require(reply.json?["token"]?.stringValue, "pairing failed: \(reply.status)")
        try await harness.server.service.updateGrants(GrantsUpdate(principal: "app:\(appId)", allowRead: read,
                                                                   allowWrite: write))
        return token
    }

    static func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theAnchorIsTheLastWritesAndChangesFromItAreOnlyLaterOnes() async throws {
        try await Harness.inProcess { harness in
            let token = try await Self.pairApp(harness, read: ["bodyMass"], write: ["bodyMass"])
            let weight = try await harness.send("POST", "/api/v1/log/weight", token: token, headers: Self.json,
                                                body: Self.body(#"{"value":72.4,"at":"2026-01-09T07:00:00Z","log_id":"w-1"}"#))
            #expect(weight.status == 200)
            let anchor = try await harness.send("GET", "/api/v1/health/changes/anchor", token: token)
            #expect(anchor.status == 200)
            try OpenAPITests().check(anchor, "GET", "/api/v1/health/changes/anchor")
            let now = try #require(anchor.json?["anchor"]?.stringValue)
            #expect(now == weight.json?["anchor"]?.stringValue)
            #expect(anchor.json?.objectValue?.keys.sorted() == ["anchor"] && anchor.body.count < 64,
                    "no history in the answer")

            let empty = try await harness.send("GET", "/api/v1/health/changes?types=bodyMass&anchor=\(now)", token: token)
            #expect(empty.json?["added"]?.arrayValue?.isEmpty == true && empty.json?["anchor"]?.stringValue == now)
            let next = try await harness.send("POST", "/api/v1/log/weight", token: token, headers: Self.json,
                                              body: Self.body(#"{"value":72.1,"at":"2026-01-09T08:00:00Z","log_id":"w-2"}"#))
            let later = try await harness.send("GET", "/api/v1/health/changes?types=bodyMass&anchor=\(now)", token: token)
            let added = try #require(later.json?["added"]?.arrayValue)
            #expect(added.count == 1)
            #expect(added.first?["sample"]?["uuid"]?.stringValue == next.json?["objects"]?.arrayValue?.first?["uuid"]?.stringValue)

            let extra = try await harness.send("GET", "/api/v1/health/changes/anchor?types=bodyMass", token: token)
            #expect(extra.status == 400 && extra.errorCode == "HEALTH_INVALID_ARGUMENT")
            try harness.state.setSharingState(.paused)
            let paused = try await harness.send("GET", "/api/v1/health/changes/anchor", token: token)
            #expect(paused.status == 423 && paused.json?["status"]?.stringValue == "locked")
            try OpenAPITests().check(paused, "GET", "/api/v1/health/changes/anchor")
        }
    }

    @Test func appMetadataWrittenThroughSamplesIsReturnedAndQueryable() async throws {
        try await Harness.inProcess { harness in
            let token = try await Self.pairApp(harness, read: ["dietaryProtein"], write: ["dietaryProtein", "dietaryWater"])
            let write = try await harness.send("POST", "/api/v1/health/samples", token: token, headers: Self.json, body: Self.body("""
                {"samples":[
                  {"type":"dietaryProtein","value":20,"unit":"g","start":"2026-01-09T08:00:00Z","metadata":{"DietAppLogId":"meal-1","Source":"DietApp"}},
                  {"type":"dietaryProtein","value":30,"unit":"g","start":"2026-01-09T12:00:00Z","metadata":{"DietAppLogId":"meal-2","Source":"DietApp"}},
                  {"type":"dietaryProtein","value":5,"unit":"g","start":"2026-01-09T15:00:00Z"},
                  {"type":"dietaryWater","value":250,"unit":"mL","start":"2026-01-09T15:00:00Z","metadata":{"DietAppLogId":"meal-1"}}
                ]}
                """))
            #expect(write.status == 200, "\(String(decoding: write.body, as: UTF8.self))")

            let query = try await harness.send("POST", "/api/v1/health/samples/query", token: token, headers: Self.json,
                                               body: Self.body(#"{"type":"dietaryProtein","start":"2026-01-09","end":"2026-01-10","metadata_key":"DietAppLogId","metadata_values":["meal-1"]}"#))
            #expect(query.status == 200)
            try OpenAPITests().check(query, "POST", "/api/v1/health/samples/query")
            let samples = try #require(query.json?["samples"]?.arrayValue)
            #expect(samples.count == 1)
            let sample = try #require(samples.first)
            #expect(sample["value"]?.doubleValue == 20 && sample["unit"]?.stringValue == "g")
            #expect(sample["metadata"]?["DietAppLogId"]?.stringValue == "meal-1")
            #expect(sample["metadata"]?["Source"]?.stringValue == "DietApp")
            for field in ["uuid", "start", "end", "source"] { #expect(sample[field]?.stringValue != nil, "\(field)") }

            let all = try await harness.send("POST", "/api/v1/health/samples/query", token: token, headers: Self.json,
                                             body: Self.body(#"{"type":"dietaryProtein","start":"2026-01-09","ascending":true,"sources":["HealthBridge (app:org.example.diet)"]}"#))
            #expect(all.json?["samples"]?.arrayValue?.compactMap { $0["value"]?.doubleValue } == [20, 30, 5])

            // Not readable: not an error, and only what the app wrote itself (HealthKit's rule: it finds its own
            // samples to delete them), never the demo's water.
            let own = try await harness.send("POST", "/api/v1/health/samples/query", token: token, headers: Self.json,
                                             body: Self.body(#"{"type":"dietaryWater","start":"2026-01-01","metadata_key":"DietAppLogId","metadata_values":["meal-1"]}"#))
            #expect(own.status == 200 && own.json?["samples"]?.arrayValue?.count == 1)
            let water = try await harness.send("POST", "/api/v1/health/samples/query", token: token, headers: Self.json,
                                               body: Self.body(#"{"type":"dietaryWater","start":"2026-01-01"}"#))
            #expect(water.json?["samples"]?.arrayValue?.compactMap { $0["source"]?.stringValue } == ["HealthBridge (app:org.example.diet)"])
            #expect(try await harness.server.service.samples(SamplesRequest(type: "dietaryWater", start: "2026-01-01")).count > 1,
                    "the demo has water the app may not see")

            for bad in [#"{"type":"dietaryProtein","metadata_key":"DietAppLogId"}"#,
                        #"{"type":"dietaryProtein","metadata_values":["meal-1"]}"#, "", "not json"] {
                let reply = try await harness.send("POST", "/api/v1/health/samples/query", token: token, headers: Self.json,
                                                   body: Self.body(bad))
                #expect(reply.status == 400 && reply.errorCode == "HEALTH_INVALID_ARGUMENT", "\(bad)")
                try OpenAPITests().check(reply, "POST", "/api/v1/health/samples/query")
            }
        }
    }

    @Test func severalObjectsAreDeletedInOneRequestAndTheLogRouteStays() async throws {
        try await Harness.inProcess { harness in
            let token = try await Self.pairApp(harness, read: ["dietaryWater"], write: ["dietaryWater", "bodyMass"])
            var uuids: [String] = []
            for hour in 10..<13 {
                let reply = try await harness.send("POST", "/api/v1/log/water", token: token, headers: Self.json,
                                                   body: Self.body(#"{"value":250,"at":"2026-01-09T\#(hour):00:00Z"}"#))
                uuids.append(try #require(reply.json?["objects"]?.arrayValue?.first?["uuid"]?.stringValue))
            }
            let body = Array(try JSONEncoder().encode(DeleteRequest(uuids: Array(uuids.prefix(2)) + [UUID().uuidString])))
            let deleted = try await harness.send("POST", "/api/v1/health/delete", token: token, headers: Self.json, body: body)
            #expect(deleted.status == 200)
            try OpenAPITests().check(deleted, "POST", "/api/v1/health/delete")
            let result = try JSONDecoder().decode(DeleteResult.self, from: Data(deleted.body))
            #expect(result.deleted == 2 && result.uuids == Array(uuids.prefix(2)))
            let left = try await harness.send("POST", "/api/v1/health/samples/query", token: token, headers: Self.json,
                                              body: Self.body(#"{"type":"dietaryWater","start":"2026-01-09","sources":["HealthBridge (app:org.example.diet)"]}"#))
            #expect(left.json?["samples"]?.arrayValue?.compactMap { $0["uuid"]?.stringValue } == [uuids[2]])

            let malformed = try await harness.send("POST", "/api/v1/health/delete", token: token, headers: Self.json,
                                                   body: Self.body(#"{"uuids":["nope"]}"#))
            #expect(malformed.status == 400 && malformed.errorCode == "HEALTH_INVALID_ARGUMENT")
            let two = try await harness.send("POST", "/api/v1/health/delete", token: token, headers: Self.json,
                                             body: Self.body(#"{"uuid":"\#(uuids[2])","log_id":"x"}"#))
            #expect(two.status == 400 && two.errorCode == "HEALTH_INVALID_ARGUMENT")

            // Another writer's object: 403, nothing deleted.
            let owners = try await harness.server.service.logWater(300, at: "2026-01-09T14:00:00Z")
            let theirs = try await harness.send("POST", "/api/v1/health/delete", token: token, headers: Self.json,
                                                body: Self.body(#"{"uuids":["\#(uuids[2])","\#(owners.objects[0].uuid)"]}"#))
            #expect(theirs.status == 403 && theirs.errorCode == "HEALTH_NOT_AUTHORIZED")
            try OpenAPITests().check(theirs, "POST", "/api/v1/health/delete")

            // DELETE /api/v1/log/:logId is kept.
            _ = try await harness.send("POST", "/api/v1/log/weight", token: token, headers: Self.json,
                                       body: Self.body(#"{"value":70,"at":"2026-01-09T07:00:00Z","log_id":"w-9"}"#))
            let byLog = try await harness.send("DELETE", "/api/v1/log/w-9", token: token)
            #expect(byLog.status == 200 && byLog.json?["deleted"]?.doubleValue == 1)
        }
    }

    /// HealthKit's consent for a meal over the paired API: the seed's permission set (nutrients, water, weight; no
    /// food type) writes and deletes a meal; a nutrient missing refuses a meal holding it; access requests drop the
    /// correlation type and the status answers it through its members.
    @Test func aMealIsAuthorizedThroughItsNutrients() async throws {
        try await Harness.inProcess { harness in
            let seed = ["dietaryEnergyConsumed", "dietaryProtein", "dietaryCarbohydrates", "dietaryFatTotal", "dietaryFiber",
                        "dietarySugar", "dietarySodium", "dietaryCholesterol", "dietaryFatSaturated", "dietaryWater", "bodyMass"]
            let token = try await Self.pairApp(harness, read: seed, write: seed.filter { $0 != "dietaryFiber" })
            let meal = #"{"log_id":"meal-1","logged_at":"2026-01-09T12:00:00Z","name":"Porridge","calories":320,"protein":11,"carbs":54,"fat":6,"fiber":8,"sugar":12,"sodium":150}"#
            let refused = try await harness.send("POST", "/api/v1/log/food", token: token, headers: Self.json, body: Self.body(meal))
            #expect(refused.status == 403 && refused.errorCode == "HEALTH_NOT_AUTHORIZED")
            #expect(refused.json?["error"]?["message"]?.stringValue?.contains("dietaryFiber") == true)

            let status = try await harness.send("GET", "/api/v1/access/status?types=food,bloodPressure,dietaryProtein", token: token)
            #expect(status.json?["write"]?["food"]?.stringValue == "sharingAuthorized", "a meal of granted nutrients can be written")
            #expect(status.json?["write"]?["bloodPressure"]?.stringValue == "notDetermined", "blood pressure needs both values")
            #expect(status.json?["write"]?["dietaryProtein"]?.stringValue == "sharingAuthorized")
            let asked = try await harness.send("POST", "/api/v1/access/requests", token: token, headers: Self.json,
                                               body: Self.body(#"{"write":["HKCorrelationTypeIdentifierFood","dietaryFiber"],"read":["food"]}"#))
            #expect(asked.status == 200)
            #expect(asked.json?["request"]?["write"]?.arrayValue?.compactMap(\.stringValue) == ["dietaryFiber"])
            #expect(asked.json?["request"]?["read"]?.arrayValue?.isEmpty == true)
            let id = try #require(asked.json?["request"]?["id"]?.stringValue)
            try await harness.server.service.decideAccessRequest(AccessDecision(id: id, approve: true))

            let written = try await harness.send("POST", "/api/v1/log/food", token: token, headers: Self.json, body: Self.body(meal))
            #expect(written.status == 200 && written.json?["inserted"]?.doubleValue == 8, "seven nutrients and the correlation")
            let deleted = try await harness.send("DELETE", "/api/v1/log/meal-1", token: token)
            #expect(deleted.status == 200 && deleted.json?["deleted"]?.doubleValue == 8)
        }
    }
}
