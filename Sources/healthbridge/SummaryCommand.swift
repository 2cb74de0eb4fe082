import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Statistics per interval, merged across sources by priority the way HealthKit does.",
        discussion: "Example: healthbridge summary --type stepCount --interval day --from 30d --json")

    @OptionGroup var store: StoreOptions
    @Option(help: "A quantity or category type, e.g. stepCount, heartRate, bodyMass, appleStandHour.") var type: String
    @OptionGroup var range: RangeOptions
    @Option(help: "minute, hour, day, week, month or year, optionally with a count (15minute); or total.") var interval = "day"
    @Option(help: "Statistics, comma-separated: sum, average, min, max, most_recent, duration (default: all that apply).")
    var statistics: String?
    @Option(help: "Only these sources (repeatable).") var source: [String] = []
    @Option(help: "Report in this unit, e.g. km, lb, kcal (default: the type's canonical unit).") var unit: String?
    @Flag(help: "Add one unmerged series per source.") var bySource = false
    @Flag(help: "Hide buckets without data.") var skipEmpty = false
    @Flag(help: "Which source won: each source's part of the merged total beside its own total (cumulative types).")
    var contributions = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().summaryPages(SummaryRequest(
            type: type, start: range.from, end: range.to, interval: interval,
            statistics: statistics.map { [$0] }, timeZone: range.tz, bySource: bySource,
            sources: source.isEmpty ? nil : source, skipEmpty: skipEmpty, unit: unit,
            contributions: contributions ? true : nil))
        if output.json { return try Output.json(result) }
        print(result.text(Output.textStyle))
    }
}
