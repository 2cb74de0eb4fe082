import Foundation
import HealthModel
import HealthStore

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

    enum CodingKeys: String, CodingKey {
        case date, activeEnergyBurned = "active_energy_burned", activeEnergyBurnedGoal = "active_energy_burned_goal"
        case activeEnergyBurnedUnit = "active_energy_burned_unit", appleExerciseTime = "apple_exercise_time"
        case appleExerciseTimeGoal = "apple_exercise_time_goal", appleStandHours = "apple_stand_hours"
        case appleStandHoursGoal = "apple_stand_hours_goal", appleMoveTime = "apple_move_time"
        case appleMoveTimeGoal = "apple_move_time_goal"
    }
}

extension HealthService {
    struct ActivityState: Codable {
        var start: Date
        var end: Date
        var limit: Int
        var offset: Int
        var timeZone: String
    }

    /// Activity summaries in a range, newest first. Nothing when this principal may not read `activitySummary`.
    public func activitySummaries(_ request: ActivitySummariesRequest) async throws -> ActivitySummariesResult {
        var state: ActivityState
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: ActivityState.self, use: "activity")
            guard (1...ActivitySummariesRequest.maxLimit).contains(state.limit), (0...10_000_000).contains(state.offset),
                  state.end >= state.start else { throw ServiceCursor.invalid("activity") }
            if let limit = request.limit {
                state.limit = try Self.limit(limit, default: state.limit, range: 1...ActivitySummariesRequest.maxLimit)
            }
        } else {
            let zoned = try self.zoned(request.timeZone)
            let range = try zoned.range(start: request.start, end: request.end, defaultStart: "7d")
            state = ActivityState(start: range.start, end: range.end,
                                  limit: try Self.limit(request.limit, default: 100, range: 1...ActivitySummariesRequest.maxLimit),
                                  offset: 0, timeZone: zoned.homeTimeZone.identifier)
        }
        let service = try zoned(state.timeZone)
        var result = ActivitySummariesResult(timeZone: state.timeZone, start: service.iso(state.start),
                                             end: service.iso(state.end), count: 0, summaries: [], hasMore: false)
        let documents = try await authorizeRead(["activitySummary"])
            ? try await store.documents(kind: .activitySummary, start: state.start, end: state.end,
                                        limit: state.offset + state.limit + 1)
            : []
        result.summaries = documents.dropFirst(state.offset).prefix(state.limit).map(service.activityDay)
        result.count = result.summaries.count
        if documents.count > state.offset + result.count {
            state.offset += result.count
            result.hasMore = true
            result.nextCursor = ServiceCursor.encode(state, use: "activity")
        }
        if result.summaries.isEmpty {
            result.note = "No activity summaries (Move/Exercise/Stand rings) between \(ISO8601.dateString(state.start, timeZone: service.homeTimeZone)) and \(ISO8601.dateString(state.end, timeZone: service.homeTimeZone)): they come from an imported Apple Health export with Apple Watch data. For activity, use a summary of activeEnergyBurned, appleExerciseTime or stepCount."
        }
        return result
    }

    /// An `ActivitySummary` element's fields; the export writes numbers as strings.
    func activityDay(_ document: HealthDocument) -> ActivityDay {
        let fields = (try? JSONSerialization.jsonObject(with: Data(document.json.utf8))) as? [String: Any] ?? [:]
        func number(_ key: String) -> Double? {
            switch fields[key] {
            case let value as NSNumber: return value.doubleValue
            case let text as String: return Double(text)
            default: return nil
            }
        }
        let date = fields["dateComponents"] as? String
            ?? document.start.map { ISO8601.dateString($0, timeZone: homeTimeZone) } ?? "?"
        return ActivityDay(date: date, activeEnergyBurned: number("activeEnergyBurned"),
                           activeEnergyBurnedGoal: number("activeEnergyBurnedGoal"),
                           activeEnergyBurnedUnit: fields["activeEnergyBurnedUnit"] as? String,
                           appleExerciseTime: number("appleExerciseTime"), appleExerciseTimeGoal: number("appleExerciseTimeGoal"),
                           appleStandHours: number("appleStandHours"), appleStandHoursGoal: number("appleStandHoursGoal"),
                           appleMoveTime: number("appleMoveTime"), appleMoveTimeGoal: number("appleMoveTimeGoal"))
    }
}
