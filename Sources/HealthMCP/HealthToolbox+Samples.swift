import Foundation
import HealthEngine
import HealthModel
import HealthService
import HealthStore
import MCP

// query_samples: raw samples, paged with the store's cursor.

extension HealthToolbox {
    static let maxSampleLimit = 5_000

    static let sampleSchema = Schema.object([
        "start": Schema.isoString,
        "end": Schema.isoString,
        "value": Schema.number("The value in `unit` (quantity types)."),
        "unit": Schema.string(),
        "category": Schema.string("The value's name (category types: inBed, asleep, awake, core, deep, rem for sleep)."),
        "source": Schema.string(),
    ], required: ["start", "end", "source"])

    static let querySamples = ToolDefinition(
        name: "query_samples", title: "Query raw samples",
        description: """
            Raw samples of one type between two dates, newest first by default: each with start, end, value and unit \
            (or category) and source. Use it to inspect individual readings (heart rate readings, weigh-ins, sleep \
            stages). Do not add these up for totals: overlapping sources (iPhone and Apple Watch) record the same \
            steps; summarize merges them correctly. Results are paged: when has_more is true, call again with \
            cursor=next_cursor.
            """,
        arguments: [
            "type": Schema.typeArgument,
            "start": Schema.start(defaultText: "7d, the last seven days"),
            "end": Schema.end,
            "limit": Schema.integer("Samples per page (a page is also cut to stay under 1 MB).", minimum: 1,
                                    maximum: maxSampleLimit, default: 100),
            "order": Schema.string("desc: newest first (default); asc: oldest first.", oneOf: ["desc", "asc"]),
            "source": Schema.string("Only samples from these sources: a name from list_sources, or several separated by commas."),
            "time_zone": Schema.timeZone,
            "cursor": Schema.cursor,
        ],
        output: Schema.object([
            "type": Schema.string(),
            "unit": Schema.string("The unit of every value (quantity types)."),
            "time_zone": Schema.string(),
            "start": Schema.isoString,
            "end": Schema.isoString,
            "order": Schema.string(oneOf: ["desc", "asc"]),
            "count": Schema.integer("Samples in this page."),
            "samples": Schema.array(sampleSchema),
            "truncated_by_size": Schema.boolean("True when the page was cut below `limit` to stay under 1 MB."),
        ].merging(Schema.paging) { a, _ in a }, required: ["type", "time_zone", "start", "end", "order", "count", "samples", "has_more"])
    ) { toolbox, arguments in
        // The query: from the cursor, or from the arguments.
        var service = try toolbox.service(arguments)
        let typeName: String, start: Date, end: Date, ascending: Bool, limit: Int, sources: [String]?
        var storeCursor: String? = nil
        if let cursor = try arguments.string("cursor") {
            let state = try PageCursor.decode(cursor, tool: "query_samples")
            typeName = try state.cursorString("type")
            start = try state.cursorDate("start")
            end = try state.cursorDate("end")
            ascending = state.cursorBool("asc")
            limit = try state.cursorInt("limit", in: 1...maxSampleLimit)
            sources = state.cursorStrings("sources")
            storeCursor = try state.cursorString("position")
            if let zone = state.cursorOptionalString("time_zone") { service.homeTimeZone = try DateExpression.timeZone(zone) }
        } else {
            typeName = try arguments.requiredString("type", hint: "the type to read, e.g. heartRate (list_types gives the types present)")
            (start, end) = try toolbox.range(arguments, service, defaultStart: "7d")
            ascending = try arguments.choice("order", ["desc", "asc"], default: "desc") == "asc"
            limit = try arguments.int("limit", default: 100, range: 1...maxSampleLimit)
            sources = try arguments.strings("source")
        }
        let zone = service.homeTimeZone
        let type = try await toolbox.resolveType(typeName)
        guard type.kind == .quantity || type.kind == .category else {
            throw HealthError(.invalidType, "'\(type.identifier)' is a \(type.kind.rawValue) type; query_samples reads quantity and category types (use list_workouts for workouts)")
        }
        try await toolbox.checkSources(sources, type: type)
        func query(limit: Int) -> SampleQuery {
            SampleQuery(type: type.identifier, start: start, end: end, matching: .strictStartDate, sources: sources,
                        limit: limit, ascending: ascending, cursor: storeCursor)
        }
        var page = try await service.engine.samples(query(limit: limit))

        // Fit the page in the reply budget; when cut, ask the store again for the cursor after the last one kept.
        var budget = PageBudget(toolbox.itemBudget)
        var items: [JSON] = []
        var lines: [String] = []
        let unit = wireUnit(type)
        for sample in page.samples {
            let wire = try service.wireSample(sample, type: type)
            var item = JSONObject()
            item.set("start", wire.dateISO)
            item.set("end", wire.endDateISO)
            item.set("value", wire.value, digits: 4)
            item.set("unit", wire.unit)
            item.set("category", wire.category)
            item.set("source", wire.source)
            let shown = wire.value.map { TextFormat.number($0, decimals: 2) + " " + (wire.unit ?? "") } ?? wire.category ?? ""
            let line = "\(TextFormat.time(sample.start, zone))–\(TextFormat.clock(sample.end, zone))  \(shown)  \(sample.source.name)"
            guard budget.take(item.value, text: line) else { break }
            items.append(item.value)
            lines.append(line)
        }
        let truncated = items.count < page.samples.count
        if truncated {
            page = try await service.engine.samples(query(limit: max(1, items.count)))
        }
        var result = JSONObject()
        result.set("type", type.identifier)
        result.set("unit", unit)
        result.set("time_zone", zone.identifier)
        result.set("start", ISO8601.string(start, timeZone: zone))
        result.set("end", ISO8601.string(end, timeZone: zone))
        result.set("order", ascending ? "asc" : "desc")
        result.set("count", items.count)
        result.set("samples", JSON.array(items))
        result.set("has_more", page.nextCursor != nil)
        if truncated { result.set("truncated_by_size", true) }
        if let next = page.nextCursor {
            var state: [String: JSON] = [
                "type": .string(type.identifier), "start": .string(ISO8601.string(start)), "end": .string(ISO8601.string(end)),
                "asc": .bool(ascending), "limit": .int(limit), "position": .string(next), "time_zone": .string(zone.identifier),
            ]
            if let sources { state["sources"] = .array(sources.map(JSON.string)) }
            result.set("next_cursor", PageCursor.encode(tool: "query_samples", state))
        }
        var text = "\(type.identifier): \(items.count) samples, \(ascending ? "oldest" : "newest") first, \(TextFormat.span(start, end, zone)) (\(zone.identifier))"
        if items.isEmpty { text = "No \(type.identifier) samples between \(TextFormat.span(start, end, zone)) (\(zone.identifier))." }
        if !lines.isEmpty { text += ":\n" + lines.joined(separator: "\n") }
        if let next = result.fields["next_cursor"]?.stringValue {
            text += "\nMore samples match\(truncated ? " (page cut to stay under 1 MB)" : ""): call query_samples with cursor=\"\(next)\"."
        }
        return ToolReply(structured: result.fields, text: text)
    }
}
