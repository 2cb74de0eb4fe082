import ArgumentParser
import Foundation
import HealthModel

struct TypesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types", abstract: "The types in the store, with sample counts, first and last dates, and units.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let service = try await store.openService()
        let summaries = try await service.store.typeSummaries()
        if json {
            try Output.json(["timeZone": AnyEncodable(service.homeTimeZone.identifier), "types": AnyEncodable(summaries)])
            return
        }
        if summaries.isEmpty {
            print("The store is empty. Run `healthbridge demo` or `healthbridge import export.zip`.")
            return
        }
        Output.table(["type", "kind", "samples", "first", "last", "units"], summaries.map { summary in
            [summary.type, summary.kind.rawValue, Output.number(Double(summary.count)),
             Output.date(summary.first, service.homeTimeZone), Output.date(summary.last, service.homeTimeZone),
             summary.units.joined(separator: ", ")]
        })
    }
}

/// Type erasure for mixed JSON objects.
struct AnyEncodable: Encodable {
    let encodeValue: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encodeValue = value.encode }
    func encode(to encoder: Encoder) throws { try encodeValue(encoder) }
}
