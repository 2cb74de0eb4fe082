import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// query_samples: raw samples, paged with the store's cursor.

extension HealthToolbox {
    static let maxSampleLimit = 5_000

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
        output: SamplesResult.self
    ) { toolbox, arguments in
        let request = SamplesRequest(
            type: try arguments.string("type"), start: try arguments.string("start"), end: try arguments.string("end"),
            ascending: try arguments.choice("order", ["desc", "asc"], default: "desc") == "asc",
            sources: try arguments.strings("source"), timeZone: try arguments.string("time_zone"),
            cursor: try arguments.string("cursor"))
        if request.cursor == nil, request.type == nil {
            throw HealthError(.invalidArgument, "query_samples needs 'type': the type to read, e.g. heartRate (list_types gives the types present)")
        }
        let limit = arguments.has("limit") ? try arguments.int("limit", default: 100, range: 1...maxSampleLimit) : nil
        return try await toolbox.fitting(limit: limit, count: \.count, { limit in
            var page = request
            page.limit = limit
            return try await toolbox.service.samples(page)
        }, text: { $0.text(textStyle) })
    }
}
