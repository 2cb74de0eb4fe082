import Foundation
import Testing

/// `healthbridge --help`: the commands in groups (swift-argument-parser's `CommandGroup`), each listed once.
@Suite struct CLIHelpTests {
    @Test func helpListsEveryCommandOnceUnderItsGroup() async throws {
        let help = try await CLI.run(["--help"])
        #expect(help.status == 0)
        let groups = ["YOUR DATA", "WRITES, PRIORITY AND CONSENT", "SERVING AGENTS AND DEVICES",
                      "THIS COMPUTER'S PAIRED API", "READING ANOTHER COMPUTER'S PAIRED API"]
        var previous = help.stdout.startIndex
        for group in groups {
            let heading = try #require(help.stdout.range(of: group + " SUBCOMMANDS:"), "missing group \(group)")
            #expect(heading.lowerBound > previous, "\(group) out of order")
            previous = heading.lowerBound
        }
        let commands = ["demo", "import", "types", "sources", "query", "summary", "coverage", "latest", "sleep",
                        "workouts", "activity", "today", "energy", "changes", "log", "delete", "priority", "grants",
                        "serve", "mcp", "console", "node", "pair-code", "sharing", "clients", "ingest-token", "audit",
                        "discover", "pair", "access", "status", "remote", "fetch"]
        let listed = help.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        for command in commands {
            #expect(listed.filter { $0 == command }.count == 1, "\(command) listed \(listed.filter { $0 == command }.count) times")
        }
        // A grouped command still runs at the top level.
        let types = try await CLI.run(["types", "--help"])
        #expect(types.status == 0)
    }
}
