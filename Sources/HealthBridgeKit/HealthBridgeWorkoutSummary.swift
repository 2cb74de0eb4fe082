import Foundation
import HealthModel

/// A workout of today, as the diet app shows it (seed §3 `HealthBridgeWorkoutSummary`), with the seed's display names.
///
/// ```swift
/// for workout in try await manager.fetchTodayWorkouts() { print(workout.displayName, workout.calories) }
/// ```
public struct HealthBridgeWorkoutSummary: Sendable, Hashable {
    public let activityType: WorkoutActivityType
    /// Seconds.
    public let duration: TimeInterval
    /// kcal (0 when the workout has no energy).
    public let calories: Double
    public let startDate: Date
    public let endDate: Date

    public init(activityType: WorkoutActivityType, duration: TimeInterval, calories: Double, startDate: Date, endDate: Date) {
        self.activityType = activityType; self.duration = duration; self.calories = calories
        self.startDate = startDate; self.endDate = endDate
    }

    /// The seed's display name: Running, Walking, Cycling, Swimming, Strength Training, Yoga, Hiking, else Workout.
    ///
    /// ```swift
    /// summary.displayName   // "Strength Training" for functionalStrengthTraining
    /// ```
    public var displayName: String {
        switch activityType.name {
        case "running": return "Running"
        case "walking": return "Walking"
        case "cycling": return "Cycling"
        case "swimming": return "Swimming"
        case "functionalStrengthTraining": return "Strength Training"
        case "yoga": return "Yoga"
        case "hiking": return "Hiking"
        default: return "Workout"
        }
    }
}
