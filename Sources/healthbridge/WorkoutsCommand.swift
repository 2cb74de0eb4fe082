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
            Output.workouts([detail.workout])
            for statistic in detail.statistics {
                let figures = [("total", statistic.sum), ("avg", statistic.average), ("min", statistic.min), ("max", statistic.max)]
                    .compactMap { name, value in value.map { "\(name) \(Output.number($0, decimals: 1))" } }
                print("\(statistic.type): \(figures.joined(separator: ", ")) \(statistic.unit ?? "")")
            }
            if let route = detail.route {
                print("Route: \(route.pointCount) points, \(Output.number(route.distanceKm, decimals: 2)) km along the track, +\(Output.number(route.elevationGainM)) m")
            }
            return
        }
        var result = try await service.workouts(WorkoutsRequest(
            activityTypes: activity.isEmpty ? nil : activity, start: range.from ?? "30d", end: range.to,
            limit: limit, ascending: ascending, timeZone: range.tz))
        result.nextCursor = nil
        if output.json { return try Output.json(result) }
        if result.workouts.isEmpty {
            print("No workouts between \(Output.local(result.start)) and \(Output.local(result.end)).")
            return
        }
        Output.workouts(result.workouts)
    }
}
