import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel
import HealthService
import Testing
@testable import PairedAPI

/// The Health Connect receiver over HTTPS: the ingest tokens of Health Auto Export, exactly once, the one error
/// vocabulary, its audit entry (counts, never a value).
@Suite struct HealthConnectEndpointTests {
    static let body = Array(#"""
    {"timestamp":"2024-03-05T09:15:02Z","app_version":"2.4.1",
     "steps":[{"count":1200,"start_time":"2024-03-04T07:00:00Z","end_time":"2024-03-04T08:00:00Z",
               "metadata":{"data_origin":"com.google.android.apps.fitness","recording_method":1}}],
     "heart_rate":[{"bpm":64,"time":"2024-03-04T07:10:00Z","metadata":{"data_origin":"com.sec.android.app.shealth"}}]}
    """#.utf8)

    @Test func aPushIsStoredOnceWithTheIngestTokensAndRefusedWithout() async throws {
        try await Harness.inProcess { harness in
            let token = try harness.state.createIngestToken(name: "pixel")
            try await harness.server.service.updateGrants(GrantsUpdate(principal: "ingest:pixel",
                                                                       allowWrite: ["stepCount", "heartRate"]))
            let path = PairedAPIServer.healthConnectIngestPath
            let first = try await harness.send("POST", path, token: token, headers: [("Content-Type", "application/json")],
                                               body: Self.body)
            #expect(first.status == 200)
            try OpenAPITests().check(first, "POST", "/api/v1/ingest/health-connect")
            #expect(first.json?["inserted"]?.intValue == 2 && first.json?["format"]?.stringValue == "health-connect")
            let again = try await harness.send("POST", path, token: token, headers: [("Content-Type", "application/json")],
                                               body: Self.body)
            #expect(again.status == 200 && again.json?["inserted"]?.intValue == 0 && again.json?["unchanged"]?.intValue == 2)
            let wrong = try await harness.send("POST", path, token: "not-a-token", headers: [], body: Self.body)
            #expect(wrong.status == 401)
            let bad = try await harness.send("POST", path, token: token, headers: [], body: Array("{\"steps\":[".utf8))
            #expect(bad.status == 400)
            await harness.server.audit.flush()
            let writes = try harness.state.auditEvents(limit: 50).filter { $0.event == .dataWrite }
            let entry = try #require(writes.first)
            #expect(entry.client == "ingest:pixel" && entry.detail?.batch?["format"] == "health-connect")
        }
    }
}
