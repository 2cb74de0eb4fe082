import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete objects by log id (every object of the entry), UUID, or sync id; tombstones go to the change feed.",
        discussion: "Example: healthbridge delete --log-id meal-42")

    @OptionGroup var store: StoreOptions
    @Option(help: "Every object written with this log id (a meal: its nutrients and its correlation).") var logId: String?
    @Option(help: "One object.") var uuid: String?
    @Option(help: "The object with this sync identifier.") var syncId: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().delete(DeleteRequest(uuid: uuid, logId: logId, syncId: syncId))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
