import ArgumentParser
import Foundation
import HealthAPI
import HealthService

/// `healthbridge coverage TYPE`: which sources recorded a type per day (or hour), and the gaps where nothing was.
///
/// ```
/// healthbridge coverage stepCount --start 2025-12-01 --end 2026-01-01
/// healthbridge coverage heartRate --start yesterday --end today --interval hour --json
/// ```
struct CoverageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Per day (or hour): which sources recorded a type, how many samples, and where nothing was recorded.",
        discussion: "A day without data is missing, not 0. Example: healthbridge coverage stepCount --start 30d --json")

    @OptionGroup var store: StoreOptions
    @Argument(help: "A quantity or category type, e.g. stepCount, heartRate, sleepAnalysis.") var type: String
    @OptionGroup var range: RangeOptions
    @Option(help: "day (default) or hour.") var interval = "day"
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().coverage(CoverageRequest(
            type: type, start: range.from, end: range.to, interval: interval, timeZone: range.tz))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
