import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit weight-history [--days N] [--json]`: the seed's fetchWeightHistory(days:), oldest first.
struct WeightHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "weight-history", abstract: "Weights of the last days (kg), oldest first.")
    @OptionGroup var app: AppDirectory
    @Option(help: "How many days back from now (1…3650).") var days = 30
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (1...3_650).contains(days) else { throw ValidationError("--days must be 1…3650") }
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let history = try await HealthKitManager().fetchWeightHistory(days: days)
            let readings = history.map { WeightReading(weight: $0.weight, date: isoString($0.date)) }
            if json {
                try printJSON(readings)
            } else {
                for reading in readings { say("\(reading.date)  \(reading.weight) kg") }
                say("\(readings.count) weights in \(days) days")
            }
        }
    }
}
