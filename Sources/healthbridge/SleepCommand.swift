import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct SleepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sleep",
        abstract: "Sleep per night (attributed to the wake-up day): in bed, asleep, core, deep, REM, awake.",
        discussion: "The range selects wake-up days: --from 2024-05-01 --to 2024-05-08 gives the nights ending May 1 to 7.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let service = try await store.openService()
        var result = try await service.sleep(SleepRequest(start: range.from, end: range.to, timeZone: range.tz))
        while let next = result.nextCursor {
            let page = try await service.sleep(SleepRequest(cursor: next))
            result.nights += page.nights
            result.count += page.count
            result.end = page.end
            result.nextCursor = page.nextCursor
        }
        result.hasMore = false
        if output.json { return try Output.json(result) }
        print(result.text(Output.textStyle))
    }
}
