import Foundation
import HealthAPI
import HealthModel
import HealthStore

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
