import ArgumentParser
import Foundation
import HealthService

struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today", abstract: "Today so far: steps and active energy merged by priority, resting heart rate, last night, workouts.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let today = try await store.openService().today()
        if output.json { return try Output.json(today) }
        print("Today \(today.date) until \(Output.clock(today.now)) (\(today.timeZone))")
        print("Steps:              \(Output.number(today.steps))  (merged: \(today.stepsSourcePriority.joined(separator: " → ")))")
        print("Active energy:      \(Output.number(today.activeEnergyKcal)) kcal")
        print("Resting heart rate: \(Output.number(today.restingHeartRateBpm, decimals: 1)) bpm")
        if let night = today.sleep {
            print("Last night:         asleep \(Output.minutes(night.asleepMinutes)), \(Output.clock(night.bedtime)) → \(Output.clock(night.wakeTime))")
        } else {
            print("Last night:         no sleep recorded")
        }
        print("Workouts:           \(today.workoutCount), \(Output.number(today.workoutMinutes)) min")
    }
}
