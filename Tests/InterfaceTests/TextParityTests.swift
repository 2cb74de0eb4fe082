import Foundation
import HealthAPI
import HealthMCP
import MCP
import Testing

/// The CLI's human output and the MCP tool's text are one rendering (HealthAPI/Text) of the same result: the same
/// figures in the same format, only the way to continue a paged answer in each interface's words. This fails the
/// day one of them renders a result on its own again ("72.0" in one, "72" in the other).
@Suite("Text parity", .serialized)
struct TextParityTests {
    /// The text content of an MCP tool call on the shared demo store.
    static func mcpText(_ tool: String, _ arguments: [String: Value]) async throws -> String {
        let toolbox = HealthToolbox(service: try await World.service)
        let result = await toolbox.call(tool, arguments: arguments)
        #expect(result.isError != true)
        return result.content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined()
    }

    @Test func summaryIsOneRendering() async throws {
        for (type, unit) in [("stepCount", nil), ("heartRate", "bpm"), ("bodyMass", "kg")] as [(String, String?)] {
            let cli = try await CLI.run(["summary", "--type", type, "--from", "2025-12-10", "--to", "2026-01-10"])
            #expect(cli.status == 0, "\(cli.stderr)")
            let mcp = try await Self.mcpText("summarize", ["type": .string(type), "start": "2025-12-10", "end": "2026-01-10"])
            #expect(cli.stdout == mcp + "\n", "\(type)")
            #expect(mcp.contains("2026-01-09"), "\(type): a month of days")
            if let unit { #expect(mcp.contains("in \(unit)"), "\(type)") }
            #expect(!mcp.contains(".0 ") && !mcp.contains(".0\n"), "\(type): no spurious .0")
        }
    }

    @Test func sleepIsOneRendering() async throws {
        let cli = try await CLI.run(["sleep", "--from", "2025-12-20", "--to", "2026-01-10"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let mcp = try await Self.mcpText("sleep_nights", ["start": "2025-12-20", "end": "2026-01-10"])
        #expect(cli.stdout == mcp + "\n")
        #expect(mcp.contains("2026-01-09") && mcp.contains("Average asleep: "))
    }

    /// A page of samples: the same rows; the continuation in each interface's words, with the same cursor.
    @Test func samplesAreOneRendering() async throws {
        let (start, end) = ("2026-01-05T08:00:00+01:00", "2026-01-06")
        let cli = try await CLI.run(["query", "--type", "heartRate", "--from", start, "--to", end, "--limit", "20", "--ascending"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let mcp = try await Self.mcpText("query_samples", ["type": "heartRate", "start": .string(start), "end": .string(end),
                                                           "limit": 20, "order": "asc"])
        var cliLines = cli.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        var mcpLines = mcp.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let cliLast = cliLines.popLast(), mcpLast = mcpLines.popLast()
        let cliMore = try #require(cliLast), mcpMore = try #require(mcpLast)
        #expect(cliLines == mcpLines)
        let expected = 23  // a heading, the table's header and rule, 20 rows
        #expect(cliLines.count == expected)
        #expect(cliMore.hasPrefix("More samples match: `healthbridge query --cursor "))
        #expect(mcpMore.hasPrefix("More samples match: call query_samples with cursor=\""))
    }

    /// Workouts and one workout: the same table; under a list, how to see one in each interface's words.
    @Test func workoutsAreOneRendering() async throws {
        let cli = try await CLI.run(["workouts", "--from", "2025-12-10", "--to", "2026-01-10", "--limit", "5"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let mcp = try await Self.mcpText("list_workouts", ["start": "2025-12-10", "end": "2026-01-10", "limit": 5])
        let cliLines = cli.stdout.split(separator: "\n").map(String.init)
        let mcpLines = mcp.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("More workouts match: call list_workouts") }
        let expected = 9  // a heading, the table's header and rule, 5 rows, how to see one
        #expect(cliLines.count == expected)
        let cliTable = Array(cliLines.dropLast()), mcpTable = Array(mcpLines.dropLast())
        #expect(cliTable == mcpTable)
        #expect(cliLines.last?.contains("healthbridge workouts --uuid") == true)
        #expect(mcpLines.last?.contains("get_workout") == true)

        let uuid = try #require(cliLines[3].split(separator: " ").last.map(String.init))
        let one = try await CLI.run(["workouts", "--uuid", uuid])
        #expect(one.status == 0, "\(one.stderr)")
        let detail = try await Self.mcpText("get_workout", ["uuid": .string(uuid), "route_limit": 0])
        #expect(one.stdout == detail + "\n")
        #expect(detail.contains(uuid))
    }

    /// Answers without pages: the CLI prints exactly the MCP tool's text.
    @Test func catalogAndDaysAreOneRendering() async throws {
        let cases: [(cli: [String], tool: String, arguments: [String: Value], shows: String)] = [
            (["types"], "list_types", [:], "heartRate"),
            (["sources"], "list_sources", [:], "Sources, by sample count:"),
            (["sources", "--type", "stepCount"], "list_sources", ["type": "stepCount"], "highest priority first"),
            (["energy", "--from", "2026-01-01", "--to", "2026-01-08"], "energy_balance", ["start": "2026-01-01", "end": "2026-01-08"], "2026-01-07"),
            (["coverage", "heartRate", "--from", "2025-12-10", "--to", "2026-01-10"], "health_coverage",
             ["type": "heartRate", "start": "2025-12-10", "end": "2026-01-10"], "with data"),
            (["activity", "--from", "2026-01-01", "--to", "2026-01-08"], "activity_summaries", ["start": "2026-01-01", "end": "2026-01-08"], "activity summaries"),
        ]
        for test in cases {
            let cli = try await CLI.run(test.cli)
            #expect(cli.status == 0, "\(test.cli): \(cli.stderr)")
            let mcp = try await Self.mcpText(test.tool, test.arguments)
            #expect(cli.stdout == mcp + "\n", "\(test.cli)")
            #expect(mcp.contains(test.shows), "\(test.cli)")
        }
    }

    @Test func oneNumberFormat() {
        #expect(TextFormat.number(72.0, decimals: 1) == "72")
        #expect(TextFormat.number(72.46, decimals: 1) == "72.5")
        #expect(TextFormat.number(12_345.6) == "12,346")
        #expect(TextFormat.number(72.0, decimals: nil) == "72")
        #expect(TextFormat.number(5.125, decimals: nil) == "5.13")
        #expect(TextFormat.number(-1_234_567.0, decimals: nil) == "-1,234,567")
        #expect(TextFormat.number(nil) == "—")
        #expect(TextFormat.minutes(432) == "7h12")
    }
}
