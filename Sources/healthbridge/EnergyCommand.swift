import ArgumentParser
import Foundation
import HealthAPI
import HealthService

/// `healthbridge energy`: energy eaten against energy burned, per day.
struct EnergyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "energy",
        abstract: "Energy in and out per day: eaten, active and resting burned, total burned (TDEE) and the balance.",
        discussion: """
            Each figure is the day's sum merged by source priority (as `healthbridge summary` gives it), in kcal. \
            Burned = active + resting, and balance = eaten − burned, only when their parts were recorded.
            Examples:
              healthbridge energy                 # today so far
              healthbridge energy --from 7d --json
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().energy(EnergyRequest(start: range.from, end: range.to, timeZone: range.tz))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
