import ArgumentParser
import Foundation
import HealthAPI
import HealthService

struct LatestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latest", abstract: "The most recent value of a type: weight, resting heart rate, VO2 max…",
        discussion: "Example: healthbridge latest --type bodyMass")

    @OptionGroup var store: StoreOptions
    @Option(help: "The type.") var type: String
    @Option(help: "Only this source (repeatable).") var source: [String] = []
    @Option(help: "IANA time zone of the times shown.") var tz: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await store.openService().latest(LatestRequest(
            type: type, sources: source.isEmpty ? nil : source, timeZone: tz))
        if output.json { return try Output.json(result) }
        print(result.text)
    }
}
