import HealthAPI
import PairedAPI
import Foundation
import HealthModel
import MCP
import Testing

/// Issue 25, every number explained: coverage and "which source won" give the same answer through the CLI, MCP,
/// the HTTPS API and the OpenClaw node.
@Suite("Coverage and contributions parity", .serialized)
struct CoverageParityTests {
    /// Before the demo's 40 days (which start about 2025-12-01) there is nothing: a gap every interface reports.
    static let range = (start: "2025-11-20", end: "2026-01-10")

    @Test func coverageIsTheSameEverywhere() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        func days(_ list: [JSONValue]?, start: String = "start", noData: String = "no_data") -> [[String?]] {
            (list ?? []).map { bucket in
                let sources = (bucket["sources"]?.arrayValue ?? []).map {
                    "\($0["source"]?.stringValue ?? "?")=\($0["count"]?.doubleValue ?? -1)"
                }
                return [bucket[start]?.stringValue.flatMap(ISO8601.date).map { "\($0.timeIntervalSince1970)" },
                        bucket["count"]?.doubleValue.map { "\($0)" }, bucket[noData] == .bool(true) ? "true" : "false",
                        sources.joined(separator: ",")]
            }
        }
        let cli = try await CLI.run(["coverage", "stepCount", "--start", Self.range.start, "--end", Self.range.end, "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = days(cli.json?["buckets"]?.arrayValue)
        #expect(reference.count == 51)
        #expect(reference.contains { $0[2] == "true" } && reference.contains { $0[2] == "false" })
        let gaps = cli.json?["gaps"]?.arrayValue ?? []
        #expect(!gaps.isEmpty)
        let mcp = try await MCPInterface.call("health_coverage", ["type": "stepCount", "start": .string(Self.range.start),
                                                                  "end": .string(Self.range.end)])
        #expect(mcp.ok, "\(mcp.value)")
        #expect(days(mcp.value["buckets"]?.arrayValue) == reference, "MCP")
        #expect(mcp.value["gaps"]?.arrayValue == gaps)
        let api = try await https.get("/api/v1/health/coverage?type=stepCount&start=\(Self.range.start)&end=\(Self.range.end)")
        #expect(api.status == 200, "\(api.value)")
        #expect(days(api.value["buckets"]?.arrayValue) == reference, "HTTPS")
        #expect(api.value["gaps"]?.arrayValue == gaps)
        let node = try await NodeInterface.invoke("health.coverage", ["type": "stepCount", "startISO": .string(Self.range.start),
                                                                      "endISO": .string(Self.range.end)])
        #expect(node.ok, "\(node.value)")
        #expect(days(node.value["buckets"]?.arrayValue, start: "startISO", noData: "noData") == reference, "node")
        #expect(node.value["gaps"]?.arrayValue?.count == gaps.count)

        // Bad input: the same code everywhere.
        let bad = try await CLI.run(["coverage", "stepCount", "--interval", "week", "--json"])
        #expect(bad.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        let badMCP = try await MCPInterface.call("health_coverage", ["type": "stepCount", "interval": "week"])
        #expect(badMCP.value["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        let badAPI = try await https.get("/api/v1/health/coverage?type=stepCount&interval=week")
        #expect(badAPI.status == 400 && badAPI.value["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        let badNode = try await NodeInterface.invoke("health.coverage", ["type": "stepCount", "interval": "week"])
        #expect(badNode.value["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
    }

    @Test func whichSourceWonIsTheSameEverywhere() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        let (start, end) = ("2025-12-10", "2026-01-10")
        func parts(_ list: [JSONValue]?, own: String = "own_total") -> [String: [Double]] {
            Dictionary(uniqueKeysWithValues: (list ?? []).compactMap { part in
                guard let source = part["source"]?.stringValue, let counted = part["contribution"]?.doubleValue,
                      let total = part[own]?.doubleValue else { return nil }
                return (source, [counted, total])
            })
        }
        let cli = try await CLI.run(["summary", "--type", "stepCount", "--from", start, "--to", end, "--contributions", "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = parts(cli.json?["contributions"]?.arrayValue)
        #expect(reference.count >= 2)
        let total = try #require(cli.json?["total_sum"]?.doubleValue)
        #expect(abs(reference.values.reduce(0) { $0 + $1[0] } - total) <= 1e-9 * total)
        #expect(reference.values.allSatisfy { $0[1] >= $0[0] * (1 - 1e-9) })
        let mcp = try await MCPInterface.call("summarize", ["type": "stepCount", "start": .string(start), "end": .string(end),
                                                            "contributions": true])
        #expect(mcp.ok, "\(mcp.value)")
        #expect(Self.close(parts(mcp.value["contributions"]?.arrayValue), reference), "MCP")
        let api = try await https.get("/api/v1/health/statistics?type=stepCount&start=\(start)&end=\(end)&contributions=true")
        #expect(api.status == 200, "\(api.value)")
        #expect(Self.close(parts(api.value["contributions"]?.arrayValue), reference), "HTTPS")
        let node = try await NodeInterface.invoke("health.summary", ["type": "stepCount", "startISO": .string(start),
                                                                     "endISO": .string(end), "contributions": true])
        #expect(node.ok, "\(node.value)")
        #expect(Self.close(parts(node.value["contributions"]?.arrayValue, own: "ownTotal"), reference), "node")
    }

    /// Pages add up in a different order than one pass: equal within 1e-9, relative.
    static func close(_ a: [String: [Double]], _ b: [String: [Double]]) -> Bool {
        a.keys.sorted() == b.keys.sorted() && a.allSatisfy { key, values in
            zip(values, b[key] ?? []).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) }
        }
    }
}
