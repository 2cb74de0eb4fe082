import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit weight KG`: the app keeps the weight and writes it to HealthKit (the seed's writeWeight).
struct Weight: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log a weight in kg: kept by the app and written to HealthKit.")
    @OptionGroup var app: AppDirectory
    @Argument(help: "Kilograms.") var kilograms: Double

    func validate() throws {
        guard kilograms.isFinite, kilograms > 0, kilograms < 1_000 else { throw ValidationError("the weight must be in kg, above 0 and below 1000") }
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let date = wholeSecondNow()
            try await HealthKitManager().writeWeight(kilograms, date: date)
            try await FileWeightRepository(directory: app.url).save(
                WeightLogRecord(id: UUID().uuidString, userId: CurrentUser.id, weight: kilograms, bodyFatPercent: nil,
                                date: date, source: .manual, notes: nil, createdAt: Date(), synced: true))
            say("weight \(kilograms) kg written to HealthKit")
        }
    }
}
