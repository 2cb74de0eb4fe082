import ArgumentParser
import HealthAPI
import PairedAPIClient
import Foundation

/// `healthbridge remote types`: the paired server's shared types (`healthbridge types` lists the local store's).
struct RemoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Ask the paired export server (see also `status` and `fetch`).",
        subcommands: [RemoteTypesCommand.self])
}

struct RemoteTypesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types", abstract: "The types the paired server shares, with sample counts and spans.")

    @OptionGroup var client: ClientOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let answer = try await client.remote().types()
        if json {
            try Output.json(answer)
            return
        }
        if answer.status == .locked {
            print("Sharing is paused on the server (locked): no types are listed until it resumes.")
            throw ExitCode(3)
        }
        if answer.types.isEmpty {
            print("The server shares no types yet (on the server: healthbridge sharing types --enable stepCount,…).")
            return
        }
        Output.table(["type", "kind", "unit", "samples", "first", "last"], answer.types.map { type in
            [type.type, type.kind, type.unit ?? "", Output.number(Double(type.count)),
             type.first.map { String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "—",
             type.last.map { String($0.prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "—"]
        })
    }
}
