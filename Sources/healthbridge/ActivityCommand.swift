import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity", abstract: "Activity rings per day (Move, Exercise, Stand), newest first, from an imported export.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var range: RangeOptions
    @Option(help: "Days at most (1…1000, default 100).") var limit: Int?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().activitySummaries(ActivitySummariesRequest(
            start: range.from, end: range.to, limit: limit, timeZone: range.tz))
        if output.json { return try Output.json(result) }
        print(result.text(Output.textStyle))
    }
}
