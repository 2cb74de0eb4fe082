import Foundation
import HealthEngine
import HealthModel
import HealthService
import HealthStore
import MCP

// summarize, sleep_nights: HealthKit-accurate statistics.

extension HealthToolbox {
    static let statisticOptions: [String: StatisticsOption] = [
        "sum": .sum, "average": .average, "avg": .average, "mean": .average, "min": .min, "minimum": .min,
        "max": .max, "maximum": .max, "most_recent": .mostRecent, "mostrecent": .mostRecent, "latest": .mostRecent,
        "duration": .duration,
    ]

    static func statisticName(_ option: StatisticsOption) -> String {
        switch option {
        case .sum: "sum"
        case .average: "average"
        case .min: "min"
        case .max: "max"
        case .mostRecent: "most_recent"
        case .duration: "duration"
        }
    }

    static let bucketSchema = Schema.object([
        "start": Schema.isoString,
        "end": Schema.isoString,
        "date": Schema.string("The bucket's first day, YYYY-MM-DD (day, week, month and year intervals)."),
        "sum": Schema.number("Cumulative types: the total, merged across sources by priority."),
        "average": Schema.number(),
        "min": Schema.number(),
        "max": Schema.number(),
        "most_recent": Schema.number(),
        "most_recent_at": Schema.isoString,
        "durations_minutes": Schema.map(Schema.number(), "Category types: minutes per value, merged by priority."),
        "count": Schema.integer("Samples in the bucket, from every source, before the merge."),
        "sources": Schema.array(Schema.string(), "Sources whose data counted, highest priority first."),
    ], required: ["start", "end", "count", "sources"])

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
            "cursor": Schema.cursor,
        ],
        output: Schema.object([
            "type": Schema.string(),
            "unit": Schema.string("The unit of every value."),
            "interval": Schema.string(),
            "time_zone": Schema.string(),
            "start": Schema.isoString,
            "end": Schema.isoString,
            "statistics": Schema.array(Schema.string()),
            "merged": Schema.boolean("True when overlapping sources were merged by priority (cumulative and category types)."),
            "source_priority": Schema.array(Schema.string(), "The priority order in force, highest first."),
            "merge_note": Schema.string("How the values were combined across sources."),
            "buckets": Schema.array(bucketSchema),
            "total_sum": Schema.number("Cumulative types: the sum over the buckets of this reply."),
            "by_source": Schema.array(Schema.object([
                "source": Schema.string(),
                "buckets": Schema.array(bucketSchema),
            ], required: ["source", "buckets"]), "Each source's own series, unmerged (by_source)."),
        ].merging(Schema.paging) { a, _ in a },
        required: ["type", "interval", "time_zone", "start", "end", "statistics", "merged", "source_priority",
                   "merge_note", "buckets", "has_more"])
    ) { toolbox, arguments in
        var service = try toolbox.service(arguments)
        let typeName: String, start: Date, end: Date, intervalText: String, requestedStatistics: [String]?
        let bySource: Bool, sources: [String]?, skipEmpty: Bool
        var pageIndex: Int? = nil, anchor: Date? = nil, pageSize: Int? = nil
        if let cursor = try arguments.string("cursor") {
            let state = try PageCursor.decode(cursor, tool: "summarize")
            typeName = try state.cursorString("type")
            start = try state.cursorDate("start")
            end = try state.cursorDate("end")
            intervalText = try state.cursorString("interval")
            requestedStatistics = state.cursorStrings("statistics")
            bySource = state.cursorBool("by_source")
            sources = state.cursorStrings("sources")
            skipEmpty = state.cursorBool("skip_empty")
            pageIndex = try state.cursorInt("k", in: -1_000_000_000...1_000_000_000)
            anchor = try state.cursorDate("anchor")
            pageSize = try state.cursorInt("page", in: 1...1_000)
            if let zone = state.cursorOptionalString("time_zone") { service.homeTimeZone = try DateExpression.timeZone(zone) }
        } else {
            typeName = try arguments.requiredString("type", hint: "the type to summarize, e.g. stepCount (list_types gives the types present)")
            (start, end) = try toolbox.range(arguments, service, defaultStart: "7d")
            intervalText = try arguments.string("interval") ?? "day"
            requestedStatistics = try arguments.strings("statistics")
            bySource = try arguments.bool("by_source", default: false)
            sources = try arguments.strings("source")
            skipEmpty = try arguments.bool("skip_empty", default: false)
        }
        let zone = service.homeTimeZone
        let type = try await toolbox.resolveType(typeName)
        if type.identifier == "sleepAnalysis" {
            throw HealthError(.noSummary, "sleepAnalysis is summarized per night: use sleep_nights (bedtime, wake time, asleep, deep, REM, core, awake)")
        }
        let allowed = statisticNames(for: type)
        guard !allowed.isEmpty else {
            throw HealthError(.noSummary, "'\(type.identifier)' is a \(type.kind.rawValue) type and has no statistics; use query_samples\(type.kind == .workout ? " or list_workouts" : "")")
        }
        // Statistics: known names, and ones the type supports.
        var options: Set<StatisticsOption> = []
        for name in requestedStatistics ?? [] {
            guard let option = statisticOptions[name.lowercased()] else {
                throw HealthError(.invalidArgument, "unknown statistic '\(name)'; use \(allowed.joined(separator: ", ")) for \(type.identifier)")
            }
            guard allowed.contains(statisticName(option)) else {
                let kind = type.kind == .category ? "a category type" : type.isCumulative ? "cumulative" : "discrete"
                throw HealthError(.noSummary, "\(type.identifier) is \(kind): summarize gives \(allowed.joined(separator: ", ")) for it, not \(statisticName(option))")
            }
            options.insert(option)
        }
        if options.isEmpty {
            options = Set(allowed.compactMap { statisticOptions[$0] })
        }
        let interval: StatisticsInterval?
        if ["total", "none", "all"].contains(intervalText.lowercased()) {
            interval = nil
        } else {
            interval = try StatisticsInterval(parsing: intervalText)
        }
        try await toolbox.checkSources(sources, type: type)
        let sourceCount = bySource ? try await service.store.sources(type: type.identifier).count : 0

        // The page: whole buckets from the anchor, at most `size` of them.
        let grid = interval.map { BucketStepper(interval: $0, timeZone: zone) }
        let pageAnchor = anchor ?? grid?.anchor(for: start) ?? start
        let firstIndex = try pageIndex ?? grid.map { try $0.index(containing: start, anchor: pageAnchor) } ?? 0
        var size = pageSize ?? max(25, 1_000 / (1 + sourceCount))
        while true {
            let pageStart = pageIndex == nil ? start : (grid?.edge(firstIndex, anchor: pageAnchor) ?? start)
            // A cursor is client data: its page must lie inside its own range.
            guard pageStart >= start.addingTimeInterval(-1), pageStart <= end else { throw PageCursor.corrupt }
            var pageEnd = end
            var nextIndex: Int? = nil
            if let grid {
                let limit = grid.edge(firstIndex + size, anchor: pageAnchor)
                if limit < end { pageEnd = limit; nextIndex = firstIndex + size }
            }
            let result = try await service.engine.statistics(StatisticsRequest(
                type: type.identifier, start: pageStart, end: pageEnd, interval: interval, anchor: interval == nil ? nil : pageAnchor,
                timeZone: zone, options: options, separateBySource: bySource, includeEmpty: !skipEmpty,
                sources: sources))
            let reply = summaryReply(result, type: type, interval: interval, intervalText: intervalText, zone: zone,
                                     start: pageStart, end: pageEnd, options: options)
            var structured = reply.structured
            var text = reply.text
            structured["has_more"] = .bool(nextIndex != nil)
            if let nextIndex {
                var state: [String: JSON] = [
                    "type": .string(type.identifier), "start": .string(ISO8601.string(start)),
                    "end": .string(ISO8601.string(end)), "interval": .string(intervalText),
                    "by_source": .bool(bySource), "skip_empty": .bool(skipEmpty), "k": .int(nextIndex),
                    "anchor": .string(ISO8601.string(pageAnchor)), "page": .int(size),
                    "time_zone": .string(zone.identifier),
                    "statistics": .array(options.map { .string(statisticName($0)) }.sorted { $0.stringValue ?? "" < $1.stringValue ?? "" }),
                ]
                if let sources { state["sources"] = .array(sources.map(JSON.string)) }
                let cursor = PageCursor.encode(tool: "summarize", state)
                structured["next_cursor"] = .string(cursor)
                text += "\nMore buckets follow (this reply stops at \(TextFormat.time(pageEnd, zone))): call summarize with cursor=\"\(cursor)\"."
            }
            let cost = JSON.object(structured).estimatedJSONSize + text.utf8.count * 6 / 5
            if cost > toolbox.itemBudget, interval != nil, size > 1 {
                size = max(1, size / 2)
                continue
            }
            return ToolReply(structured: structured, text: text)
        }
    }

    static func summaryReply(_ result: StatisticsResult, type: SampleType, interval: StatisticsInterval?,
                             intervalText: String, zone: TimeZone, start: Date, end: Date,
                             options: Set<StatisticsOption>) -> ToolReply {
        let unit = HealthService.wireUnit(result.unit ?? type.canonicalUnit ?? "count")
        let dated = interval.map { [.day, .week, .month, .year].contains($0.unit) } ?? false
        func bucketValue(_ bucket: StatisticsBucket) -> JSON {
            var item = JSONObject()
            item.set("start", ISO8601.string(bucket.start, timeZone: zone))
            item.set("end", ISO8601.string(bucket.end, timeZone: zone))
            if dated { item.set("date", TextFormat.day(bucket.start, zone)) }
            item.set("sum", bucket.sum)
            item.set("average", bucket.average)
            item.set("min", bucket.min)
            item.set("max", bucket.max)
            item.set("most_recent", bucket.mostRecent)
            item.set("most_recent_at", bucket.mostRecentDate.map { ISO8601.string($0, timeZone: zone) })
            if let durations = bucket.durations {
                item.set("durations_minutes", JSON.object(durations.mapValues { JSONObject.number($0 / 60, digits: 1) ?? .int(0) }))
            }
            item.set("count", bucket.count)
            item.set("sources", strings: bucket.sources)
            return item.value
        }
        let merged = type.isCumulative || type.kind == .category
        let order = result.priority.joined(separator: " > ")
        let note = merged
            ? "Merged by source priority (\(order.isEmpty ? "no sources" : order)): where sources overlap in time only the highest-priority one counts, as in Apple Health; never add the sources' own figures together."
            : "Discrete values: statistics over every source's samples (no merge needed); sources by priority: \(order.isEmpty ? "none" : order)."
        var structured: [String: JSON] = [
            "type": .string(type.identifier), "unit": .string(type.kind == .category ? "min" : unit),
            "interval": .string(interval?.description ?? "total"), "time_zone": .string(zone.identifier),
            "start": .string(ISO8601.string(start, timeZone: zone)), "end": .string(ISO8601.string(end, timeZone: zone)),
            "statistics": .array(options.map { .string(statisticName($0)) }.sorted { $0.stringValue ?? "" < $1.stringValue ?? "" }),
            "merged": .bool(merged), "source_priority": .array(result.priority.map(JSON.string)),
            "merge_note": .string(note), "buckets": .array(result.buckets.map(bucketValue)),
        ]
        let sums = result.buckets.compactMap(\.sum)
        if type.isCumulative, !sums.isEmpty, let total = JSONObject.number(sums.reduce(0, +)) {
            structured["total_sum"] = total
        }
        if let series = result.bySource {
            structured["by_source"] = .array(series.map { entry in
                .object(["source": .string(entry.source), "buckets": .array(entry.buckets.map(bucketValue))])
            })
        }

        // Text: one line per bucket; with by_source, a column per source.
        func label(_ bucket: StatisticsBucket) -> String {
            guard let interval else { return TextFormat.span(bucket.start, bucket.end, zone) }
            switch interval.unit {
            case .day, .week, .month, .year: return TextFormat.day(bucket.start, zone)
            case .hour, .minute: return TextFormat.time(bucket.start, zone)
            }
        }
        let decimals = unit == "count" ? 0 : 1
        var header = [interval.map { $0.unit == .minute || $0.unit == .hour ? "start" : "date" } ?? "range"]
        var columns: [(String, (StatisticsBucket) -> String)] = []
        if type.kind == .category {
            let names = Set(result.buckets.flatMap { $0.durations?.keys.map { $0 } ?? [] }).sorted()
            for name in names { columns.append((name + " min", { TextFormat.number(($0.durations?[name]).map { $0 / 60 }, decimals: 0) })) }
        } else {
            if options.contains(.sum) { columns.append((unit == "count" ? "total" : "total " + unit, { TextFormat.number($0.sum, decimals: decimals) })) }
            if options.contains(.average) { columns.append(("avg", { TextFormat.number($0.average, decimals: 1) })) }
            if options.contains(.min) { columns.append(("min", { TextFormat.number($0.min, decimals: 1) })) }
            if options.contains(.max) { columns.append(("max", { TextFormat.number($0.max, decimals: 1) })) }
            if options.contains(.mostRecent) { columns.append(("latest", { TextFormat.number($0.mostRecent, decimals: 1) })) }
        }
        header += columns.map(\.0)
        let perSource = result.bySource ?? []
        header += perSource.map { $0.source + " (own)" }
        let rows: [[String]] = result.buckets.enumerated().map { index, bucket in
            var row = [label(bucket)] + columns.map { $0.1(bucket) }
            for series in perSource {
                let own = series.buckets.first { $0.start == bucket.start }
                row.append(TextFormat.number(own?.sum ?? own?.average, decimals: decimals))
            }
            _ = index
            return row
        }
        let shownUnit = type.kind == .category ? "minutes" : unit == "count" ? nil : unit
        var text = "\(type.identifier) per \(interval?.description ?? "whole range"), \(TextFormat.span(start, end, zone)) (\(zone.identifier))\(shownUnit.map { ", in " + $0 } ?? "").\n"
        text += note + "\n"
        text += result.buckets.allSatisfy({ $0.count == 0 }) ? "No \(type.identifier) data in this range." : TextFormat.table(header, rows)
        if let total = structured["total_sum"], result.buckets.count > 1 {
            text += "\nTotal: \(TextFormat.number(total.doubleValue ?? total.intValue.map(Double.init), decimals: decimals))\(unit == "count" ? "" : " " + unit)"
        }
        return ToolReply(structured: structured, text: text)
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
        output: Schema.object([
            "time_zone": Schema.string(),
            "start": Schema.isoString,
            "end": Schema.isoString,
            "count": Schema.integer("Nights with data in this reply."),
            "nights": Schema.array(HealthToolbox.sleepNightSchema()),
            "average_asleep_minutes": Schema.number("Average over the nights of this reply."),
            "merged": Schema.boolean(),
            "merge_note": Schema.string(),
        ].merging(Schema.paging) { a, _ in a }, required: ["time_zone", "start", "end", "count", "nights", "merged", "merge_note", "has_more"])
    ) { toolbox, arguments in
        var service = try toolbox.service(arguments)
        var start: Date, end: Date
        if let cursor = try arguments.string("cursor") {
            let state = try PageCursor.decode(cursor, tool: "sleep_nights")
            start = try state.cursorDate("start")
            end = try state.cursorDate("end")
            if let zone = state.cursorOptionalString("time_zone") { service.homeTimeZone = try DateExpression.timeZone(zone) }
        } else {
            (start, end) = try toolbox.range(arguments, service, defaultStart: "7d")
        }
        let zone = service.homeTimeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // The end is exclusive: an end at midnight does not take in the night that wakes up that day.
        if end > start, calendar.startOfDay(for: end) == end { end = end.addingTimeInterval(-1) }
        // At most 366 wake-up days per reply.
        let firstDay = calendar.startOfDay(for: start)
        let lastDayOfPage = calendar.date(byAdding: .day, value: 365, to: firstDay) ?? end
        var pageEnd = end
        var nextStart: Date? = nil
        if calendar.startOfDay(for: end) > lastDayOfPage {
            pageEnd = lastDayOfPage
            nextStart = calendar.date(byAdding: .day, value: 1, to: lastDayOfPage)
        }
        let nights = try await service.engine.sleepNights(from: start, to: pageEnd, timeZone: zone)
        var items: [JSON] = []
        var rows: [[String]] = []
        for night in nights {
            items.append(HealthToolbox.sleepNightJSON(night, zone: zone).value)
            rows.append([night.date, TextFormat.clock(night.bedtime, zone), TextFormat.clock(night.wakeTime, zone),
                         TextFormat.minutes(night.asleepMinutes), TextFormat.minutes(night.deepMinutes),
                         TextFormat.minutes(night.remMinutes), TextFormat.minutes(night.coreMinutes),
                         TextFormat.minutes(night.awakeMinutes), TextFormat.minutes(night.inBedMinutes)])
        }
        let note = "Each night merges sources by priority: a phone's in-bed time and a watch's stages are kept side by side, two devices' stages are never added."
        var structured: [String: JSON] = [
            "time_zone": .string(zone.identifier), "start": .string(ISO8601.string(start, timeZone: zone)),
            "end": .string(ISO8601.string(pageEnd, timeZone: zone)), "count": .int(nights.count),
            "nights": .array(items), "merged": .bool(true), "merge_note": .string(note),
            "has_more": .bool(nextStart != nil),
        ]
        if !nights.isEmpty, let average = JSONObject.number(nights.reduce(0) { $0 + $1.asleepMinutes } / Double(nights.count), digits: 1) {
            structured["average_asleep_minutes"] = average
        }
        var text = nights.isEmpty
            ? "No sleep recorded for the nights ending \(TextFormat.day(start, zone)) to \(TextFormat.day(pageEnd, zone)) (\(zone.identifier))."
            : "Sleep per night (wake-up day, \(zone.identifier)). \(note)\n" + TextFormat.table(
                ["night of", "bed", "wake", "asleep", "deep", "REM", "core", "awake", "in bed"], rows)
        if let average = structured["average_asleep_minutes"] {
            text += "\nAverage asleep: \(TextFormat.minutes(average.doubleValue ?? average.intValue.map(Double.init)))"
        }
        if let nextStart {
            let cursor = PageCursor.encode(tool: "sleep_nights", [
                "start": .string(ISO8601.string(nextStart)), "end": .string(ISO8601.string(end)),
                "time_zone": .string(zone.identifier),
            ])
            structured["next_cursor"] = .string(cursor)
            text += "\nMore nights follow: call sleep_nights with cursor=\"\(cursor)\"."
        }
        return ToolReply(structured: structured, text: text)
    }
}

/// Bucket edges as the engine cuts them (anchor + whole intervals in a zone, weeks from Monday), to page long series
/// on bucket boundaries.
struct BucketStepper {
    let calendar: Calendar
    let interval: StatisticsInterval

    init(interval: StatisticsInterval, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        self.calendar = calendar
        self.interval = interval
    }

    func anchor(for date: Date) -> Date {
        switch interval.unit {
        case .minute: return calendar.dateInterval(of: .minute, for: date)?.start ?? date
        case .hour: return calendar.dateInterval(of: .hour, for: date)?.start ?? date
        case .day: return calendar.startOfDay(for: date)
        case .week: return calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? calendar.startOfDay(for: date)
        case .month: return calendar.dateInterval(of: .month, for: date)?.start ?? calendar.startOfDay(for: date)
        case .year: return calendar.dateInterval(of: .year, for: date)?.start ?? calendar.startOfDay(for: date)
        }
    }

    var approximateLength: TimeInterval {
        let base: TimeInterval = switch interval.unit {
        case .minute: 60
        case .hour: 3600
        case .day: 86_400
        case .week: 604_800
        case .month: 2_629_746
        case .year: 31_556_952
        }
        return base * Double(interval.count)
    }

    func edge(_ k: Int, anchor: Date) -> Date {
        let (component, multiplier): (Calendar.Component, Int) = switch interval.unit {
        case .minute: (.minute, 1)
        case .hour: (.hour, 1)
        case .day: (.day, 1)
        case .week: (.day, 7)
        case .month: (.month, 1)
        case .year: (.year, 1)
        }
        return calendar.date(byAdding: component, value: k * interval.count * multiplier, to: anchor)
            ?? anchor.addingTimeInterval(Double(k) * approximateLength)
    }

    /// The index k of the bucket [edge(k), edge(k+1)) containing `date`.
    func index(containing date: Date, anchor: Date) throws(HealthError) -> Int {
        let estimate = date.timeIntervalSince(anchor) / approximateLength
        guard estimate.isFinite, abs(estimate) < 1e9 else {
            throw HealthError(.invalidRange, "the range is too long for \(interval) buckets; use a longer interval")
        }
        var k = Int(estimate.rounded(.down))
        while edge(k, anchor: anchor) > date { k -= 1 }
        while edge(k + 1, anchor: anchor) <= date { k += 1 }
        return k
    }
}

extension HealthToolbox {
    /// The JSON schema of one sleep night, shared by `sleep_nights` and `health_today`.
    static func sleepNightSchema(description: String? = nil) -> JSON {
        Schema.object([
            "date": Schema.string("The wake-up day, YYYY-MM-DD."),
            "bedtime": Schema.isoString,
            "wake_time": Schema.isoString,
            "in_bed_minutes": Schema.number(),
            "asleep_minutes": Schema.number(),
            "core_minutes": Schema.number(),
            "deep_minutes": Schema.number(),
            "rem_minutes": Schema.number(),
            "unspecified_minutes": Schema.number("Asleep without a stage (older devices)."),
            "awake_minutes": Schema.number(),
            "sources": Schema.array(Schema.string()),
        ], required: ["date", "in_bed_minutes", "asleep_minutes", "core_minutes", "deep_minutes", "rem_minutes",
                      "unspecified_minutes", "awake_minutes", "sources"], description: description)
    }

    /// One sleep night as structured output, dates in `zone`.
    static func sleepNightJSON(_ night: SleepNight, zone: TimeZone) -> JSONObject {
        var item = JSONObject()
        item.set("date", night.date)
        item.set("bedtime", night.bedtime.map { ISO8601.string($0, timeZone: zone) })
        item.set("wake_time", night.wakeTime.map { ISO8601.string($0, timeZone: zone) })
        item.set("in_bed_minutes", night.inBedMinutes, digits: 1)
        item.set("asleep_minutes", night.asleepMinutes, digits: 1)
        item.set("core_minutes", night.coreMinutes, digits: 1)
        item.set("deep_minutes", night.deepMinutes, digits: 1)
        item.set("rem_minutes", night.remMinutes, digits: 1)
        item.set("unspecified_minutes", night.unspecifiedMinutes, digits: 1)
        item.set("awake_minutes", night.awakeMinutes, digits: 1)
        item.set("sources", strings: night.sources)
        return item
    }
}
