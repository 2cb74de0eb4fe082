import HealthAPI
@testable import HealthMCP
import MCP
import Testing

/// The tools' output schemas are the contract's: each tool's `outputSchema` is exactly its result type's
/// `jsonSchema` (HealthAPI), so MCP, the OpenAPI document and the kit cannot drift apart. The other suites check
/// real results against these schemas.
@Suite("MCP schemas from the contract")
struct ContractSchemaTests {
    /// Each tool's result type, written here independently of the tool definitions.
    static var resultTypes: [String: any SchemaDescribed.Type] {
        [
            "list_types": TypesResult.self, "list_sources": SourcesResult.self, "query_samples": SamplesResult.self,
            "summarize": SummaryResult.self, "sleep_nights": SleepResult.self, "list_workouts": WorkoutsResult.self,
            "get_workout": WorkoutDetail.self, "activity_summaries": ActivitySummariesResult.self,
            "latest": LatestResult.self, "health_today": TodayResult.self, "energy_balance": EnergyResult.self,
            "health_coverage": CoverageResult.self, "log_food": WriteResult.self, "log_quantity": WriteResult.self,
            "log_weight": WriteResult.self, "log_water": WriteResult.self, "log_workout": WriteResult.self,
            "delete_entries": DeleteResult.self, "get_changes": ChangesResult.self,
        ]
    }

    @Test func everyOutputSchemaIsItsResultTypesSchema() async throws {
        let toolbox = HealthToolbox(service: try await Fixture.service())
        #expect(Set(toolbox.tools.map(\.name)) == Set(Self.resultTypes.keys))
        for tool in toolbox.tools {
            let type = try #require(Self.resultTypes[tool.name], "\(tool.name) has no result type")
            #expect(tool.outputSchema == Value(type.jsonSchema), "\(tool.name)")
        }
    }

    @Test func schemasCarryFormatsAndIntegers() throws {
        // The conversion keeps whole numbers integers (minimum, maximum) and the instants' format.
        let summary = Value(SummaryResult.jsonSchema)
        #expect(summary["properties"]?["start"]?["format"]?.stringValue == "date-time")
        let request = Value(SamplesRequest.jsonSchema)
        #expect(request["properties"]?["limit"]?["maximum"] == .int(SamplesRequest.maxLimit))
        #expect(summary["required"]?.arrayValue?.contains("has_more") == true)
    }
}
