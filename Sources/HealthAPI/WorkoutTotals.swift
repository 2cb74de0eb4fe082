import Foundation

/// The totals of every workout of a range (all pages of a ``WorkoutsResult``): how many, their minutes, and the
/// distance and energy of those that recorded one. Workouts do not overlap the way samples of two devices do, so
/// their figures add up; a total is nil when no workout recorded that figure. The service computes it
/// (``WorkoutsResult/totals``); adapters only show it.
///
/// ```swift
/// let week = try await service.workouts(WorkoutsRequest(start: "2024-05-06", end: "2024-05-13", limit: 1))
/// week.totals.count            // 3 (every workout of the week, not only this page)
/// week.totals.durationMinutes  // 142.5
/// week.totals.distanceKm       // 21.3, nil when no workout has a distance
/// ```
public struct WorkoutTotals: Codable, Sendable, Hashable {
    public var count: Int
    public var durationMinutes: Double
    public var distanceKm: Double?
    public var energyKcal: Double?

    public init(count: Int = 0, durationMinutes: Double = 0, distanceKm: Double? = nil, energyKcal: Double? = nil) {
        self.count = count; self.durationMinutes = durationMinutes; self.distanceKm = distanceKm
        self.energyKcal = energyKcal
    }

    /// The totals of `workouts` as the service listed them.
    public init(_ workouts: [WorkoutRecord]) {
        count = workouts.count
        durationMinutes = (workouts.reduce(0) { $0 + $1.durationMinutes } * 10).rounded() / 10
        let distances = workouts.compactMap(\.distanceKm)
        distanceKm = distances.isEmpty ? nil : (distances.reduce(0, +) * 100).rounded() / 100
        let energies = workouts.compactMap(\.energyKcal)
        energyKcal = energies.isEmpty ? nil : energies.reduce(0, +).rounded()
    }

    enum CodingKeys: String, CodingKey {
        case count, durationMinutes = "duration_minutes", distanceKm = "distance_km", energyKcal = "energy_kcal"
    }
}

extension WorkoutTotals: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "count": .integer("Workouts in the whole range (every page)."),
        "duration_minutes": .number("Their active time, pauses excluded."),
        "distance_km": .number("The distance of those that recorded one; absent when none did."),
        "energy_kcal": .number("The active energy of those that recorded it; absent when none did."),
    ], required: ["count", "duration_minutes"])
}
