import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct TypesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types", abstract: "The types in the store, with sample counts, first and last dates, and units.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().types()
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
