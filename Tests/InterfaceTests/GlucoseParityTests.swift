import Foundation
import HealthAPI
import HealthModel
import HealthService
import HealthStore
import MCP
import Testing

/// Blood glucose through the generic quantity write on every interface: the CLI (`healthbridge log bloodGlucose …`),
/// MCP (`log_quantity`), the paired API (`POST /api/v1/log`) and the node (`health.write`), in mg/dL and mmol/L with
/// meal time; every reading reads back through all four, and bad readings are refused with the same code everywhere.
@Suite("Glucose across interfaces", .serialized)
struct GlucoseParityTests {
    @Test func glucoseIsAFirstClassWriteEverywhere() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-glucose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let store = try SQLiteHealthStore(location: .file(home.appendingPathComponent("health.sqlite")))
        try await store.setSetting(HealthService.homeTimeZoneSetting, "UTC")
        let service = try await HealthService.open(store: store)
        let https = try await HTTPSInterface.start(service: service, grantAll: false)
        defer { Task { await https.stop() } }
        for principal in ["mcp", "gateway", Principal.device(https.clientId).id] {
            try await service.updateGrants(GrantsUpdate(principal: principal, allowRead: ["*"], allowWrite: ["bloodGlucose"]))
        }
        let day = "2026-01-05"

        // Each interface writes one reading; a retry with its log id changes nothing.
        for _ in 0..<2 {
            let cli = try await CLI.run(["log", "bloodGlucose", "180", "--unit", "mg/dL", "--at", "\(day)T08:00:00Z",
                                         "--metadata", "meal_time=postprandial", "--log-id", "cli-g", "--json"], home: home)
            #expect(cli.status == 0, "\(cli.stderr)")
            let mcp = try await MCPInterface.call("log_quantity", [
                "type": "bloodGlucose", "value": 7.8, "unit": "mmol/L", "at": .string("\(day)T13:00:00Z"),
                "metadata": ["meal_time": "postprandial"], "log_id": "mcp-g"], service: service)
            #expect(mcp.ok, "\(mcp.value)")
            let api = try await https.send("POST", "/api/v1/log", body: [
                "type": "glucose", "value": .number(5.5), "unit": "mmol/L", "at": .string("\(day)T18:00:00Z"),
                "metadata": ["meal_time": "preprandial"], "log_id": "api-g"])
            #expect(api.status == 200, "\(api.value)")
            let node = try await NodeInterface.invoke("health.write", [
                "type": "bloodGlucose", "value": 95, "unit": "mg/dL", "startISO": .string("\(day)T06:00:00Z"),
                "metadata": ["meal_time": "1"], "logId": "node-g"], service: service, writes: true)
            #expect(node.ok, "\(node.value)")
        }

        // Read back through every interface, in mg/dL, oldest first.
        let expected = [95, 180, 7.8 * 18.015588, 5.5 * 18.015588]
        func values(_ list: [JSONValue]?) -> [Double] { (list ?? []).compactMap { $0["value"]?.doubleValue } }
        func close(_ got: [Double]) -> Bool { got.count == expected.count && zip(got, expected).allSatisfy { abs($0 - $1) < 1e-6 } }
        let end = "2026-01-06"
        let cli = try await CLI.run(["query", "--type", "bloodGlucose", "--from", day, "--to", end, "--ascending", "--json"], home: home)
        #expect(close(values(cli.json?["samples"]?.arrayValue)), "\(cli.stdout)")
        let mcp = try await MCPInterface.call("query_samples", ["type": "bloodGlucose", "start": .string(day), "end": .string(end),
                                                                "order": "asc"], service: service)
        #expect(close(values(mcp.value["samples"]?.arrayValue)), "\(mcp.value)")
        let api = try await https.get("/api/v1/health/data?types=bloodGlucose&start=\(day)&end=\(end)")
        #expect(Set(values(api.value["samples"]?.arrayValue).map { ($0 * 10).rounded() / 10 }) == [95, 180, 140.5, 99.1])
        let node = try await NodeInterface.invoke("health.query", ["type": "bloodGlucose", "startISO": .string(day),
                                                                   "endISO": .string(end), "ascending": true], service: service)
        #expect(close(values(node.value["samples"]?.arrayValue)), "\(node.value)")
        // Meal time round-trips as HealthKit's metadata.
        let stored = try await service.samples(SamplesRequest(type: "bloodGlucose", start: day, end: end, ascending: true)).samples
        #expect(stored.map { $0.metadata?["HKMetadataKeyBloodGlucoseMealTime"] } == ["1", "2", "2", "1"])
        #expect(stored.map(\.unit) == Array(repeating: "mg/dL", count: 4))

        // Out of bounds and a wrong unit: the write's codes on every interface, nothing stored.
        for (value, unit, code) in [(5.0, "mg/dL", "HEALTH_INVALID_ARGUMENT"), (100.0, "kg", "HEALTH_INVALID_UNIT")] {
            let cli = try await CLI.run(["log", "bloodGlucose", String(value), "--unit", unit, "--json"], home: home)
            #expect(cli.status == 1)
            #expect(cli.errorJSON?["error"]?["code"]?.stringValue == code, "CLI: \(cli.stderr)")
            let mcp = try await MCPInterface.call("log_quantity", ["type": "bloodGlucose", "value": .double(value),
                                                                   "unit": .string(unit)], service: service)
            #expect(!mcp.ok && mcp.value["error"]?["code"]?.stringValue == code, "MCP: \(mcp.value)")
            let api = try await https.send("POST", "/api/v1/log", body: ["type": "bloodGlucose", "value": .number(value),
                                                                         "unit": .string(unit)])
            #expect(api.status == 400 && api.value["error"]?["code"]?.stringValue == code, "HTTPS: \(api.value)")
            let node = try await NodeInterface.invoke("health.write", ["type": "bloodGlucose", "value": .number(value),
                                                                       "unit": .string(unit)], service: service, writes: true)
            #expect(!node.ok && node.value["code"]?.stringValue == code, "node: \(node.value)")
        }
        #expect(try await service.samples(SamplesRequest(type: "bloodGlucose", start: day, end: end)).samples.count == 4)
    }
}
