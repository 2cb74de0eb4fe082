import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit delete-meal ID`: removes the meal from the app and its samples from HealthKit by log id (the seed's
/// deleteNutrition(logId:)).
struct DeleteMeal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete-meal",
                                                    abstract: "Delete a meal here and in HealthKit (by its DietAppLogId).")
    @OptionGroup var app: AppDirectory
    @Argument(help: "The meal's id.") var id: String

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            try await HealthKitManager().deleteNutrition(logId: id)
            try await FileFoodLogRepository(directory: app.url).delete(id: id)
            say("meal \(id) deleted from HealthKit")
        }
    }
}
