import Foundation
import HealthModel

/// Today so far in the home zone.
public struct TodayResult: Codable, Sendable, Hashable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var timeZone: String
    public var start: String
    public var now: String
    /// Merged by source priority.
    public var steps: Double?
    public var stepsSourcePriority: [String]
    public var activeEnergyKcal: Double?
    /// The most recent resting heart rate today.
    public var restingHeartRateBpm: Double?
    /// Last night: the night ending today.
    public var sleep: SleepNightRecord?
    public var workouts: [WorkoutRecord]
    public var workoutCount: Int
    public var workoutMinutes: Double
    public var merged: Bool

    public init(date: String, timeZone: String, start: String, now: String, steps: Double? = nil,
                stepsSourcePriority: [String], activeEnergyKcal: Double? = nil, restingHeartRateBpm: Double? = nil,
                sleep: SleepNightRecord? = nil, workouts: [WorkoutRecord], workoutCount: Int, workoutMinutes: Double,
                merged: Bool) {
        self.date = date; self.timeZone = timeZone; self.start = start; self.now = now; self.steps = steps
        self.stepsSourcePriority = stepsSourcePriority; self.activeEnergyKcal = activeEnergyKcal
        self.restingHeartRateBpm = restingHeartRateBpm; self.sleep = sleep; self.workouts = workouts
        self.workoutCount = workoutCount; self.workoutMinutes = workoutMinutes; self.merged = merged
    }

    enum CodingKeys: String, CodingKey {
        case date, timeZone = "time_zone", start, now, steps, stepsSourcePriority = "steps_source_priority"
        case activeEnergyKcal = "active_energy_kcal", restingHeartRateBpm = "resting_heart_rate_bpm", sleep, workouts
        case workoutCount = "workout_count", workoutMinutes = "workout_minutes", merged
    }
}

// MARK: - Schemas

extension TodayResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "date": .string("Today, YYYY-MM-DD, in time_zone."),
        "time_zone": .string(),
        "start": .instant(),
        "now": .instant(),
        "steps": .number("Merged by source priority."),
        "steps_source_priority": .array(.string(), "The order steps were merged by, highest first."),
        "active_energy_kcal": .number(),
        "resting_heart_rate_bpm": .number("The most recent resting heart rate today."),
        "sleep": SleepNightRecord.jsonSchema.describing("Last night (the night ending today)."),
        "workouts": .array(WorkoutRecord.jsonSchema),
        "workout_count": .integer(),
        "workout_minutes": .number(),
        "merged": .boolean("True: totals merge overlapping sources by priority."),
    ], required: ["date", "time_zone", "start", "now", "steps_source_priority", "workouts", "workout_count",
                  "workout_minutes", "merged"])
}
