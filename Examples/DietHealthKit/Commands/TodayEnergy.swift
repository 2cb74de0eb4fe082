import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit today-energy [--json]`: the seed's fetchTodayActiveEnergy (kcal since midnight, merged by source
/// priority on the server as HealthKit's statistics are).
struct TodayEnergy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "today-energy", abstract: "Today's active energy (kcal).")
    @OptionGroup var app: AppDirectory
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable { var activeEnergy: Double }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let energy = try await HealthKitManager().fetchTodayActiveEnergy()
            if json {
                try printJSON(Output(activeEnergy: energy))
            } else {
                say("active energy today: \(energy) kcal")
            }
        }
    }
}
