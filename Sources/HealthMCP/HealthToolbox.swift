import Foundation
import HealthAPI
import HealthModel
import HealthService
import Logging
import MCP

/// The health tools an MCP client sees: their definitions (name, description, input and output schemas, read-only
/// annotations) and their execution over a ``HealthService``.
///
/// Every result carries `structuredContent` matching the tool's `outputSchema` and a compact text rendering for hosts
/// that read only text. Errors are tool errors (`isError: true`) whose text is `CODE: message` with the engine's
/// stable codes, and whose structured content is `{"error": {"code", "message"}}`. No reply exceeds
/// ``maxReplyBytes``: lists are cut to fit and continue with a cursor.
///
/// ```swift
/// let toolbox = HealthToolbox(service: service)
/// let result = await toolbox.call("summarize", arguments: ["type": "stepCount", "start": "7d"])
/// ```
public struct HealthToolbox: Sendable {
    public let service: HealthService
    /// The largest reply, encoded, in bytes (1 MB).
    public var maxReplyBytes: Int
    public var logger: Logger

    /// A toolbox acting for `principal` (default: the MCP client `mcp:default`, which may read everything unless
    /// the owner changed its grants).
    public init(service: HealthService, principal: Principal = .mcp(), maxReplyBytes: Int = 1_000_000,
                logger: Logger? = nil) {
        self.service = service.acting(as: principal)
        self.maxReplyBytes = maxReplyBytes
        self.logger = logger ?? Logger(label: "healthbridge.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Every tool, in the order clients list them.
    static let definitions: [ToolDefinition] = [
        listTypes, listSources, querySamples, summarize, sleepNights, listWorkouts, getWorkout,
        activitySummaries, latest, healthToday, energyBalance, healthCoverage,
        logFood, logQuantity, logWeight, logWater, logWorkout, deleteEntries, getChanges,
    ]

    static let definitionsByName: [String: ToolDefinition] = Dictionary(
        uniqueKeysWithValues: definitions.map { ($0.tool.name, $0) })

    /// The tools, for `tools/list`.
    public var tools: [Tool] { Self.definitions.map(\.tool) }

    public static var toolNames: [String] { definitions.map(\.tool.name) }

    /// The budget for the items of a page: the reply limit less room for the envelope and the text's header.
    var itemBudget: Int { max(4_096, maxReplyBytes * 9 / 10 - 16_384) }

    /// Runs a tool. Never throws: every failure is a tool error result.
    public func call(_ name: String, arguments: [String: Value]?) async -> CallTool.Result {
        guard let definition = Self.definitionsByName[name] else {
            return Self.errorResult(HealthError(
                .invalidArgument, "there is no tool '\(name)'; the tools are \(Self.toolNames.joined(separator: ", "))"))
        }
        do {
            let arguments = try ToolArguments(tool: name, values: arguments ?? [:], allowed: definition.argumentNames)
            let reply = try await definition.run(self, arguments)
            let result = CallTool.Result(content: [.text(text: reply.text, annotations: nil, _meta: nil)],
                                         structuredContent: .object(reply.structured), isError: false)
            let size = Self.encodedSize(result)
            guard size <= maxReplyBytes else {
                logger.warning("tool reply over the size limit", metadata: ["tool": "\(name)", "bytes": "\(size)"])
                return Self.errorResult(HealthError(
                    .invalidArgument,
                    "the result of \(name) would be \(size / 1000) kB, over the \(maxReplyBytes / 1000) kB limit; narrow the date range, lower limit, or use a longer interval"))
            }
            logger.debug("tool call", metadata: ["tool": "\(name)", "bytes": "\(size)"])
            return result
        } catch let error as HealthError {
            logger.debug("tool error", metadata: ["tool": "\(name)", "code": "\(error.code.rawValue)"])
            return Self.errorResult(error)
        } catch {
            // Store or engine failures that are not HealthErrors: report them, never crash.
            logger.error("tool failed", metadata: ["tool": "\(name)", "error": "\(String(describing: type(of: error)))"])
            return Self.errorResult(HealthError(.internalError, "\(name) failed: \(error)"))
        }
    }

    /// A tool error: `CODE: message` as text, `{"error": {"code", "message"}}` as structured content, the service's
    /// hint in MCP's words (``hint(_:)``).
    public static func errorResult(_ error: HealthError) -> CallTool.Result {
        let error = error.rendered(hint)
        return CallTool.Result(
            content: [.text(text: error.description, annotations: nil, _meta: nil)],
            structuredContent: .object(["error": .object(["code": .string(error.code.rawValue),
                                                          "message": .string(error.message)])]),
            isError: true)
    }

    static func encodedSize(_ result: CallTool.Result) -> Int {
        (try? JSONEncoder.wire.encode(result).count) ?? Int.max
    }

    // MARK: Results

    /// A service result as structured content: the result's own JSON, which is the same document every interface
    /// gives.
    static func structured(_ value: some Encodable) throws -> [String: JSON] {
        let data = try JSONEncoder.wire.encode(value)
        guard case .object(let object) = try JSONDecoder().decode(JSON.self, from: data) else {
            throw HealthError(.internalError, "a result did not encode as a JSON object")
        }
        return object
    }

    /// Runs a paged use case so that its reply fits: when a page is larger than the reply budget, asks again for
    /// half as many items, down to one. `limit` nil is the use case's default (or the cursor's).
    func fitting<Result: Encodable>(limit: Int?, count: (Result) -> Int, _ page: (Int?) async throws -> Result,
                                    text: (Result) -> String) async throws -> ToolReply {
        var limit = limit
        while true {
            let result = try await page(limit)
            let structured = try Self.structured(result)
            let rendered = text(result)
            let items = count(result)
            if items > 1, JSON.object(structured).estimatedJSONSize + rendered.utf8.count * 6 / 5 > itemBudget {
                limit = items / 2
                continue
            }
            return ToolReply(structured: structured, text: rendered)
        }
    }
}

/// A tool's answer before it becomes a `CallTool.Result`.
struct ToolReply: Sendable {
    var structured: [String: JSON]
    var text: String
}

/// One tool: its MCP definition and its implementation.
struct ToolDefinition: Sendable {
    let tool: Tool
    let argumentNames: [String]
    let run: @Sendable (HealthToolbox, ToolArguments) async throws -> ToolReply

    /// What a tool does to the store, declared per tool (MCP's annotations).
    struct Effect: Sendable {
        var readOnly: Bool
        var destructive: Bool
        var idempotent: Bool

        /// Reads only: the same call gives the same answer while the data does not change.
        static let read = Effect(readOnly: true, destructive: false, idempotent: true)
    }

    init(name: String, title: String, description: String, arguments: [String: JSON], required: [String] = [],
         effect: Effect = .read, output: any SchemaDescribed.Type,
         run: @escaping @Sendable (HealthToolbox, ToolArguments) async throws -> ToolReply) {
        self.tool = Tool(
            name: name, title: title, description: description,
            inputSchema: Schema.object(arguments, required: required, additionalProperties: false),
            annotations: Tool.Annotations(title: title, readOnlyHint: effect.readOnly, destructiveHint: effect.destructive,
                                          idempotentHint: effect.idempotent, openWorldHint: false),
            outputSchema: JSON(output.jsonSchema))
        self.argumentNames = arguments.keys.sorted()
        self.run = run
    }
}
