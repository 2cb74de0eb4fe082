import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthService
import HealthStore
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
        }, text: { result in
            func figure(_ value: Double?) -> String { TextFormat.number(value) }
            var text = result.note ?? ("Activity rings, newest first (\(result.timeZone)):\n" + TextFormat.table(
                ["date", "move kcal/goal", "exercise min/goal", "stand h/goal"],
                result.summaries.map { day in
                    [day.date, "\(figure(day.activeEnergyBurned))/\(figure(day.activeEnergyBurnedGoal))",
                     "\(figure(day.appleExerciseTime))/\(figure(day.appleExerciseTimeGoal))",
                     "\(figure(day.appleStandHours))/\(figure(day.appleStandHoursGoal))"]
                }))
            if let next = result.nextCursor { text += "\nMore days: call activity_summaries with cursor=\"\(next)\"." }
            return text
        })
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
        var lines = ["Today \(today.date) so far (\(today.timeZone), until \(TextFormat.localClock(today.now))):"]
        lines.append("Steps: \(today.steps.map { TextFormat.number($0) } ?? "none yet") (merged by source priority: \(today.stepsSourcePriority.joined(separator: " > ")))")
        lines.append("Active energy: \(today.activeEnergyKcal.map { TextFormat.number($0) + " kcal" } ?? "—")")
        lines.append("Resting heart rate: \(today.restingHeartRateBpm.map { TextFormat.number($0) + " bpm" } ?? "— (not yet recorded today)")")
        if let night = today.sleep {
            lines.append("Last night: asleep \(TextFormat.minutes(night.asleepMinutes)) (bed \(TextFormat.localClock(night.bedtime)) → \(TextFormat.localClock(night.wakeTime))), deep \(TextFormat.minutes(night.deepMinutes)), REM \(TextFormat.minutes(night.remMinutes)), core \(TextFormat.minutes(night.coreMinutes)), awake \(TextFormat.minutes(night.awakeMinutes))")
        } else {
            lines.append("Last night: no sleep recorded")
        }
        lines.append(today.workouts.isEmpty
            ? "Workouts: none yet"
            : "Workouts: " + today.workouts.map(workoutLine).joined(separator: "; "))
        return ToolReply(structured: try structured(today), text: lines.joined(separator: "\n"))
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
        func figure(_ value: Double?) -> String { value.map { TextFormat.number($0) } ?? "—" }
        let text = "Energy in and out per day, kcal (\(result.timeZone)); burned = active + resting:\n" + TextFormat.table(
            ["date", "eaten", "active", "resting", "burned", "balance"],
            result.days.map { day in
                [day.date, figure(day.eatenKcal), figure(day.activeKcal), figure(day.basalKcal), figure(day.burnedKcal),
                 figure(day.balanceKcal)]
            })
        return ToolReply(structured: try structured(result), text: text)
    }
}
