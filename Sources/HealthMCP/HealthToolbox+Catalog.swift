import Foundation
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
        output: Schema.object([
            "time_zone": Schema.string("The user's home time zone; dates are shown in it."),
            "now": Schema.isoString,
            "count": Schema.integer(),
            "types": Schema.array(Schema.object([
                "type": Schema.string("Identifier to pass as `type` to the other tools."),
                "kind": Schema.string(oneOf: ["quantity", "category", "correlation", "workout"]),
                "display_name": Schema.string(),
                "count": Schema.integer("Samples stored."),
                "first": Schema.isoString,
                "last": Schema.isoString,
                "unit": Schema.string("The unit values are reported in (quantity types)."),
                "recorded_units": Schema.array(Schema.string(), "Units the samples were recorded in."),
                "aggregation": Schema.string("cumulative values add up (steps); discrete ones are levels (heart rate).",
                                             oneOf: ["cumulative", "discrete"]),
                "statistics": Schema.array(Schema.string(), "Statistics summarize accepts for this type."),
            ], required: ["type", "kind", "display_name", "count", "statistics"])),
        ], required: ["time_zone", "now", "count", "types"])
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
        output: Schema.object([
            "type": Schema.string("The type asked about, if any."),
            "priority_order": Schema.array(Schema.string(), "Source names, highest priority first (with type)."),
            "user_ordered": Schema.boolean("True when the user set this type's order; false for the default order (typed in by hand > Apple Watch > iPhone > other devices > apps)."),
            "count": Schema.integer(),
            "sources": Schema.array(Schema.object([
                "name": Schema.string(),
                "category": Schema.string(oneOf: SourceCategory.allCases.map(\.label)),
                "bundle_id": Schema.string(),
                "device": Schema.string("The device model and hardware, when known."),
                "count": Schema.integer("Samples from this source (of the type, with type)."),
                "rank": Schema.integer("1 is the highest priority (with type)."),
            ], required: ["name", "category", "count"])),
        ], required: ["count", "sources"])
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
        output: Schema.object([
            "type": Schema.string(),
            "found": Schema.boolean("False when the store has no sample of the type."),
            "value": Schema.number("The value, in unit (quantity types)."),
            "unit": Schema.string(),
            "category": Schema.string("The value's name (category types, e.g. asleepDeep)."),
            "start": Schema.isoString,
            "end": Schema.isoString,
            "source": Schema.string(),
            "age_hours": Schema.number("Hours between the sample's end and now."),
            "time_zone": Schema.string(),
            "note": Schema.string(),
        ], required: ["type", "found", "time_zone"])
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
