import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthService
import HealthStore
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
        }, text: summaryText)
    }

    static func summaryText(_ result: SummaryResult) -> String {
        let unit = result.unit
        let decimals = unit == "count" ? 0 : 1
        let daily = !["minute", "hour"].contains { result.interval.hasSuffix($0) } && result.interval != "total"
        var header = [result.interval == "total" ? "range" : daily ? "date" : "start"]
        var columns: [(String, (SummaryBucket) -> String)] = []
        if result.statistics == ["duration"] {
            let names = Set(result.buckets.flatMap { $0.durationsMinutes?.keys.map { $0 } ?? [] }).sorted()
            for name in names { columns.append((name + " min", { TextFormat.number($0.durationsMinutes?[name], decimals: 0) })) }
        } else {
            let statistics = Set(result.statistics)
            if statistics.contains("sum") { columns.append((unit == "count" ? "total" : "total " + unit, { TextFormat.number($0.sum, decimals: decimals) })) }
            if statistics.contains("average") { columns.append(("avg", { TextFormat.number($0.average, decimals: 1) })) }
            if statistics.contains("min") { columns.append(("min", { TextFormat.number($0.min, decimals: 1) })) }
            if statistics.contains("max") { columns.append(("max", { TextFormat.number($0.max, decimals: 1) })) }
            if statistics.contains("most_recent") { columns.append(("latest", { TextFormat.number($0.mostRecent, decimals: 1) })) }
        }
        header += columns.map(\.0)
        let perSource = result.bySource ?? []
        header += perSource.map { $0.source + " (own)" }
        let rows: [[String]] = result.buckets.map { bucket in
            let label = result.interval == "total" ? "\(TextFormat.local(bucket.start)) → \(TextFormat.local(bucket.end))"
                : daily ? TextFormat.localDay(bucket.start) : TextFormat.local(bucket.start)
            // A bucket without samples is missing, not 0.
            var row = [label] + columns.map { bucket.count == 0 ? "no data" : $0.1(bucket) }
            for series in perSource {
                let own = series.buckets.first { $0.start == bucket.start }
                row.append(TextFormat.number(own?.sum ?? own?.average, decimals: decimals))
            }
            return row
        }
        let shownUnit = unit == "min" ? "minutes" : unit == "count" ? nil : unit
        var text = "\(result.type) per \(result.interval == "total" ? "whole range" : result.interval), \(TextFormat.local(result.start)) → \(TextFormat.local(result.end)) (\(result.timeZone))\(shownUnit.map { ", in " + $0 } ?? "").\n"
        text += result.mergeNote + "\n"
        text += result.buckets.allSatisfy({ $0.count == 0 }) ? "No \(result.type) data in this range." : TextFormat.table(header, rows)
        if let total = result.totalSum, result.buckets.count > 1 {
            text += "\nTotal: \(TextFormat.number(total, decimals: decimals))\(unit == "count" ? "" : " " + unit)"
        }
        let empty = result.buckets.filter { $0.count == 0 }.count
        if empty > 0, empty < result.buckets.count {
            text += "\n\(empty) of \(result.buckets.count) buckets have no data (missing, not 0); the total covers the others."
        }
        if let parts = result.contributions, !parts.isEmpty {
            text += "\nWhich source won (part of the merged total / own unmerged total):\n" + TextFormat.table(
                ["source", "counted", "own total"],
                parts.map { [$0.source, TextFormat.number($0.contribution, decimals: decimals), TextFormat.number($0.ownTotal, decimals: decimals)] })
        }
        if let next = result.nextCursor {
            text += "\nMore buckets follow (this reply stops at \(TextFormat.local(result.end))): call summarize with cursor=\"\(next)\"."
        }
        return text
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
        let rows = result.nights.map { night in
            [night.date, TextFormat.localClock(night.bedtime), TextFormat.localClock(night.wakeTime),
             TextFormat.minutes(night.asleepMinutes), TextFormat.minutes(night.deepMinutes),
             TextFormat.minutes(night.remMinutes), TextFormat.minutes(night.coreMinutes),
             TextFormat.minutes(night.awakeMinutes), TextFormat.minutes(night.inBedMinutes)]
        }
        var text = result.nights.isEmpty
            ? "No sleep recorded for the nights ending \(TextFormat.localDay(result.start)) to \(TextFormat.localDay(result.end)) (\(result.timeZone))."
            : "Sleep per night (wake-up day, \(result.timeZone)). \(result.mergeNote)\n" + TextFormat.table(
                ["night of", "bed", "wake", "asleep", "deep", "REM", "core", "awake", "in bed"], rows)
        if let average = result.averageAsleepMinutes { text += "\nAverage asleep: \(TextFormat.minutes(average))" }
        if let next = result.nextCursor { text += "\nMore nights follow: call sleep_nights with cursor=\"\(next)\"." }
        return ToolReply(structured: try structured(result), text: text)
    }
}
