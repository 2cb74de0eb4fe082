import ArgumentParser
import Foundation
import HealthModel

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
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if set != nil && reset { throw ValidationError("use either --set or --reset, not both") }
    }

    func run() async throws {
        let service = try await store.openService()
        let type = try await service.engine.resolveType(self.type).identifier
        if let set {
            let names = set.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw ValidationError("--set needs at least one source name") }
            try await service.store.setPriority(type: type, sources: names)
        } else if reset {
            try await service.store.resetPriority(type: type)
        }
        let order = try await service.store.priority(type: type)
        if json {
            try Output.json(order.map(SourceJSON.init))
            return
        }
        if order.isEmpty {
            print("No \(type) samples in the store yet.")
            return
        }
        Output.table(["rank", "source", "kind", "samples", "order"], order.map { entry in
            [String((entry.rank ?? 0) + 1), entry.source.name, entry.category.label, Output.number(Double(entry.count)),
             entry.userOrdered ? "yours" : "default"]
        })
    }
}
