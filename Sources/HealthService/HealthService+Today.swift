import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

extension HealthService {
    /// Today so far: steps and active energy merged by priority, the latest resting heart rate, last night's sleep,
    /// today's workouts. What this principal may not read is absent.
    ///
    /// ```swift
    /// let today = try await service.today()
    /// today.steps   // 8,412
    /// ```
    public func today() async throws -> TodayResult {
        let now = clock()
        let start = calendar.startOfDay(for: now)
        let grants = try await readGrant()   // paused sharing refuses paired devices and apps first
        func total(_ type: String) async throws -> Double? {
            guard grants.allows(type) else { return nil }
            return try await engine.statistics(StatisticsRequest(type: SampleTypeRegistry.resolve(type), start: start, end: now,
                                                                 timeZone: homeTimeZone)).buckets.first?.sum
        }
        let steps = try await total("stepCount")
        let energy = try await total("activeEnergyBurned")
        let resting = grants.allows("restingHeartRate")
            ? try await engine.statistics(StatisticsRequest(type: SampleTypeRegistry.resolve("restingHeartRate"), start: start, end: now,
                                                            timeZone: homeTimeZone, options: [.mostRecent]))
                .buckets.first?.mostRecent
            : nil
        let sleep = grants.allows("sleepAnalysis")
            ? try await engine.sleepNights(from: start, to: now, timeZone: homeTimeZone).last : nil
        let workouts = grants.allows("workout")
            ? try await store.workouts(WorkoutQuery(start: start, end: now, ascending: true)) : []
        let priority = grants.allows("stepCount")
            ? try await store.priority(type: "stepCount", counts: false).map(\.source.name) : []
        return TodayResult(date: ISO8601.dateString(start, timeZone: homeTimeZone), timeZone: homeTimeZone.identifier,
                           start: iso(start), now: iso(now), steps: steps, stepsSourcePriority: priority,
                           activeEnergyKcal: energy, restingHeartRateBpm: resting, sleep: sleep.map(sleepRecord),
                           workouts: workouts.map { workoutRecord($0, routes: grants.allows(Self.workoutRouteType)) }, workoutCount: workouts.count,
                           workoutMinutes: Self.minutes(workouts.reduce(0) { $0 + $1.duration }), merged: true)
    }
}
