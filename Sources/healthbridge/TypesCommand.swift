import ArgumentParser
import Foundation
import HealthService

struct TypesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types", abstract: "The types in the store, with sample counts, first and last dates, and units.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().types()
        if output.json { return try Output.json(result) }
        if result.types.isEmpty {
            print("The store is empty. Run `healthbridge demo` or `healthbridge import export.zip`.")
            return
        }
        Output.table(["type", "kind", "samples", "first", "last", "unit", "statistics"], result.types.map { type in
            [type.type, type.kind, Output.number(Double(type.count)), Output.local(type.first), Output.local(type.last),
             type.unit ?? type.recordedUnits.joined(separator: ", "), type.statistics.joined(separator: "/")]
        })
    }
}
