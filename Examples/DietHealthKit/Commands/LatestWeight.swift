import ArgumentParser
import Foundation
import HealthKitBridge

/// A weight as the reads print it.
struct WeightReading: Encodable {
    var weight: Double
    var date: String
}

/// `diet-healthkit latest-weight [--json]`: the seed's fetchLatestWeight.
struct LatestWeight: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "latest-weight", abstract: "The latest weight (kg).")
    @OptionGroup var app: AppDirectory
    @Flag(help: "Print JSON (null when there is none).") var json = false

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let latest = try await HealthKitManager().fetchLatestWeight()
            let reading = latest.map { WeightReading(weight: $0.weight, date: isoString($0.date)) }
            if json {
                try printJSON(reading)
            } else if let reading {
                say("latest weight: \(reading.weight) kg at \(reading.date)")
            } else {
                say("no weight")
            }
        }
    }
}
