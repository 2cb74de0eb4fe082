import Foundation

/// The totals of a list of workouts as the service gave them: how many, their minutes, and the distance and energy
/// of those that recorded one. Workouts do not overlap the way samples of two devices do, so their figures add up;
/// a total is nil when no workout recorded that figure.
///
/// ```swift
/// let week = try await service.workouts(WorkoutsRequest(start: "2024-05-06", end: "2024-05-13", limit: 500))
/// let totals = WorkoutTotals(week.workouts)
/// totals.count            // 3
/// totals.durationMinutes  // 142.5
/// totals.distanceKm       // 21.3, nil when no workout has a distance
/// ```
public struct WorkoutTotals: Sendable, Hashable {
    public var count: Int
    public var durationMinutes: Double
    public var distanceKm: Double?
    public var energyKcal: Double?

    public init(_ workouts: [WorkoutRecord]) {
        count = workouts.count
        durationMinutes = workouts.reduce(0) { $0 + $1.durationMinutes }
        let distances = workouts.compactMap(\.distanceKm)
        distanceKm = distances.isEmpty ? nil : distances.reduce(0, +)
        let energies = workouts.compactMap(\.energyKcal)
        energyKcal = energies.isEmpty ? nil : energies.reduce(0, +)
    }
}
