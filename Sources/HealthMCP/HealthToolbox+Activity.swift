import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// activity_summaries, health_today.

extension HealthToolbox {
    static let maxActivityLimit = 1_000

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
        output: ActivitySummariesResult.self
    ) { toolbox, arguments in
        let request = ActivitySummariesRequest(start: try arguments.string("start"), end: try arguments.string("end"),
                                               timeZone: try arguments.string("time_zone"),
                                               cursor: try arguments.string("cursor"))
        let limit = arguments.has("limit") ? try arguments.int("limit", default: 100, range: 1...maxActivityLimit) : nil
        return try await toolbox.fitting(limit: limit, count: \.count, { limit in
            var page = request
            page.limit = limit
            return try await toolbox.service.activitySummaries(page)
        }, text: { $0.text(textStyle) })
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
        output: TodayResult.self
    ) { toolbox, _ in
        let today = try await toolbox.service.today()
        return ToolReply(structured: try structured(today), text: today.text)
    }

    // MARK: energy_balance

    static let energyBalance = ToolDefinition(
        name: "energy_balance", title: "Energy in and out per day",
        description: """
            Per day, in kcal: energy eaten (dietaryEnergyConsumed), active and resting energy burned, burned = \
            active + resting (total daily energy expenditure, TDEE) and balance = eaten − burned. Each figure is the \
            day's sum merged by source priority. A total or balance is present only when its parts were recorded: a \
            missing part is never counted as zero. Use it for calorie budgets and "am I eating more than I burn".
            """,
        arguments: [
            "start": Schema.start(defaultText: "today"),
            "end": Schema.end,
            "time_zone": Schema.timeZone,
        ],
        output: EnergyResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.energy(EnergyRequest(
            start: try arguments.string("start"), end: try arguments.string("end"),
            timeZone: try arguments.string("time_zone")))
        return ToolReply(structured: try structured(result), text: result.text)
    }
}
