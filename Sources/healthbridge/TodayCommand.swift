import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today", abstract: "Today so far: steps and active energy merged by priority, resting heart rate, last night, workouts.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let today = try await store.openService().today()
        if output.json { return try Output.json(today) }
        print(today.text)
    }
}
