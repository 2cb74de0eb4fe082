import Foundation
import HealthEngine
import HealthModel
import HealthService
import HealthStore
import MCP

// list_types, list_sources, latest: what is in the store.

extension HealthToolbox {
    /// The statistics `summarize` accepts for a type, by their tool names.
    static func statisticNames(for type: SampleType) -> [String] {
        switch type.kind {
        case .quantity:
            switch type.aggregation {
            case .cumulative: return ["sum"]
            case .discrete, nil: return ["average", "min", "max", "most_recent"]
            }
        case .category: return type.identifier == "sleepAnalysis" ? [] : ["duration"]
        case .correlation, .workout: return []
        }
    }

    /// The unit values of a type are reported in by the tools (`bpm` for count/min).
    static func wireUnit(_ type: SampleType, recorded: [String] = []) -> String? {
        guard type.kind == .quantity else { return nil }
        return (type.canonicalUnit ?? recorded.first).map(HealthService.wireUnit)
    }

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
        let service = toolbox.service
        let zone = service.homeTimeZone
        let summaries = try await service.store.typeSummaries()
        var items: [JSON] = []
        var rows: [[String]] = []
        for summary in summaries {
            let type = SampleTypeRegistry.registered(summary.type)
                ?? SampleTypeRegistry.unregistered(summary.type)
                ?? SampleType(identifier: summary.type, kind: summary.kind, displayName: summary.type, isRegistered: false)
            var item = JSONObject()
            item.set("type", type.identifier)
            item.set("kind", summary.kind.rawValue)
            item.set("display_name", type.displayName)
            item.set("count", summary.count)
            item.set("first", summary.first.map { ISO8601.string($0, timeZone: zone) })
            item.set("last", summary.last.map { ISO8601.string($0, timeZone: zone) })
            let unit = wireUnit(type, recorded: summary.units)
            item.set("unit", unit)
            item.set("recorded_units", strings: summary.units)
            item.set("aggregation", type.aggregation?.rawValue)
            let statistics = statisticNames(for: type)
            item.set("statistics", strings: statistics)
            items.append(item.value)
            rows.append([type.identifier, summary.kind.rawValue, TextFormat.number(Double(summary.count)),
                         TextFormat.day(summary.first ?? .distantPast, zone) + " → " + TextFormat.day(summary.last ?? .distantPast, zone),
                         unit ?? "", statistics.joined(separator: "/")])
        }
        let now = service.clock()
        var text = "\(summaries.count) types in the store (time zone \(zone.identifier), now \(TextFormat.time(now, zone))):\n"
        text += summaries.isEmpty
            ? "The store is empty: import an Apple Health export or run `healthbridge demo`."
            : TextFormat.table(["type", "kind", "samples", "span", "unit", "statistics"], rows)
        return ToolReply(structured: ["time_zone": .string(zone.identifier),
                                      "now": .string(ISO8601.string(now, timeZone: zone)),
                                      "count": .int(summaries.count), "types": .array(items)],
                         text: text)
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
        let store = toolbox.service.store
        var structured: [String: JSON] = [:]
        let summaries: [SourceSummary]
        var text: String
        if let name = try arguments.string("type") {
            let type = try await toolbox.resolveType(name)
            summaries = try await store.priority(type: type.identifier, counts: true)
            let userOrdered = summaries.contains { $0.userOrdered }
            structured["type"] = .string(type.identifier)
            structured["priority_order"] = .array(summaries.map { .string($0.source.name) })
            structured["user_ordered"] = .bool(userOrdered)
            text = summaries.isEmpty
                ? "No source has \(type.identifier) samples."
                : "Sources of \(type.identifier), highest priority first (\(userOrdered ? "set by the user" : "default order")); where they overlap, statistics count only the highest:\n"
        } else {
            summaries = try await store.sources(type: nil).sorted { $0.count > $1.count }
            text = summaries.isEmpty ? "No sources: the store is empty." : "Sources, by sample count:\n"
        }
        var items: [JSON] = []
        var lines: [String] = []
        for (index, summary) in summaries.enumerated() {
            var item = JSONObject()
            item.set("name", summary.source.name)
            item.set("category", summary.source.category.label)
            item.set("bundle_id", summary.source.bundleIdentifier)
            let device = summary.source.device.map { [$0.model, $0.hardware].compactMap { $0 }.joined(separator: " ") }
            item.set("device", device?.isEmpty == false ? device : nil)
            item.set("count", summary.count)
            if structured["type"] != nil { item.set("rank", index + 1) }
            items.append(item.value)
            let prefix = structured["type"] != nil ? "\(index + 1). " : "- "
            lines.append("\(prefix)\(summary.source.name) — \(summary.source.category.label), \(TextFormat.number(Double(summary.count))) samples")
        }
        structured["count"] = .int(summaries.count)
        structured["sources"] = .array(items)
        text += lines.joined(separator: "\n")
        return ToolReply(structured: structured, text: text)
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
        let service = toolbox.service
        let zone = service.homeTimeZone
        let type = try await toolbox.resolveType(try arguments.requiredString("type", hint: "the type whose latest value you want, e.g. bodyMass"))
        guard type.kind == .quantity || type.kind == .category else {
            throw HealthError(.invalidType, "'\(type.identifier)' is a \(type.kind.rawValue) type; latest reads quantity and category types (use list_workouts for workouts)")
        }
        let sources = try arguments.strings("source")
        try await toolbox.checkSources(sources, type: type)
        let page = try await service.engine.samples(SampleQuery(type: type.identifier, sources: sources, limit: 1,
                                                                ascending: false))
        var result = JSONObject(["type": .string(type.identifier), "time_zone": .string(zone.identifier)])
        guard let sample = page.samples.first else {
            result.set("found", false)
            result.set("note", "no \(type.identifier) samples\(sources.map { " from " + $0.joined(separator: ", ") } ?? "") in the store")
            return ToolReply(structured: result.fields, text: "No \(type.identifier) samples in the store.")
        }
        let wire = try service.wireSample(sample, type: type)
        let age = service.clock().timeIntervalSince(sample.end) / 3600
        result.set("found", true)
        result.set("value", wire.value, digits: 4)
        result.set("unit", wire.unit)
        result.set("category", wire.category)
        result.set("start", ISO8601.string(sample.start, timeZone: zone))
        result.set("end", ISO8601.string(sample.end, timeZone: zone))
        result.set("source", sample.source.name)
        result.set("age_hours", age, digits: 2)
        var note: String? = nil
        if type.isCumulative {
            note = "\(type.identifier) is cumulative: this is one sample, not a total; use summarize or health_today for totals"
            result.set("note", note)
        }
        let value = wire.value.map { "\(TextFormat.number($0, decimals: 2)) \(wire.unit ?? "")" } ?? wire.category ?? "no value"
        let ago = age < 48 ? "\(TextFormat.number(age, decimals: 1)) h ago" : "\(TextFormat.number(age / 24, decimals: 1)) days ago"
        var text = "Latest \(type.identifier): \(value) at \(TextFormat.time(sample.start, zone)) (\(zone.identifier)), from \(sample.source.name), \(ago)."
        if let note { text += "\nNote: \(note)." }
        return ToolReply(structured: result.fields, text: text)
    }
}
