import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel

// The seed's reads (§3). Dates like "today" are the server's, resolved in its home zone; sums are the server's
// statistics, merged by source priority: the kit computes no health number itself.
extension HealthBridgeManager {
    /// The most recent weight in kg and when it was measured, nil when there is none (or it is not shared with
    /// this app: HealthKit's rule, the same answer).
    ///
    /// ```swift
    /// if let (weight, date) = try await manager.fetchLatestWeight() { print("\(weight) kg on \(date)") }
    /// ```
    public func fetchLatestWeight() async throws(HealthBridgeError) -> (weight: Double, date: Date)? {
        let latest = try await get("health/latest", query: [("type", HealthDataType.bodyMass.rawValue)], as: LatestResult.self)
        guard latest.found, let value = latest.value, let start = latest.start, let date = HealthBridgeDates.parse(start) else {
            return nil
        }
        guard latest.unit == nil || latest.unit == "kg" else {
            throw .queryFailed(HealthBridgeFailure(message: "bodyMass came in \(latest.unit ?? "?"), not kg", isTransient: false))
        }
        return (value, date)
    }

    /// Weights of the last `days` days in kg, oldest first.
    ///
    /// ```swift
    /// let month = try await manager.fetchWeightHistory(days: 30)
    /// ```
    public func fetchWeightHistory(days: Int = 30) async throws(HealthBridgeError) -> [(weight: Double, date: Date)] {
        let now = Date()
        let start = now.addingTimeInterval(-Double(max(0, days)) * 86_400)
        let samples = try await allSamples(DataRequest(types: [HealthDataType.bodyMass.rawValue],
                                                       start: HealthBridgeDates.string(start),
                                                       end: HealthBridgeDates.string(now.addingTimeInterval(1))))
        return samples.compactMap { sample -> (weight: Double, date: Date)? in
            guard let value = sample.value, let date = HealthBridgeDates.parse(sample.dateISO) else { return nil }
            return (value, date)
        }.sorted { $0.date < $1.date }
    }

    /// Active energy burned today so far, kcal, merged across sources by priority (HKStatisticsQuery's
    /// cumulative sum).
    ///
    /// ```swift
    /// let active = try await manager.fetchTodayActiveEnergy()
    /// ```
    public func fetchTodayActiveEnergy() async throws(HealthBridgeError) -> Double {
        try await todaySum(.activeEnergyBurned)
    }

    /// Basal (resting) energy burned today so far, kcal, merged by priority: with active energy, today's TDEE.
    ///
    /// ```swift
    /// let tdee = try await manager.fetchTodayBasalEnergy() + manager.fetchTodayActiveEnergy()
    /// ```
    public func fetchTodayBasalEnergy() async throws(HealthBridgeError) -> Double {
        try await todaySum(.basalEnergyBurned)
    }

    func todaySum(_ type: HealthDataType) async throws(HealthBridgeError) -> Double {
        let result = try await statistics(StatisticsQuery(type: type, start: "today", end: "now", interval: "total",
                                                          statistics: ["sum"], unit: "kcal"))
        return result.totalSum ?? result.buckets.compactMap(\.sum).reduce(0, +)
    }

    /// Today's workouts, newest first, with the seed's display names.
    ///
    /// ```swift
    /// let names = try await manager.fetchTodayWorkouts().map(\.displayName)
    /// ```
    public func fetchTodayWorkouts() async throws(HealthBridgeError) -> [HealthBridgeWorkoutSummary] {
        let list = try await get("health/workouts", query: [("start", "today"), ("end", "now"), ("order", "desc")],
                                 as: WorkoutsResult.self)
        return list.workouts.compactMap { record in
            guard let start = HealthBridgeDates.parse(record.start), let end = HealthBridgeDates.parse(record.end) else {
                return nil
            }
            let activity = WorkoutActivityType.named(record.activityType) ?? WorkoutActivityType(rawValue: 3000, name: "other")
            return HealthBridgeWorkoutSummary(activityType: activity, duration: record.durationMinutes * 60,
                                  calories: record.energyKcal ?? 0, startDate: start, endDate: end)
        }
    }
}
