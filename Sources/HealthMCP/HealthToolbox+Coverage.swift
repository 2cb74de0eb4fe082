import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// health_coverage: which sources recorded a type, per day or hour, and where nothing was recorded.

extension HealthToolbox {
    static let healthCoverage = ToolDefinition(
        name: "health_coverage", title: "Coverage: which sources recorded, where data is missing",
        description: """
            For one type and range, per day (or per hour with interval hour): which sources recorded it and how \
            many samples each, and the gaps — runs of days (hours) where nothing at all was recorded. Use it to tell \
            a missing day from a day of 0 (a watch left off, a paused export or push schedule) before reading totals: \
            a day in a gap has no data, it is not 0. Default range: the last 30 days.
            """,
        arguments: [
            "type": Schema.typeArgument,
            "start": Schema.start(defaultText: "30d, the last thirty days including today"),
            "end": Schema.end,
            "interval": Schema.string("day (default) or hour.", oneOf: ["day", "hour"]),
            "time_zone": Schema.timeZone,
        ],
        required: ["type"],
        output: CoverageResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.coverage(CoverageRequest(
            type: try arguments.string("type"), start: try arguments.string("start"), end: try arguments.string("end"),
            interval: try arguments.string("interval"), timeZone: try arguments.string("time_zone")))
        return ToolReply(structured: try structured(result), text: result.text)
    }
}
