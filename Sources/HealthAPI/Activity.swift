import Foundation
import HealthModel

/// Apple Watch activity rings per day, from an imported export.
///
/// ```swift
/// let rings = try await service.activitySummaries(ActivitySummariesRequest(start: "7d"))
/// ```
public struct ActivitySummariesRequest: Codable, Sendable, Hashable {
    /// Default `7d`.
    public var start: String?
    public var end: String?
    /// Days per page, 1…1,000, default 100.
    public var limit: Int?
    public var timeZone: String?
    public var cursor: String?

    public init(start: String? = nil, end: String? = nil, limit: Int? = nil, timeZone: String? = nil,
                cursor: String? = nil) {
        self.start = start; self.end = end; self.limit = limit; self.timeZone = timeZone; self.cursor = cursor
    }

    public static let maxLimit = 1_000
}

public struct ActivitySummariesResult: Codable, Sendable, Hashable {
    public var timeZone: String
    public var start: String
    public var end: String
    public var count: Int
    /// Newest first.
    public var summaries: [ActivityDay]
    public var note: String?
    public var hasMore: Bool
    public var nextCursor: String?

    public init(timeZone: String, start: String, end: String, count: Int, summaries: [ActivityDay],
                note: String? = nil, hasMore: Bool, nextCursor: String? = nil) {
        self.timeZone = timeZone; self.start = start; self.end = end; self.count = count; self.summaries = summaries
        self.note = note; self.hasMore = hasMore; self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case timeZone = "time_zone", start, end, count, summaries, note, hasMore = "has_more", nextCursor = "next_cursor"
    }
}

/// One day's rings: Move (active energy), Exercise (minutes), Stand (hours), and the Move time of newer watches.
public struct ActivityDay: Codable, Sendable, Hashable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var activeEnergyBurned: Double?
    public var activeEnergyBurnedGoal: Double?
    public var activeEnergyBurnedUnit: String?
    public var appleExerciseTime: Double?
    public var appleExerciseTimeGoal: Double?
    public var appleStandHours: Double?
    public var appleStandHoursGoal: Double?
    public var appleMoveTime: Double?
    public var appleMoveTimeGoal: Double?

    public init(date: String, activeEnergyBurned: Double? = nil, activeEnergyBurnedGoal: Double? = nil,
                activeEnergyBurnedUnit: String? = nil, appleExerciseTime: Double? = nil,
                appleExerciseTimeGoal: Double? = nil, appleStandHours: Double? = nil,
                appleStandHoursGoal: Double? = nil, appleMoveTime: Double? = nil, appleMoveTimeGoal: Double? = nil) {
        self.date = date; self.activeEnergyBurned = activeEnergyBurned
        self.activeEnergyBurnedGoal = activeEnergyBurnedGoal; self.activeEnergyBurnedUnit = activeEnergyBurnedUnit
        self.appleExerciseTime = appleExerciseTime; self.appleExerciseTimeGoal = appleExerciseTimeGoal
        self.appleStandHours = appleStandHours; self.appleStandHoursGoal = appleStandHoursGoal
        self.appleMoveTime = appleMoveTime; self.appleMoveTimeGoal = appleMoveTimeGoal
    }

    enum CodingKeys: String, CodingKey {
        case date, activeEnergyBurned = "active_energy_burned", activeEnergyBurnedGoal = "active_energy_burned_goal"
        case activeEnergyBurnedUnit = "active_energy_burned_unit", appleExerciseTime = "apple_exercise_time"
        case appleExerciseTimeGoal = "apple_exercise_time_goal", appleStandHours = "apple_stand_hours"
        case appleStandHoursGoal = "apple_stand_hours_goal", appleMoveTime = "apple_move_time"
        case appleMoveTimeGoal = "apple_move_time_goal"
    }
}

// MARK: - Schemas

extension ActivitySummariesRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "start": .string("Start of the range: a date expression (DateRange). Default 7d."),
        "end": .string("End of the range (exclusive). Default now."),
        "limit": .integer("Days per page.", minimum: 1, maximum: maxLimit, default: 100),
        "timeZone": .string("IANA zone of the days; default the home zone."),
        "cursor": .string("next_cursor of the previous page."),
    ])
}

extension ActivitySummariesResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "count": .integer(),
        "summaries": .array(ActivityDay.jsonSchema, "One object per day, with the export's fields in snake_case."),
        "note": .string(),
    ].adding(JSONSchema.paging), required: ["time_zone", "start", "end", "count", "summaries", "has_more"])
}

extension ActivityDay: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "date": .string("The day, YYYY-MM-DD."),
        "active_energy_burned": .number(),
        "active_energy_burned_goal": .number(),
        "active_energy_burned_unit": .string(),
        "apple_exercise_time": .number("Minutes."),
        "apple_exercise_time_goal": .number(),
        "apple_stand_hours": .number(),
        "apple_stand_hours_goal": .number(),
        "apple_move_time": .number(),
        "apple_move_time_goal": .number(),
    ], required: ["date"])
}
