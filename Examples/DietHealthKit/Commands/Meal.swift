import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit meal --id … --calories … --protein … --carbs … --fat … [--fiber …] [--notes …]`: the app keeps the
/// meal and writes it to HealthKit (the seed's writeNutrition, as HealthKitSyncService.syncFoodLogToHealthKit calls it).
struct Meal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log a meal: kept by the app and written to HealthKit.")
    @OptionGroup var app: AppDirectory
    @Option(help: "The meal's id (DietAppLogId).") var id: String
    @Option(help: "kcal.") var calories: Double
    @Option(help: "Grams.") var protein: Double
    @Option(help: "Grams.") var carbs: Double
    @Option(help: "Grams.") var fat: Double
    @Option(help: "Grams.") var fiber: Double?
    @Option(help: "What it was (HKMetadataKeyFoodType).") var notes: String?

    func validate() throws {
        guard !id.isEmpty, id.utf8.count <= 128 else { throw ValidationError("--id must be 1 to 128 bytes") }
        for (name, value) in [("calories", calories), ("protein", protein), ("carbs", carbs), ("fat", fat), ("fiber", fiber ?? 0)]
        where !(value.isFinite && value >= 0) {
            throw ValidationError("--\(name) must be a number ≥ 0")
        }
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let meal = FoodLogRecord(id: id, calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber,
                                     notes: notes, loggedAt: wholeSecondNow())
            try await FileFoodLogRepository(directory: app.url).save(meal)
            try await HealthKitManager().writeNutrition(from: meal)
            say("meal \(meal.id): \(whole(calories)) kcal written to HealthKit")
        }
    }
}
