import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct SourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "The sources (apps and devices) in the store; with --type, in the priority order used to merge them.")

    @OptionGroup var store: StoreOptions
    @Option(help: "A type: list its sources in priority order.") var type: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().sources(SourcesRequest(type: type))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
