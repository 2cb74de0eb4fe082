import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "What was added and deleted since an anchor (HealthKit's anchored object query), with the next anchor.",
        discussion: "Example: healthbridge changes --type bodyMass --anchor 1234 --wait 30")

    @OptionGroup var store: StoreOptions
    @Option(help: "Types to follow (repeatable; default every type).") var type: [String] = []
    @Option(help: "The anchor of the previous answer (default: from the beginning).") var anchor: String?
    @Option(help: "Seconds to wait for a change when there is none yet (0…60).") var wait: Double?
    @Option(help: "Changes per answer (1…5000, default 500).") var limit: Int?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().changes(ChangesRequest(
            types: type.isEmpty ? nil : type, anchor: anchor, wait: wait, limit: limit))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
