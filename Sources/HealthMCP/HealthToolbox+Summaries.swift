import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// summarize, sleep_nights: HealthKit-accurate statistics.

extension HealthToolbox {
    // MARK: summarize

    static let summarize = ToolDefinition(
        name: "summarize", title: "Statistics per day, week, …",
        description: """
            HealthKit-accurate statistics of one type per interval (hour, day, week, month, …) between two dates, in \
            the user's time zone: the total for cumulative types (steps, distance, active energy, …), the average, \
            minimum, maximum and most recent value for discrete ones (heart rate, resting heart rate, weight, …), \
            minutes per value for category types (except sleep: use sleep_nights). Totals are merged across \
            overlapping sources by priority (iPhone + Apple Watch steps are not double-counted), exactly as the \
            Health app shows them; the result says so and gives the priority order. Use it for questions like \
            "how many steps did I walk each day last week" (type stepCount, start = that Monday, end = the next \
            Monday). Empty buckets are listed unless skip_empty is true. Long series are paged with a cursor.
            """,
        arguments: [
            "type": Schema.typeArgument,
            "start": Schema.start(defaultText: "7d, the last seven days including today"),
            "end": Schema.end,
            "interval": Schema.string("Bucket length: minute, hour, day (default), week (Monday to Monday), month, year, optionally with a count (15minute, 2week); or total for one bucket over the whole range."),
            "statistics": Schema.array(Schema.string(oneOf: ["sum", "average", "min", "max", "most_recent", "duration"]),
                                       "Which statistics: sum for cumulative types; average, min, max, most_recent for discrete ones; duration for category types. Default: all that apply."),
            "time_zone": Schema.timeZone,
            "by_source": Schema.boolean("Also give each source's own series, unmerged (to see what each device recorded).", default: false),
            "source": Schema.string("Only these sources: a name from list_sources, or several separated by commas."),
            "skip_empty": Schema.boolean("Leave out buckets without data.", default: false),
            "contributions": Schema.boolean("Cumulative types: which source won — each source's part of the merged total (the parts add up to it) beside its own unmerged total.", default: false),
            "cursor": Schema.cursor,
        ],
        output: SummaryResult.self
    ) { toolbox, arguments in
        let request = SummaryRequest(
            type: try arguments.string("type"), start: try arguments.string("start"), end: try arguments.string("end"),
            interval: try arguments.string("interval"), statistics: try arguments.strings("statistics"),
            timeZone: try arguments.string("time_zone"), bySource: try arguments.bool("by_source", default: false),
            sources: try arguments.strings("source"), skipEmpty: try arguments.bool("skip_empty", default: false),
            cursor: try arguments.string("cursor"),
            contributions: arguments.has("contributions") ? try arguments.bool("contributions", default: false) : nil)
        if request.cursor == nil, request.type == nil {
            throw HealthError(.invalidArgument, "summarize needs 'type': the type to summarize, e.g. stepCount (list_types gives the types present)")
        }
        return try await toolbox.fitting(limit: nil, count: \.buckets.count, { limit in
            var page = request
            page.limit = limit
            return try await toolbox.service.summary(page)
        }, text: { $0.text(textStyle) })
    }

    // MARK: sleep_nights

    static let sleepNights = ToolDefinition(
        name: "sleep_nights", title: "Sleep per night",
        description: """
            Sleep per night, attributed to the day the user woke up (nights run 18:00 → 18:00): bedtime, wake time, \
            minutes in bed, asleep (core + deep + REM + unspecified), core, deep, REM and awake. A phone's in-bed \
            interval and a watch's sleep stages are merged by source priority, never added together. Use it for \
            "how did I sleep". Default: the last seven nights.
            """,
        arguments: [
            "start": Schema.start(defaultText: "7d: the nights ending on each of the last seven days, today's included"),
            "end": Schema.end,
            "time_zone": Schema.timeZone,
            "cursor": Schema.cursor,
        ],
        output: SleepResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.sleep(SleepRequest(
            start: try arguments.string("start"), end: try arguments.string("end"),
            timeZone: try arguments.string("time_zone"), cursor: try arguments.string("cursor")))
        return ToolReply(structured: try structured(result), text: result.text(textStyle))
    }
}
