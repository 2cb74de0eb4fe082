import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit authorize [--onboarding]`: the seed's requestFullAuthorization / requestOnboardingAuthorization,
/// then the app's status and HealthKit's for writing meals.
struct Authorize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask for access (the owner approves with `healthbridge access approve ID`); prints the status.")
    @OptionGroup var app: AppDirectory
    @Flag(help: "Only the onboarding set (weight, active energy, workouts; calories and macros).") var onboarding = false
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable {
        var authorizationStatus: String
        var dietaryEnergyConsumed: String
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let healthKit = HealthKitManager()
            if onboarding {
                try await healthKit.requestOnboardingAuthorization()
            } else {
                try await healthKit.requestFullAuthorization()
            }
            let meals = HKHealthStore().authorizationStatus(for: HKQuantityType(.dietaryEnergyConsumed))
            let output = Output(authorizationStatus: "\(healthKit.authorizationStatus)",
                                dietaryEnergyConsumed: "\(meals)")
            if json {
                try printJSON(output)
            } else {
                say("authorization: \(output.authorizationStatus)")
                say("writing meals (dietaryEnergyConsumed): \(output.dietaryEnergyConsumed)")
            }
        }
    }
}
