import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct PriorityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "priority",
        abstract: "Show or set the source order a type's statistics are merged by.",
        discussion: """
            Default order: data you typed in → Apple Watch → iPhone → other devices → apps.
            Example: healthbridge priority --type stepCount --set "Alex’s iPhone,Alex’s Apple Watch"
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "The type.") var type: String
    @Option(help: "Comma-separated source names, highest priority first; sources not named follow in default order.")
    var set: String?
    @Flag(help: "Forget the stored order and use the default.") var reset = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().priority(PriorityRequest(
            type: type, set: set.map { [$0] }, reset: reset ? true : nil))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
