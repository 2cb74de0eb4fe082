import HealthAPI
import PairedAPI
import Foundation
@testable import HealthConsole
import HealthService
import Testing

/// The pages show the service's numbers: the Data page's merged step total is the CLI's
/// (`healthbridge summary --type stepCount --from 30d --interval total`), and a priority change is followed by both.
@Suite("Console pages")
struct ConsolePageTests {
    static func mergedTotal(_ body: String) -> String? {
        guard let range = body.range(of: "id=\"steps-merged-total\">") else { return nil }
        return String(body[range.upperBound...].prefix { $0 != "<" })
    }

    @Test func theDataPageShowsTheServiceNumbers() async throws {
        let h = try await ConsoleHarness.start(days: 30)
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()
        let page = try await h.send("GET", "/data?days=30", headers: [("Cookie", cookie)])
        #expect(page.status == 200)
        #expect(page.header("Server-Timing")?.hasPrefix("render;dur=") == true)
        let total = try await h.service.summary(SummaryRequest(type: "stepCount", start: "30d", interval: "total",
                                                               statistics: ["sum"]))
        let expected = Figure.format(try #require(total.buckets.first?.sum))
        #expect(Self.mergedTotal(page.body) == expected)
        for id in ["steps", "sleep", "resting", "weight", "energy"] {
            #expect(page.body.contains("<figure class=\"chart\" id=\"\(id)\">"), "\(id)")
        }
        #expect(page.body.contains("<title>"))
        #expect(page.body.contains("id=\"steps-sources\""))
    }

    @Test func movingASourceReordersTheMerge() async throws {
        let h = try await ConsoleHarness.start(days: 14)
        defer { h.stop() }
        let (cookie, csrf) = try await h.signIn()
        let sources = try await h.service.sources(SourcesRequest(type: "stepCount"))
        let order = sources.priorityOrder ?? sources.sources.map(\.name)
        #expect(order.count >= 2)
        let body = "type=stepCount&source=\(order[1].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&move=up&csrf=\(csrf)"
        let reply = try await h.send("POST", "/sources/move", headers: [
            ("Cookie", cookie), ("Origin", h.origin), ("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8))
        #expect(reply.status == 303)
        let after = try await h.service.sources(SourcesRequest(type: "stepCount"))
        #expect(after.priorityOrder?.first == order[1])
        #expect(after.userOrdered == true)
        // The page merges in the new order: its total is the service's (the CLI's) after the change.
        let total = try await h.service.summary(SummaryRequest(type: "stepCount", start: "30d", interval: "total",
                                                               statistics: ["sum"])).buckets.first?.sum
        let page = try await h.send("GET", "/data?days=30", headers: [("Cookie", cookie)])
        #expect(Self.mergedTotal(page.body) == total.map { Figure.format($0) })
        let sourcesPage = try await h.send("GET", "/sources", headers: [("Cookie", cookie)])
        #expect(sourcesPage.body.contains("Default order"))
    }

    @Test func everyPageRenders() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let (cookie, csrf) = try await h.signIn()
        for path in ["/", "/data", "/data?days=365", "/sources", "/access", "/pairing", "/people", "/audit", "/audit?event=data.read&since=7d", "/import"] {
            let reply = try await h.send("GET", path, headers: [("Cookie", cookie)])
            #expect(reply.status == 200, "\(path)")
            #expect(reply.body.hasPrefix("<!doctype html>"), "\(path)")
        }
        let badRange = try await h.send("GET", "/audit?since=tomorrowish", headers: [("Cookie", cookie)])
        #expect(badRange.status == 400)
        let code = try await h.send("POST", "/pairing/code", headers: [
            ("Cookie", cookie), ("Origin", h.origin), ("Content-Type", "application/x-www-form-urlencoded")],
                                    body: Array("csrf=\(csrf)".utf8))
        #expect(code.status == 200)
        #expect(code.body.contains("id=\"pairing-code\""))
        #expect(code.body.contains("<svg"))
        // Address and fingerprint are what `serve` supplies (the harness: no running API, a fixed fallback).
        #expect(code.body.contains("--host 192.0.2.10 --port 8443 "))
        #expect(code.body.contains("(the export API is not running)"))
        let fingerprint = try h.console.pairing.fingerprint()
        #expect(code.body.contains("--fingerprint \(fingerprint)"))
    }

    @Test func textFromTheStoreIsEscaped() {
        let name = "<script>alert('x')</script>"
        let cell: HTML = "<td>\(name)</td>"
        #expect(cell.text == "<td>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</td>")
    }
}
