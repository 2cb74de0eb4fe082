import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// list_types, list_sources, latest: what is in the store.

extension HealthToolbox {
    // MARK: list_types

    static let listTypes = ToolDefinition(
        name: "list_types", title: "List health data types",
        description: """
            Lists the health data types present in the store with their sample counts, first and last dates, units, \
            and which statistics summarize accepts for each. Call it first when unsure which types exist or what they \
            are called. Also gives the user's home time zone and the current time.
            """,
        arguments: [:],
        output: TypesResult.self
    ) { toolbox, _ in
        let result = try await toolbox.service.types()
        return ToolReply(structured: try structured(result), text: result.text)
    }

    // MARK: list_sources

    static let listSources = ToolDefinition(
        name: "list_sources", title: "List data sources and their priority",
        description: """
            Lists the sources (devices such as an iPhone or Apple Watch, and apps) that recorded data. With `type`, \
            lists the sources of that type in the priority order its statistics merge by: where sources overlap in \
            time, only the highest-priority one counts, as in Apple Health. Without `type`, lists every source with \
            its sample count.
            """,
        arguments: ["type": Schema.typeArgument],
        output: SourcesResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.sources(SourcesRequest(type: try arguments.string("type")))
        return ToolReply(structured: try structured(result), text: result.text)
    }

    // MARK: latest

    static let latest = ToolDefinition(
        name: "latest", title: "Most recent value of a type",
        description: """
            The most recent sample of a type — e.g. the last weight (bodyMass), resting heart rate, VO2 max or blood \
            oxygen — with its value in the type's unit, its date, source and age. For totals (steps, energy) use \
            summarize or health_today instead: one sample of a cumulative type is only a fragment.
            """,
        arguments: [
            "type": Schema.typeArgument,
            "source": Schema.string("Only this source (a name from list_sources)."),
        ],
        required: ["type"],
        output: LatestResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.latest(LatestRequest(
            type: try arguments.requiredString("type", hint: "the type whose latest value you want, e.g. bodyMass"),
            sources: try arguments.strings("source")))
        return ToolReply(structured: try structured(result), text: result.text)
    }
}
