import Foundation
import HealthEngine
import HealthModel
import HealthService
import HealthStore
import MCP

// activity_summaries, health_today.

extension HealthToolbox {
    static let maxActivityLimit = 1_000

    /// `activeEnergyBurned` → `active_energy_burned`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                if !result.isEmpty { result += "_" }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// An ActivitySummary document as a flat object: snake_case keys, numbers where the export has numeric strings.
    static func activityItem(_ document: HealthDocument, zone: TimeZone) -> JSONObject {
        var item = JSONObject()
        if let data = document.json.data(using: .utf8), let value = try? JSONDecoder().decode(JSON.self, from: data),
           case .object(let fields) = value {
            for (key, field) in fields {
                let name = snakeCase(key)
                switch field {
                case .string(let text):
                    if let number = Double(text), let json = JSONObject.number(number) { item.fields[name] = json } else { item.set(name, text) }
                case .int, .double, .bool: item.fields[name] = field
                case .null, .data: break
                case .array, .object: item.fields[name] = field
                }
            }
        }
        let day = item.fields["date_components"]?.stringValue ?? document.start.map { TextFormat.day($0, zone) }
        item.set("date", day)
        return item
    }

    static let activitySummaries = ToolDefinition(
        name: "activity_summaries", title: "Activity rings per day",
        description: """
            Apple Watch activity summaries (the Move, Exercise and Stand rings) per day: active energy burned and \
            its goal, exercise minutes and goal, stand hours and goal, as imported from an Apple Health export. \
            Newest first. When the store has none (no export imported, or no Apple Watch), the list is empty: use \
            summarize with activeEnergyBurned, appleExerciseTime or stepCount instead.
            """,
        arguments: [
            "start": Schema.start(defaultText: "7d, the last seven days"),
            "end": Schema.end,
            "limit": Schema.integer("Days per page.", minimum: 1, maximum: maxActivityLimit, default: 100),
            "time_zone": Schema.timeZone,
            "cursor": Schema.cursor,
        ],
        output: Schema.object([
            "time_zone": Schema.string(),
            "start": Schema.isoString,
            "end": Schema.isoString,
            "count": Schema.integer(),
            "summaries": Schema.array(Schema.object([
                "date": Schema.string("The day, YYYY-MM-DD."),
                "active_energy_burned": Schema.number(),
                "active_energy_burned_goal": Schema.number(),
                "active_energy_burned_unit": Schema.string(),
                "apple_exercise_time": Schema.number("Minutes."),
                "apple_exercise_time_goal": Schema.number(),
                "apple_stand_hours": Schema.number(),
                "apple_stand_hours_goal": Schema.number(),
                "apple_move_time": Schema.number(),
                "apple_move_time_goal": Schema.number(),
            ], additionalProperties: true), "One object per day, with the export's fields in snake_case."),
            "note": Schema.string(),
        ].merging(Schema.paging) { a, _ in a }, required: ["time_zone", "start", "end", "count", "summaries", "has_more"])
    ) { toolbox, arguments in
        var service = try toolbox.service(arguments)
        let start: Date, end: Date, limit: Int
        var offset = 0
        if let cursor = try arguments.string("cursor") {
            let state = try PageCursor.decode(cursor, tool: "activity_summaries")
            start = try state.cursorDate("start")
            end = try state.cursorDate("end")
            limit = try state.cursorInt("limit", in: 1...maxActivityLimit)
            offset = try state.cursorInt("offset", in: 0...10_000_000)
            if let zone = state.cursorOptionalString("time_zone") { service.homeTimeZone = try DateExpression.timeZone(zone) }
        } else {
            (start, end) = try toolbox.range(arguments, service, defaultStart: "7d")
            limit = try arguments.int("limit", default: 100, range: 1...maxActivityLimit)
        }
        let zone = service.homeTimeZone
        let documents = try await service.store.documents(kind: .activitySummary, start: start, end: end,
                                                          limit: offset + limit + 1)
        var budget = PageBudget(toolbox.itemBudget)
        var items: [JSON] = []
        var rows: [[String]] = []
        for document in documents.dropFirst(offset).prefix(limit) {
            let item = activityItem(document, zone: zone)
            func figure(_ key: String) -> String {
                guard let value = item.fields[key] else { return "—" }
                return TextFormat.number(value.doubleValue ?? value.intValue.map(Double.init))
            }
            let row = [item.fields["date"]?.stringValue ?? "?",
                       "\(figure("active_energy_burned"))/\(figure("active_energy_burned_goal"))",
                       "\(figure("apple_exercise_time"))/\(figure("apple_exercise_time_goal"))",
                       "\(figure("apple_stand_hours"))/\(figure("apple_stand_hours_goal"))"]
            guard budget.take(item.value, text: row.joined(separator: "  ")) else { break }
            items.append(item.value)
            rows.append(row)
        }
        let hasMore = documents.count > offset + items.count
        var structured: [String: JSON] = [
            "time_zone": .string(zone.identifier), "start": .string(ISO8601.string(start, timeZone: zone)),
            "end": .string(ISO8601.string(end, timeZone: zone)), "count": .int(items.count),
            "summaries": .array(items), "has_more": .bool(hasMore),
        ]
        var text: String
        if items.isEmpty {
            let note = "No activity summaries (Move/Exercise/Stand rings) between \(TextFormat.day(start, zone)) and \(TextFormat.day(end, zone)): they come from an imported Apple Health export with Apple Watch data. For activity, use summarize with activeEnergyBurned, appleExerciseTime or stepCount."
            structured["note"] = .string(note)
            text = note
        } else {
            text = "Activity rings, newest first (\(zone.identifier)):\n"
                + TextFormat.table(["date", "move kcal/goal", "exercise min/goal", "stand h/goal"], rows)
        }
        if hasMore {
            let cursor = PageCursor.encode(tool: "activity_summaries", [
                "start": .string(ISO8601.string(start)), "end": .string(ISO8601.string(end)), "limit": .int(limit),
                "offset": .int(offset + items.count), "time_zone": .string(zone.identifier),
            ])
            structured["next_cursor"] = .string(cursor)
            text += "\nMore days: call activity_summaries with cursor=\"\(cursor)\"."
        }
        return ToolReply(structured: structured, text: text)
    }

    // MARK: health_today

    static let healthToday = ToolDefinition(
        name: "health_today", title: "Today at a glance",
        description: """
            Today so far, in the user's home time zone: steps (merged across iPhone and Apple Watch by priority, as \
            the Health app shows them), active energy, resting heart rate, last night's sleep, and today's workouts. \
            A good first call for "how am I doing today".
            """,
        arguments: [:],
        output: Schema.object([
            "date": Schema.string("Today, YYYY-MM-DD, in time_zone."),
            "time_zone": Schema.string(),
            "start": Schema.isoString,
            "now": Schema.isoString,
            "steps": Schema.number("Merged by source priority."),
            "steps_source_priority": Schema.array(Schema.string(), "The order steps were merged by, highest first."),
            "active_energy_kcal": Schema.number(),
            "resting_heart_rate_bpm": Schema.number("The most recent resting heart rate today."),
            "sleep": HealthToolbox.sleepNightSchema(description: "Last night (the night ending today)."),
            "workouts": Schema.array(Schema.object(workoutSummarySchema,
                                                   required: ["uuid", "activity_type", "start", "end", "duration_minutes", "source", "route_point_count"])),
            "workout_count": Schema.integer(),
            "workout_minutes": Schema.number(),
            "merged": Schema.boolean("True: totals merge overlapping sources by priority."),
        ], required: ["date", "time_zone", "start", "now", "workouts", "workout_count", "workout_minutes", "merged"])
    ) { toolbox, _ in
        let service = toolbox.service
        let zone = service.homeTimeZone
        let today = try await service.today()
        let priority = try await service.store.priority(type: "stepCount", counts: false).map(\.source.name)
        var result = JSONObject()
        result.set("date", TextFormat.day(today.start, zone))
        result.set("time_zone", zone.identifier)
        result.set("start", ISO8601.string(today.start, timeZone: zone))
        result.set("now", ISO8601.string(today.end, timeZone: zone))
        result.set("steps", today.steps, digits: 0)
        result.set("steps_source_priority", strings: priority)
        result.set("active_energy_kcal", today.activeEnergyKcal, digits: 0)
        result.set("resting_heart_rate_bpm", today.restingHeartRate, digits: 1)
        var lines = ["Today \(TextFormat.day(today.start, zone)) so far (\(zone.identifier), until \(TextFormat.clock(today.end, zone))):"]
        lines.append("Steps: \(today.steps.map { TextFormat.number($0) } ?? "none yet") (merged by source priority: \(priority.joined(separator: " > ")))")
        lines.append("Active energy: \(today.activeEnergyKcal.map { TextFormat.number($0) + " kcal" } ?? "—")")
        lines.append("Resting heart rate: \(today.restingHeartRate.map { TextFormat.number($0) + " bpm" } ?? "— (not yet recorded today)")")
        if let night = today.sleep {
            result.set("sleep", HealthToolbox.sleepNightJSON(night, zone: zone).value)
            lines.append("Last night: asleep \(TextFormat.minutes(night.asleepMinutes)) (bed \(TextFormat.clock(night.bedtime, zone)) → \(TextFormat.clock(night.wakeTime, zone))), deep \(TextFormat.minutes(night.deepMinutes)), REM \(TextFormat.minutes(night.remMinutes)), core \(TextFormat.minutes(night.coreMinutes)), awake \(TextFormat.minutes(night.awakeMinutes))")
        } else {
            lines.append("Last night: no sleep recorded")
        }
        result.set("workouts", JSON.array(today.workouts.map { workoutSummary($0, zone: zone).value }))
        result.set("workout_count", today.workouts.count)
        let minutes = today.workouts.reduce(0) { $0 + $1.duration } / 60
        result.set("workout_minutes", minutes, digits: 1)
        result.set("merged", true)
        lines.append(today.workouts.isEmpty
            ? "Workouts: none yet"
            : "Workouts: " + today.workouts.map { workoutLine($0, zone: zone) }.joined(separator: "; "))
        return ToolReply(structured: result.fields, text: lines.joined(separator: "\n"))
    }
}
