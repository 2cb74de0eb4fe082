import HealthAPI
import PairedAPI
import Foundation
import HealthModel
@testable import HealthService
import HealthStore
import MCP
import Testing

/// A meal logged through each interface reads back through every other one, deletes by its log id to nothing,
/// and the change feed shows the additions and then the tombstones.
@Suite("Writes across interfaces", .serialized)
struct WriteParityTests {
    @Test func aMealLoggedAnywhereReadsBackEverywhere() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-writes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let store = try SQLiteHealthStore(location: .file(home.appendingPathComponent("health.sqlite")))
        try await store.setSetting(HealthService.homeTimeZoneSetting, "UTC")
        let service = try await HealthService.open(store: store)
        let https = try await HTTPSInterface.start(service: service, grantAll: false)
        defer { Task { await https.stop() } }
        // A meal is authorized through its nutrients (HealthKit's rule): no food grant.
        let nutrients = ["dietaryEnergyConsumed", "dietaryProtein", "dietaryCarbohydrates", "dietaryFatTotal"]
        try await service.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: nutrients))
        try await service.updateGrants(GrantsUpdate(principal: Principal.device(https.clientId).id, allowRead: ["*"],
                                                    allowWrite: nutrients))
        let day = "2026-01-05"
        func calories() async throws -> [Double?] {
            let cli = try await CLI.run(["summary", "--type", "dietaryEnergyConsumed", "--from", day, "--to", "2026-01-06",
                                         "--interval", "total", "--json"], home: home)
            let mcp = try await MCPInterface.call("summarize", ["type": "dietaryEnergyConsumed", "start": .string(day),
                                                                "end": "2026-01-06", "interval": "total"], service: service)
            let api = try await https.get("/api/v1/health/statistics?type=dietaryEnergyConsumed&start=\(day)&end=2026-01-06&interval=total")
            let node = try await NodeInterface.invoke("health.summary", ["type": "dietaryEnergyConsumed", "startISO": .string(day),
                                                                         "endISO": "2026-01-06"], service: service)
            return [cli.json?["buckets"]?.arrayValue?.first?["sum"]?.doubleValue,
                    mcp.value["buckets"]?.arrayValue?.first?["sum"]?.doubleValue,
                    api.value["buckets"]?.arrayValue?.first?["sum"]?.doubleValue,
                    node.value["statistics"]?.arrayValue?.first?["sum"]?.doubleValue]
        }
        let anchor = try await service.changes(ChangesRequest()).anchor

        // The CLI (the owner), MCP and HTTPS each log a meal; every retry changes nothing.
        for _ in 0..<2 {
            let cli = try await CLI.run(["log", "food", "--log-id", "cli-1", "--at", "\(day)T08:00:00Z", "--name", "Eggs",
                                         "--calories", "300", "--protein", "20", "--carbs", "2", "--fat", "22", "--json"], home: home)
            #expect(cli.status == 0, "\(cli.stderr)")
            let mcp = try await MCPInterface.call("log_food", ["log_id": "mcp-1", "at": .string("\(day)T12:00:00Z"), "name": "Soup",
                                                               "calories": 200, "protein": 8, "carbs": 25, "fat": 6], service: service)
            #expect(mcp.ok, "\(mcp.value)")
            let api = try await https.send("POST", "/api/v1/log/food", body: [
                "log_id": "api-1", "logged_at": .string("\(day)T19:00:00Z"), "name": "Pasta", "calories": 650, "protein": 22,
                "carbs": 90, "fat": 18])
            #expect(api.status == 200, "\(api.value)")
        }
        #expect(try await calories() == [1150, 1150, 1150, 1150])
        let samples = try await https.get("/api/v1/health/data?types=dietaryEnergyConsumed&start=\(day)&end=2026-01-06")
        #expect(samples.value["samples"]?.arrayValue?.compactMap { $0["source"]?.stringValue }.sorted()
                == ["HealthBridge", "HealthBridge (device:\(https.clientId))", "HealthBridge (mcp:default)"])

        // A client deletes only its own entries; each deletes to nothing by its log id.
        let foreign = try await https.send("DELETE", "/api/v1/log/cli-1")
        #expect(foreign.value["deleted"]?.doubleValue == 0, "the owner's meal is not the device's to delete")
        let byAPI = try await https.send("DELETE", "/api/v1/log/api-1")
        #expect(byAPI.status == 200 && byAPI.value["deleted"]?.doubleValue == 5)
        let byMCP = try await MCPInterface.call("delete_entries", ["log_id": "mcp-1"], service: service)
        #expect(byMCP.value["deleted"]?.doubleValue == 5)
        let byCLI = try await CLI.run(["delete", "--log-id", "cli-1", "--json"], home: home)
        #expect(byCLI.json?["deleted"]?.doubleValue == 5)
        #expect(try await calories() == [nil, nil, nil, nil])

        // The change feed: 12 nutrient samples added, then 15 tombstones (nutrients and correlations), in order.
        let feed = try await https.get("/api/v1/health/changes?anchor=\(anchor)&limit=100")
        #expect(feed.status == 200)
        #expect(feed.value["added"]?.arrayValue?.count == 0, "added then deleted: only the tombstones remain")
        #expect(feed.value["deleted"]?.arrayValue?.count == 15)
    }

    /// Several objects by UUID in one transaction (HealthKit's `delete([HKObject])`) where it is offered: MCP's
    /// `delete_entries` and the paired `POST /api/v1/health/delete` answer alike; another writer's UUID is skipped by
    /// neither, it refuses the delete.
    @Test func severalObjectsDeleteAlikeThroughMCPAndHTTPS() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-uuids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let service = try await HealthService.open(store: try SQLiteHealthStore(location: .file(home.appendingPathComponent("health.sqlite"))))
        let https = try await HTTPSInterface.start(service: service, grantAll: false)
        defer { Task { await https.stop() } }
        try await service.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["dietaryWater"]))
        try await service.updateGrants(GrantsUpdate(principal: Principal.device(https.clientId).id, allowWrite: ["dietaryWater"]))
        var mcpUUIDs: [String] = [], apiUUIDs: [String] = []
        for index in 0..<2 {
            let mcp = try await MCPInterface.call("log_water", ["value": 250, "log_id": .string("m-\(index)")], service: service)
            mcpUUIDs += mcp.value["objects"]?.arrayValue?.compactMap { $0["uuid"]?.stringValue } ?? []
            let api = try await https.send("POST", "/api/v1/log/water", body: ["value": 250, "log_id": .string("a-\(index)")])
            apiUUIDs += api.value["objects"]?.arrayValue?.compactMap { $0["uuid"]?.stringValue } ?? []
        }
        #expect(mcpUUIDs.count == 2 && apiUUIDs.count == 2)
        let unknown = UUID().uuidString
        let foreign = try await https.send("POST", "/api/v1/health/delete", body: ["uuids": .array((apiUUIDs + [mcpUUIDs[0]]).map { .string($0) })])
        #expect(foreign.status == 403 && foreign.value["error"]?["code"]?.stringValue == "HEALTH_NOT_AUTHORIZED")
        let mcp = try await MCPInterface.call("delete_entries", ["uuids": .array((mcpUUIDs + [unknown]).map { .string($0) })],
                                              service: service)
        let api = try await https.send("POST", "/api/v1/health/delete", body: ["uuids": .array((apiUUIDs + [unknown]).map { .string($0) })])
        #expect(api.status == 200)
        for (name, value) in [("MCP", mcp.value), ("HTTPS", api.value)] {
            #expect(value["deleted"]?.doubleValue == 2, "\(name): \(value)")
            #expect(value["uuids"]?.arrayValue?.count == 2, "\(name): the unknown UUID is skipped")
        }
        #expect(try await service.store.typeSummaries().allSatisfy { $0.count == 0 }, "everything deleted")
    }

    @Test func writesWithoutAGrantChangeNothing() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-denied-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let service = try await HealthService.open(store: try SQLiteHealthStore(location: .file(home.appendingPathComponent("health.sqlite"))))
        let https = try await HTTPSInterface.start(service: service, grantAll: false)
        defer { Task { await https.stop() } }
        let api = try await https.send("POST", "/api/v1/log/water", body: ["value": 250, "log_id": "w-1"])
        #expect(api.status == 403)
        #expect(api.value["error"]?["code"]?.stringValue == "HEALTH_NOT_AUTHORIZED")
        let mcp = try await MCPInterface.call("log_weight", ["value": 70], service: service)
        #expect(mcp.value["error"]?["code"]?.stringValue == "HEALTH_NOT_AUTHORIZED")
        let undeclared = try await NodeInterface.invoke("health.write", ["type": "dietaryWater", "value": 250], service: service)
        #expect(!undeclared.ok)
        #expect(undeclared.value["code"]?.stringValue == "INVALID_REQUEST", "not declared unless the owner enables writes")
        let node = try await NodeInterface.invoke("health.write", ["type": "dietaryWater", "value": 250], service: service,
                                                  writes: true)
        #expect(node.value["code"]?.stringValue == "HEALTH_NOT_AUTHORIZED")
        #expect(try await service.store.typeSummaries().isEmpty)
        #expect(!NodeCommands.reads.contains("health.write") && NodeCommands.all.contains("health.delete"))

        // With the owner's grant, the node writes and deletes its own entries.
        try await service.updateGrants(GrantsUpdate(principal: "gateway", allowWrite: ["dietaryWater"]))
        let written = try await NodeInterface.invoke("health.write", ["samples": [["type": "dietaryWater", "value": .number(0.3), "unit": "L",
                                                                                   "logId": "g-1"]]], service: service, writes: true)
        #expect(written.ok, "\(written.value)")
        #expect(try await service.samples(SamplesRequest(type: "dietaryWater", start: "today")).samples.first?.value == 300)
        let deleted = try await NodeInterface.invoke("health.delete", ["logId": "g-1"], service: service, writes: true)
        #expect(deleted.value["deleted"]?.doubleValue == 1)
    }
}
