import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

extension HealthService {
    struct SleepState: Codable {
        var start: Date
        var end: Date
        var timeZone: String
    }

    static let sleepMergeNote = "Each night merges sources by priority: a phone's in-bed time and a watch's stages are kept side by side, two devices' stages are never added."

    /// Sleep nights (18:00 → 18:00, by wake-up day) whose wake-up day lies in the range, merged by source priority,
    /// at most ``SleepRequest/pageDays`` days per page. Nothing when this principal may not read sleepAnalysis.
    public func sleep(_ request: SleepRequest) async throws -> SleepResult {
        var state: SleepState
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: SleepState.self, use: "sleep")
            guard state.end >= state.start else { throw ServiceCursor.invalid("sleep") }
        } else {
            let zoned = try self.zoned(request.timeZone)
            let range = try zoned.range(start: request.start, end: request.end, defaultStart: "7d")
            state = SleepState(start: range.start, end: range.end, timeZone: zoned.homeTimeZone.identifier)
        }
        let service = try zoned(state.timeZone)
        let calendar = service.calendar
        let range = DateRange(unchecked: state.start, state.end)
        var result = SleepResult(timeZone: state.timeZone, start: service.iso(state.start), end: service.iso(state.end),
                                 count: 0, nights: [], merged: true, mergeNote: Self.sleepMergeNote, hasMore: false)
        guard let days = range.days(in: calendar), try await authorizeRead(["sleepAnalysis"]) else { return result }
        var lastDay = days.last
        if let limit = calendar.date(byAdding: .day, value: SleepRequest.pageDays - 1, to: days.first), limit < days.last {
            lastDay = limit
            if let next = calendar.date(byAdding: .day, value: 1, to: limit) {
                var following = state
                following.start = next
                result.hasMore = true
                result.nextCursor = ServiceCursor.encode(following, use: "sleep")
                result.end = service.iso(next)
            }
        }
        let nights = try await engine.sleepNights(from: days.first, to: lastDay, timeZone: service.homeTimeZone)
        result.nights = nights.map(service.sleepRecord)
        result.count = nights.count
        if !nights.isEmpty {
            result.averageAsleepMinutes = Self.minutes(nights.reduce(0) { $0 + $1.asleepMinutes } * 60 / Double(nights.count))
        }
        return result
    }

    func sleepRecord(_ night: SleepNight) -> SleepNightRecord {
        func m(_ minutes: Double) -> Double { Self.minutes(minutes * 60) }
        return SleepNightRecord(date: night.date, bedtime: night.bedtime.map(iso), wakeTime: night.wakeTime.map(iso),
                                inBedMinutes: m(night.inBedMinutes), asleepMinutes: m(night.asleepMinutes),
                                coreMinutes: m(night.coreMinutes), deepMinutes: m(night.deepMinutes),
                                remMinutes: m(night.remMinutes), unspecifiedMinutes: m(night.unspecifiedMinutes),
                                awakeMinutes: m(night.awakeMinutes), sources: night.sources)
    }
}
