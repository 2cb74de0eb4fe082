import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit today-workouts [--json]`: the seed's fetchTodayWorkouts, newest first, with its display names.
struct TodayWorkouts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "today-workouts", abstract: "Today's workouts, newest first.")
    @OptionGroup var app: AppDirectory
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable {
        var displayName: String
        var activityType: String
        var duration: Double
        var calories: Double
        var startDate: String
        var endDate: String
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let workouts = try await HealthKitManager().fetchTodayWorkouts().map { workout in
                Output(displayName: workout.displayName, activityType: "\(workout.activityType)", duration: workout.duration,
                       calories: workout.calories, startDate: isoString(workout.startDate), endDate: isoString(workout.endDate))
            }
            if json {
                try printJSON(workouts)
            } else {
                for workout in workouts {
                    say("\(workout.startDate)  \(workout.displayName)  \(whole(workout.duration / 60)) min  \(whole(workout.calories)) kcal")
                }
                say("\(workouts.count) workouts today")
            }
        }
    }
}
