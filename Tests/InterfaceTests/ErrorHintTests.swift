import HealthAPI
import PairedAPI
import Foundation
import HealthModel
import MCP
import Testing

/// The service's errors carry a neutral hint; each interface names it in its own words. The same error through the
/// CLI (the built binary), MCP, the HTTPS API and the node keeps its code and its neutral message, and names each
/// interface's own command, tool or route, never another's.
@Suite("Error hints", .serialized)
struct ErrorHintTests {
    struct Case {
        var code: String
        /// The neutral message every interface starts with.
        var message: String
        var cli: (arguments: [String], says: String)
        var mcp: (tool: String, arguments: [String: Value], says: String)
        var https: (path: String, says: String)
        var node: (command: String, params: [String: JSONValue], says: String?)
    }

    static let cases = [
        // Sleep is read as nights: each interface names its own way to read them.
        Case(code: "HEALTH_NO_SUMMARY", message: "sleepAnalysis is summarized per night: use sleep nights",
             cli: (["summary", "--type", "sleepAnalysis"], "`healthbridge sleep`"),
             mcp: ("summarize", ["type": "sleepAnalysis"], "sleep_nights"),
             https: ("/api/v1/health/statistics?type=sleepAnalysis", "GET /api/v1/health/sleep"),
             node: ("health.summary", ["type": "sleepAnalysis"], "health.sleep")),
        // An unknown type with nothing close: each interface names its own list of types (the node has none).
        Case(code: "HEALTH_INVALID_TYPE", message: "unknown type 'qqqqqqqqqqqq'",
             cli: (["summary", "--type", "qqqqqqqqqqqq"], "`healthbridge types`"),
             mcp: ("summarize", ["type": "qqqqqqqqqqqq"], "list_types"),
             https: ("/api/v1/health/statistics?type=qqqqqqqqqqqq", "GET /api/v1/health/types"),
             node: ("health.summary", ["type": "qqqqqqqqqqqq"], nil)),
    ]

    /// Every interface's words for the hints, so that a message naming another interface's is caught.
    static let everyonesWords = ["`healthbridge sleep`", "`healthbridge types`", "sleep_nights", "list_types",
                                 "/api/v1/health/", "health.sleep"]

    static func check(_ message: String?, of item: Case, says: String?, where place: String) {
        let message = message ?? ""
        #expect(message.hasPrefix(item.message), "\(place): \(message)")
        if let says { #expect(message.contains(says), "\(place) names its own: \(message)") }
        for other in everyonesWords where other != says && !(says ?? "").contains(other) {
            #expect(!message.contains(other), "\(place) names another interface's \(other): \(message)")
        }
    }

    @Test func theCLIAndMCPNameTheirOwnCommandForTheSameError() async throws {
        for item in Self.cases {
            let cli = try await CLI.run(item.cli.arguments + ["--json"])
            #expect(cli.errorJSON?["error"]?["code"]?.stringValue == item.code, "\(cli.stderr)")
            Self.check(cli.errorJSON?["error"]?["message"]?.stringValue, of: item, says: item.cli.says, where: "CLI")
            let mcp = try await MCPInterface.call(item.mcp.tool, item.mcp.arguments)
            #expect(!mcp.ok)
            #expect(mcp.value["error"]?["code"]?.stringValue == item.code)
            Self.check(mcp.value["error"]?["message"]?.stringValue, of: item, says: item.mcp.says, where: "MCP")
        }
    }

    @Test func theHTTPSAPIAndTheNodeNameTheirOwnRouteAndCommand() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        for item in Self.cases {
            let api = try await https.get(item.https.path)
            #expect(api.value["error"]?["code"]?.stringValue == item.code)
            Self.check(api.value["error"]?["message"]?.stringValue, of: item, says: item.https.says, where: "HTTPS")
            let node = try await NodeInterface.invoke(item.node.command, item.node.params)
            #expect(!node.ok)
            #expect(node.value["code"]?.stringValue == item.code)
            // The node's message is `CODE: message`.
            let message = node.value["message"]?.stringValue.map { String($0.dropFirst(item.code.count + 2)) }
            Self.check(message, of: item, says: item.node.says, where: "node")
        }
    }
}
