import Foundation
import HealthAPI
import HealthMCP
import HealthModel
@testable import HealthService
import HealthStore
import MCP
import Testing

/// The write tools: consent first, idempotent by log id, deletes, the change feed — each result matching its schema.
@Suite("MCP writes")
struct WriteToolTests {
    func call(_ toolbox: HealthToolbox, _ name: String, _ arguments: [String: Value]) async throws -> (ok: Bool, value: [String: Value]) {
        let result = await toolbox.call(name, arguments: arguments)
        let structured = result.structuredContent?.objectValue ?? [:]
        if result.isError != true, let schema = toolbox.tools.first(where: { $0.name == name })?.outputSchema {
            #expect(SchemaChecker.check(.object(structured), against: schema).isEmpty, "\(name)")
        }
        return (result.isError != true, structured)
    }

    @Test func aMealLoggedByAnAgentNeedsAGrantIsWrittenOnceAndDeletedByItsLogId() async throws {
        let service = HealthService(store: try SQLiteHealthStore.inMemory(), homeTimeZone: Fixture.utc, clock: { Fixture.end })
        let toolbox = HealthToolbox(service: service)
        let meal: [String: Value] = ["log_id": "lunch-7", "name": "Salad", "calories": 450, "protein": 20, "carbs": 30,
                                     "fat": 25, "at": "2024-05-15T11:00:00Z"]
        let refused = try await call(toolbox, "log_food", meal)
        #expect(!refused.ok)
        #expect(refused.value["error"]?.objectValue?["code"]?.stringValue == "HEALTH_NOT_AUTHORIZED")
        #expect(refused.value["error"]?.objectValue?["message"]?.stringValue?.contains("healthbridge grants mcp:default --allow-write dietaryEnergyConsumed") == true,
                "a meal is authorized through its nutrients, never a food grant")
        #expect(try await service.store.typeSummaries().isEmpty, "a refused write changes nothing")

        try await service.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: [
            "dietaryEnergyConsumed", "dietaryProtein", "dietaryCarbohydrates", "dietaryFatTotal", "bodyMass", "workout"]))
        let first = try await call(toolbox, "log_food", meal)
        #expect(first.ok)
        #expect(first.value["inserted"]?.intValue == 5)
        let retry = try await call(toolbox, "log_food", meal)
        #expect(retry.value["unchanged"]?.intValue == 5)
        let total = try await call(toolbox, "summarize", ["type": "dietaryEnergyConsumed", "start": "2024-05-15", "interval": "total"])
        #expect(total.value["buckets"]?.arrayValue?.first?.objectValue?["sum"]?.intValue == 450)

        let changes = try await call(toolbox, "get_changes", ["types": ["dietaryEnergyConsumed"]])
        #expect(changes.value["added"]?.arrayValue?.count == 1)
        let anchor = try #require(changes.value["anchor"])
        let deleted = try await call(toolbox, "delete_entries", ["log_id": "lunch-7"])
        #expect(deleted.value["deleted"]?.intValue == 5)
        let after = try await call(toolbox, "get_changes", ["types": ["dietaryEnergyConsumed"], "anchor": anchor])
        #expect(after.value["deleted"]?.arrayValue?.count == 1)

        let weight = try await call(toolbox, "log_weight", ["value": 165, "unit": "lb", "sync_id": "scale-1"])
        #expect(weight.ok)
        let bad = try await call(toolbox, "log_weight", ["value": "heavy"])
        #expect(bad.value["error"]?.objectValue?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        let run = try await call(toolbox, "log_workout", ["activity": "runing", "start": "2024-05-15T06:00:00Z",
                                                          "end": "2024-05-15T06:30:00Z"])
        #expect(run.value["error"]?.objectValue?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        #expect(run.value["error"]?.objectValue?["message"]?.stringValue?.contains("running") == true)
    }
}
