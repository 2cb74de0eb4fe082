import ArgumentParser
import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch samples of shared types in a date range from the paired export server.",
        discussion: """
            Dates are ISO-8601 instants (2026-01-07T00:00:00Z) or the usual forms (2026-01-07, today, 7d, 12h), sent as \
            UTC instants. Pages are followed until the range is read. Exit codes: 0 ok, 3 a type is not shared \
            (no_permission), 4 sharing is paused on the server (locked). --out files are written with mode 0600.
            """)

    @OptionGroup var client: ClientOptions
    @Option(help: "Start of the range.") var start: String
    @Option(help: "End of the range (default: now).") var end: String?
    @Option(help: "Types, comma-separated: stepCount,heartRate.") var types: String
    @Option(help: "json or csv.") var format = "json"
    @Option(help: "Write to this file instead of standard output.") var out: String?
    @Option(help: "Samples per request (1…5000).") var limit = 1000
    @Option(help: "Stop after this many samples.") var max = 1_000_000
    @Flag(help: "Print the request that would be sent, and send nothing.") var dryRun = false

    func validate() throws {
        guard ["json", "csv"].contains(format) else { throw ValidationError("--format must be json or csv") }
        guard (1...5000).contains(limit) else { throw ValidationError("--limit must be between 1 and 5000") }
        guard max >= 1 else { throw ValidationError("--max must be 1 or more") }
        guard !typeList.isEmpty else { throw ValidationError("--types needs at least one type") }
    }

    var typeList: [String] {
        types.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func run() async throws {
        // The server resolves the dates, with the rules every HealthBridge interface follows (its home zone).
        let request = DataRequest(types: typeList, start: start, end: end ?? "now", limit: limit)
        if dryRun {
            let server = try? client.recordStore().load()
            print(try PairedAPIRemote.describeDataRequest(request, server: server ?? nil))
            print("\n(dry run: nothing was sent)")
            return
        }
        let remote = try client.remote()
        let answer = try await remote.fetchAll(request, maxSamples: max)
        switch answer.status {
        case .noPermission:
            Output.stderr("no_permission: the server does not share \((answer.deniedTypes ?? []).joined(separator: ", ")); nothing was returned.")
            throw ExitCode(3)
        case .locked:
            Output.stderr("locked: sharing is paused on the server; nothing was returned.")
            throw ExitCode(4)
        case .error:
            Output.stderr("error: the server could not answer.")
            throw ExitCode(1)
        case .ok:
            break
        }
        let bytes: [UInt8]
        if format == "csv" {
            bytes = Array(FetchCommand.csv(answer.samples).utf8)
        } else {
            let encoder = JSONEncoder.wire
            encoder.outputFormatting.insert(.prettyPrinted)
            bytes = Array(try encoder.encode(answer)) + [0x0A]
        }
        if let out {
            try PairedServerStore.writePrivate(Data(bytes), to: URL(fileURLWithPath: out))
            Output.stderr("\(answer.samples.count) samples written to \(out)\(answer.nextCursor != nil ? " (stopped at --max; more match)" : "")")
        } else {
            FileHandle.standardOutput.write(Data(bytes))
            if answer.nextCursor != nil { Output.stderr("stopped at --max \(max) samples; more match") }
        }
    }

    static func csv(_ samples: [ExportSample]) -> String { SampleCSV.encode(samples) }
}
