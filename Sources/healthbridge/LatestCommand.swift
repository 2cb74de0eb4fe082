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
        guard result.found else {
            print("No \(result.type) samples in the store.")
            return
        }
        let value = result.value.map { "\(Output.number($0, decimals: nil)) \(result.unit ?? "")" } ?? result.category ?? ""
        print("\(result.type): \(value) at \(Output.local(result.start)) from \(result.source ?? "?") (\(Output.number(result.ageHours, decimals: 1)) h ago)")
        if let note = result.note { print("Note: \(note).") }
    }
}
