import ArgumentParser
import Foundation
import HealthModel
import HealthStore

struct SourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "The sources (apps and devices) in the store; with --type, in the priority order used to merge them.")

    @OptionGroup var store: StoreOptions
    @Option(help: "A type: list its sources in priority order.") var type: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let service = try await store.openService()
        var typeName: String? = nil
        if let type { typeName = try await service.engine.resolveType(type).identifier }
        let sources = try await service.store.sources(type: typeName)
        if json {
            try Output.json(sources.map(SourceJSON.init))
            return
        }
        Output.table(["rank", "source", "kind", "device", "samples"], sources.map { entry in
            [entry.rank.map { String($0 + 1) } ?? "", entry.source.name, entry.category.label,
             [entry.source.device?.model, entry.source.device?.hardware].compactMap { $0 }.joined(separator: " "),
             Output.number(Double(entry.count))]
        })
        if typeName != nil, let first = sources.first {
            print("\nMerged statistics take each moment from the highest source that has data: \(first.source.name) first.")
        }
    }
}

/// A source as printed by `--json`.
struct SourceJSON: Encodable {
    var id: Int64
    var name: String
    var bundleIdentifier: String?
    var kind: String
    var device: HealthDevice?
    var samples: Int
    var rank: Int?
    var userOrdered: Bool

    init(_ summary: SourceSummary) {
        id = summary.id
        name = summary.source.name
        bundleIdentifier = summary.source.bundleIdentifier
        kind = summary.category.label
        device = summary.source.device
        samples = summary.count
        rank = summary.rank
        userOrdered = summary.userOrdered
    }
}
