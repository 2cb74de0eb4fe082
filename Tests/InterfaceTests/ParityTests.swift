import HealthAPI
import PairedAPI
import Foundation
import HealthModel
import MCP
import Testing

/// The same questions through the four interfaces — the CLI (the built binary), MCP, the HTTPS API and the
/// OpenClaw node — give the same numbers, and the same bad input the same code: each is an adapter on
/// `HealthService`, and this test fails the day one of them computes something on its own.
@Suite("Interface parity", .serialized)
struct ParityTests {
    static let month = (start: "2025-12-10", end: "2026-01-10")

    @Test func aMonthOfMergedStepsAndHeartRate() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        for type in ["stepCount", "heartRate"] {
            let statistics = type == "stepCount" ? ["sum"] : ["average", "min", "max"]
            func figures(_ buckets: [JSONValue]?, start: String = "start", keys: [String]) -> [[String: Double?]] {
                (buckets ?? []).map { bucket in
                    var row: [String: Double?] = ["start": bucket[start]?.stringValue.flatMap(ISO8601.date)?.timeIntervalSince1970]
                    for (key, name) in zip(keys, statistics) { row[name] = bucket[key]?.doubleValue }
                    return row
                }
            }
            let cli = try await CLI.run(["summary", "--type", type, "--from", Self.month.start, "--to", Self.month.end, "--json"])
            #expect(cli.status == 0, "\(cli.stderr)")
            let mcp = try await MCPInterface.call("summarize", ["type": .string(type), "start": .string(Self.month.start),
                                                                "end": .string(Self.month.end)])
            #expect(mcp.ok)
            let api = try await https.get("/api/v1/health/statistics?type=\(type)&start=\(Self.month.start)&end=\(Self.month.end)")
            #expect(api.status == 200, "\(api.value)")
            let node = try await NodeInterface.invoke("health.summary", ["type": .string(type), "startISO": .string(Self.month.start),
                                                                         "endISO": .string(Self.month.end), "interval": "day"])
            #expect(node.ok, "\(node.value)")

            let reference = figures(cli.json?["buckets"]?.arrayValue, keys: statistics)
            #expect(reference.count == 31)
            #expect(reference.filter { ($0[statistics[0]] ?? nil) != nil }.count >= 28, "the month has data")
            #expect(figures(mcp.value["buckets"]?.arrayValue, keys: statistics) == reference, "MCP \(type)")
            #expect(figures(api.value["buckets"]?.arrayValue, keys: statistics) == reference, "HTTPS \(type)")
            #expect(figures(node.value["statistics"]?.arrayValue, start: "startISO", keys: statistics) == reference, "node \(type)")
            #expect(cli.json?["merged"] == .bool(type == "stepCount"))
        }
    }

    /// Energy in and out: the same days and figures from the CLI, MCP and the HTTPS API.
    @Test func energyInAndOut() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        func days(_ list: [JSONValue]?) -> [String: [Double?]] {
            Dictionary(uniqueKeysWithValues: (list ?? []).compactMap { day in
                guard let date = day["date"]?.stringValue else { return nil }
                return (date, ["eaten_kcal", "active_kcal", "basal_kcal", "burned_kcal", "balance_kcal"].map { day[$0]?.doubleValue })
            })
        }
        let cli = try await CLI.run(["energy", "--from", Self.month.start, "--to", Self.month.end, "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = days(cli.json?["days"]?.arrayValue)
        #expect(reference.count == 31)
        #expect(reference.values.contains { ($0[3] ?? nil) != nil }, "the month has active and resting energy")
        let mcp = try await MCPInterface.call("energy_balance", ["start": .string(Self.month.start), "end": .string(Self.month.end)])
        #expect(mcp.ok)
        #expect(days(mcp.value["days"]?.arrayValue) == reference, "MCP")
        let api = try await https.get("/api/v1/health/energy?start=\(Self.month.start)&end=\(Self.month.end)")
        #expect(api.status == 200, "\(api.value)")
        #expect(days(api.value["days"]?.arrayValue) == reference, "HTTPS")
    }

    @Test func sleepNights() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        let (start, end) = ("2025-12-20", "2026-01-10")
        func nights(_ list: [JSONValue]?, asleep: String) -> [String: Double] {
            Dictionary(uniqueKeysWithValues: (list ?? []).compactMap { night in
                guard let date = night["date"]?.stringValue, let minutes = night[asleep]?.doubleValue else { return nil }
                return (date, minutes)
            })
        }
        let cli = try await CLI.run(["sleep", "--from", start, "--to", end, "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = nights(cli.json?["nights"]?.arrayValue, asleep: "asleep_minutes")
        // Wake-up days 2025-12-20 … 2026-01-09: the end at midnight leaves 2026-01-10's night out.
        #expect(reference.count == 21)
        #expect(reference.keys.min() == "2025-12-20" && reference.keys.max() == "2026-01-09")
        let mcp = try await MCPInterface.call("sleep_nights", ["start": .string(start), "end": .string(end)])
        #expect(nights(mcp.value["nights"]?.arrayValue, asleep: "asleep_minutes") == reference)
        let api = try await https.get("/api/v1/health/sleep?start=\(start)&end=\(end)")
        #expect(nights(api.value["nights"]?.arrayValue, asleep: "asleep_minutes") == reference)
        let node = try await NodeInterface.invoke("health.sleep", ["startISO": .string(start), "endISO": .string(end)])
        #expect(nights(node.value["nights"]?.arrayValue, asleep: "asleepMinutes") == reference)
    }

    @Test func aPageOfSamples() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        let (start, end) = ("2026-01-05T08:00:00+01:00", "2026-01-06")
        func page(_ list: [JSONValue]?, date: String) -> [[Double?]] {
            (list ?? []).map { [($0[date]?.stringValue).flatMap(ISO8601.date)?.timeIntervalSince1970, $0["value"]?.doubleValue] }
        }
        let cli = try await CLI.run(["query", "--type", "heartRate", "--from", start, "--to", end, "--limit", "20",
                                     "--ascending", "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = page(cli.json?["samples"]?.arrayValue, date: "start")
        #expect(reference.count == 20)
        let mcp = try await MCPInterface.call("query_samples", ["type": "heartRate", "start": .string(start),
                                                                "end": .string(end), "limit": 20, "order": "asc"])
        #expect(page(mcp.value["samples"]?.arrayValue, date: "start") == reference)
        let api = try await https.get("/api/v1/health/data?types=heartRate&start=\(start.queryEncoded)&end=\(end)&limit=20")
        #expect(page(api.value["samples"]?.arrayValue, date: "dateISO") == reference)
        let query = try await https.send("POST", "/api/v1/health/samples/query", body: [
            "type": "heartRate", "start": .string(start), "end": .string(end), "limit": 20, "ascending": true])
        #expect(query.status == 200 && page(query.value["samples"]?.arrayValue, date: "start") == reference,
                "the paired sample query (HKSampleQuery)")
        let node = try await NodeInterface.invoke("health.query", ["type": "heartRate", "startISO": .string(start),
                                                                   "endISO": .string(end), "limit": 20, "ascending": true])
        #expect(page(node.value["samples"]?.arrayValue, date: "dateISO") == reference)
    }

    @Test func badInputGetsTheSameCodeEverywhere() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        struct Case {
            var code: String
            var cli: [String]
            var mcp: (String, [String: Value])
            var https: String
            var node: (String, [String: JSONValue])
        }
        let cases = [
            Case(code: "HEALTH_INVALID_TYPE", cli: ["summary", "--type", "stepz"],
                 mcp: ("summarize", ["type": "stepz"]), https: "/api/v1/health/statistics?type=stepz",
                 node: ("health.summary", ["type": "stepz"])),
            Case(code: "HEALTH_INVALID_RANGE", cli: ["sleep", "--from", "2026-01-05", "--to", "2026-01-01"],
                 mcp: ("sleep_nights", ["start": "2026-01-05", "end": "2026-01-01"]),
                 https: "/api/v1/health/sleep?start=2026-01-05&end=2026-01-01",
                 node: ("health.sleep", ["startISO": "2026-01-05", "endISO": "2026-01-01"])),
            Case(code: "HEALTH_INVALID_ARGUMENT", cli: ["query", "--type", "heartRate", "--limit", "0"],
                 mcp: ("query_samples", ["type": "heartRate", "limit": 0]),
                 https: "/api/v1/health/data?types=heartRate&limit=0",
                 node: ("health.query", ["type": "heartRate", "limit": 0])),
            Case(code: "HEALTH_INVALID_RANGE", cli: ["summary", "--type", "stepCount", "--from", "last tuesday"],
                 mcp: ("summarize", ["type": "stepCount", "start": "last tuesday"]),
                 https: "/api/v1/health/statistics?type=stepCount&start=last%20tuesday",
                 node: ("health.summary", ["type": "stepCount", "startISO": "last tuesday"])),
            Case(code: "HEALTH_NO_SUMMARY", cli: ["summary", "--type", "sleepAnalysis"],
                 mcp: ("summarize", ["type": "sleepAnalysis"]), https: "/api/v1/health/statistics?type=sleepAnalysis",
                 node: ("health.summary", ["type": "sleepAnalysis"])),
        ]
        for item in cases {
            let cli = try await CLI.run(item.cli + ["--json"])
            #expect(cli.status == 1, "\(item.cli)")
            #expect(cli.errorJSON?["error"]?["code"]?.stringValue == item.code, "CLI \(item.cli): \(cli.stderr)")
            #expect(cli.stdout.isEmpty)
            let mcp = try await MCPInterface.call(item.mcp.0, item.mcp.1)
            #expect(!mcp.ok)
            #expect(mcp.value["error"]?["code"]?.stringValue == item.code, "MCP \(item.mcp)")
            let api = try await https.get(item.https)
            #expect(api.status == 400)
            #expect(api.value["error"]?["code"]?.stringValue == item.code, "HTTPS \(item.https)")
            let node = try await NodeInterface.invoke(item.node.0, item.node.1)
            #expect(!node.ok)
            #expect(node.value["code"]?.stringValue == item.code, "node \(item.node)")
        }
    }
}
