import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Samples of one type, newest first.",
        discussion: "Example: healthbridge query --type heartRate --from 2d --limit 20")

    @OptionGroup var store: StoreOptions
    @Option(help: "The type, e.g. stepCount, heartRate, sleepAnalysis (with or without the HK prefix).") var type: String
    @OptionGroup var range: RangeOptions
    @Option(help: "How many samples at most (1…5000, default 100).") var limit: Int?
    @Option(help: "Only samples from this source (repeatable).") var source: [String] = []
    @Option(help: "Report quantities in this unit, e.g. km, lb, kcal (default: the type's canonical unit).") var unit: String?
    @Flag(help: "Oldest first.") var ascending = false
    @Option(help: "next_cursor of a previous page.") var cursor: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().samples(SamplesRequest(
            type: type, start: range.from, end: range.to, limit: limit, ascending: ascending,
            sources: source.isEmpty ? nil : source, timeZone: range.tz, unit: unit, cursor: cursor))
        if output.json { return try Output.json(result) }
        print(result.text(Output.textStyle))
    }
}
