import Foundation
import HealthAPI
import PairedAPIClient
import HealthHTTP
import Testing
@testable import PairedAPI

/// The paired API's middlewares, one concern each, in the order `makeRouter` adds them: which requests need which
/// token, and that every answer (refusals included) carries the request id and `Cache-Control: no-store`.
@Suite("Paired API middleware policy")
struct MiddlewarePolicyTests {
    @Test func pairingIsTheOnlyRouteWithoutAToken() async throws {
        // Every route is asked once without a token: no back-off for this address.
        try await Harness.inProcess({ $0.failedAuthRate = 0 }) { harness in
            let routes = harness.server.routes
            #expect(routes.contains(RouteEntry(method: "POST", path: "/api/v1/pair")))
            #expect(routes.contains(RouteEntry(method: "POST", path: PairedAPIServer.ingestPath)))
            for route in routes where route.path != "/api/v1/pair" && !PairedAPIServer.ingestPaths.contains(route.path) {
                let reply = try await harness.send(route.method, route.path.replacingOccurrences(of: "{uuid}", with: "x")
                    .replacingOccurrences(of: "{logId}", with: "x"))
                #expect(reply.status == 401, "\(route)")
                #expect(reply.header("WWW-Authenticate") == "Bearer realm=\"healthbridge\"", "\(route)")
            }
            // A receiver wants an ingest token; a paired client's is not one.
            let device = try await harness.pairDevice()
            let push = try await harness.send("POST", PairedAPIServer.ingestPath, token: device.token, body: Array("{}".utf8))
            #expect(push.status == 401 && push.errorCode == "HEALTH_UNAUTHENTICATED")
            #expect(push.json?["error"]?["message"]?.stringValue?.contains("ingest token") == true)
            // Another method on the public pairing path is simply not found, with or without a token.
            #expect(try await harness.send("GET", "/api/v1/pair").status == 404)
        }
    }

    @Test func everyAnswerCarriesTheRequestIdAndNoStore() async throws {
        try await Harness.inProcess { harness in
            let device = try await harness.pairDevice()
            let replies = [
                try await harness.send("GET", "/api/v1/status", token: device.token),
                try await harness.send("GET", "/api/v1/status"),
                try await harness.send("GET", "/api/v1/elsewhere", token: device.token),
                try await harness.send("GET", "/api/v1/status?" + String(repeating: "q", count: 9000), token: device.token),
            ]
            #expect(replies.map(\.status) == [200, 401, 404, 414])
            var ids = Set<String>()
            for reply in replies {
                let id = try #require(reply.header(PairedAPIProtocol.requestIDHeader))
                #expect(id.count == 24)
                ids.insert(id)
                #expect(reply.header("Cache-Control") == "no-store")
            }
            #expect(ids.count == replies.count)
        }
    }
}
