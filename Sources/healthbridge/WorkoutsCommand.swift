import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct WorkoutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workouts", abstract: "Workouts, newest first; with --uuid, one workout with its route summary.",
        discussion: "Examples: healthbridge workouts --activity running --from 3mo · healthbridge workouts --uuid <uuid>")

    @OptionGroup var store: StoreOptions
    @Option(help: "Only these activity types (running, walking, cycling, …; repeatable).") var activity: [String] = []
    @OptionGroup var range: RangeOptions
    @Option(help: "How many at most (1…500, default 50).") var limit: Int?
    @Flag(help: "Oldest first.") var ascending = false
    @Option(help: "One workout: its statistics, events and route summary.") var uuid: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let service = try await store.openService()
        if let uuid {
            let detail = try await service.workout(WorkoutRequest(uuid: uuid, routeLimit: 0, timeZone: range.tz))
            if output.json { return try Output.json(detail) }
            print(detail.text(Output.textStyle))
            return
        }
        var result = try await service.workouts(WorkoutsRequest(
            activityTypes: activity.isEmpty ? nil : activity, start: range.from ?? "30d", end: range.to,
            limit: limit, ascending: ascending, timeZone: range.tz))
        result.nextCursor = nil
        if output.json { return try Output.json(result) }
        print(result.text(Output.textStyle))
    }
}
