import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthService
import HealthStore
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
        let rows = result.types.map { type in
            [type.type, type.kind, TextFormat.number(Double(type.count)),
             TextFormat.localDay(type.first ?? "?") + " → " + TextFormat.localDay(type.last ?? "?"),
             type.unit ?? "", type.statistics.joined(separator: "/")]
        }
        var text = "\(result.count) types in the store (time zone \(result.timeZone), now \(TextFormat.local(result.now))):\n"
        text += result.types.isEmpty
            ? "The store is empty: import an Apple Health export or run `healthbridge demo`."
            : TextFormat.table(["type", "kind", "samples", "span", "unit", "statistics"], rows)
        return ToolReply(structured: try structured(result), text: text)
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
        var text: String
        if let type = result.type {
            text = result.sources.isEmpty
                ? "No source has \(type) samples."
                : "Sources of \(type), highest priority first (\(result.userOrdered == true ? "set by the user" : "default order")); where they overlap, statistics count only the highest:\n"
        } else {
            text = result.sources.isEmpty ? "No sources: the store is empty." : "Sources, by sample count:\n"
        }
        text += result.sources.map { source in
            "\(source.rank.map { "\($0). " } ?? "- ")\(source.name) — \(source.category), \(TextFormat.number(Double(source.count))) samples"
        }.joined(separator: "\n")
        return ToolReply(structured: try structured(result), text: text)
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
        guard result.found else {
            return ToolReply(structured: try structured(result), text: "No \(result.type) samples in the store.")
        }
        let value = result.value.map { "\(TextFormat.number($0, decimals: 2)) \(result.unit ?? "")" } ?? result.category ?? "no value"
        let age = result.ageHours ?? 0
        let ago = age < 48 ? "\(TextFormat.number(age, decimals: 1)) h ago" : "\(TextFormat.number(age / 24, decimals: 1)) days ago"
        var text = "Latest \(result.type): \(value) at \(TextFormat.local(result.start)) (\(result.timeZone)), from \(result.source ?? "?"), \(ago)."
        if let note = result.note { text += "\nNote: \(note)." }
        return ToolReply(structured: try structured(result), text: text)
    }
}
