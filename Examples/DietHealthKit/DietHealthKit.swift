import ArgumentParser
import Foundation

/// `diet-healthkit`: the diet app's HealthKit code (seed §2–§6) run as the app would run it, on HealthKitBridge over a
/// paired `healthbridge serve`. Each command is one thing the app does: pair, ask for access, log, read, launch (the
/// observers and background delivery), and a crash-safe bulk load.
@main
struct DietHealthKit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diet-healthkit",
        abstract: "The diet app's HealthKit code (seed §2–§6) on HealthKitBridge, against a paired HealthBridge.",
        subcommands: [Pair.self, Authorize.self, Meal.self, Weight.self, Water.self, DeleteMeal.self,
                      LatestWeight.self, WeightHistory.self, TodayEnergy.self, TodayWorkouts.self,
                      Launch.self, CrashLoad.self])
}
