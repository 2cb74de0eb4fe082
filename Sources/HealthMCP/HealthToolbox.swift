import Foundation
import HealthEngine
import HealthModel
import HealthService
import HealthStore
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

    public init(service: HealthService, maxReplyBytes: Int = 1_000_000, logger: Logger? = nil) {
        self.service = service
        self.maxReplyBytes = maxReplyBytes
        self.logger = logger ?? Logger(label: "healthbridge.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Every tool, in the order clients list them.
    static let definitions: [ToolDefinition] = [
        listTypes, listSources, querySamples, summarize, sleepNights, listWorkouts, getWorkout,
        activitySummaries, latest, healthToday,
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

    /// A tool error: `CODE: message` as text, `{"error": {"code", "message"}}` as structured content.
    public static func errorResult(_ error: HealthError) -> CallTool.Result {
        CallTool.Result(
            content: [.text(text: error.description, annotations: nil, _meta: nil)],
            structuredContent: .object(["error": .object(["code": .string(error.code.rawValue),
                                                          "message": .string(error.message)])]),
            isError: true)
    }

    static func encodedSize(_ result: CallTool.Result) -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(result).count) ?? Int.max
    }

    // MARK: Shared resolution

    /// The service in the zone the call asks for, else the home zone.
    func service(_ arguments: ToolArguments) throws(HealthError) -> HealthService {
        guard let name = try arguments.string("time_zone") else { return service }
        var zoned = service
        zoned.homeTimeZone = try DateExpression.timeZone(name)
        return zoned
    }

    /// `start`/`end` arguments: DateExpressions in the service's zone, end defaulting to now.
    func range(_ arguments: ToolArguments, _ service: HealthService, defaultStart: String) throws(HealthError) -> (Date, Date) {
        let now = service.clock()
        let zone = service.homeTimeZone
        func parse(_ key: String, _ text: String) throws(HealthError) -> Date {
            do {
                return try DateExpression.parse(text, now: now, timeZone: zone)
            } catch {
                throw HealthError(error.code, "\(key): \(error.message)")
            }
        }
        let start = try parse("start", try arguments.string("start") ?? defaultStart)
        let end = try arguments.string("end").map { text throws(HealthError) in try parse("end", text) } ?? now
        guard end >= start else {
            throw HealthError(.invalidRange,
                              "end (\(ISO8601.string(end, timeZone: zone))) is before start (\(ISO8601.string(start, timeZone: zone))); give a start before the end, or leave end out for now")
        }
        return (start, end)
    }

    /// Resolves a type name, turning "unknown" into an error that lists what the store has when nothing is close.
    func resolveType(_ name: String) async throws -> SampleType {
        do {
            return try await service.engine.resolveType(name)
        } catch let error as HealthError where error.code == .invalidType {
            if error.message.contains("did you mean") {
                throw HealthError(.invalidType, error.message + " (list_types shows the types in the store)")
            }
            let present = try await service.store.typeSummaries().prefix(12).map(\.type)
            throw HealthError(.invalidType,
                              "unknown type '\(name)'; the store has \(present.isEmpty ? "no data yet" : present.joined(separator: ", ") + (present.count == 12 ? ", …" : "")) (list_types shows them all)")
        }
    }

    /// Checks a source filter against the sources of `type`, so that a misspelt name is an error, not an empty page.
    func checkSources(_ names: [String]?, type: SampleType) async throws {
        guard let names else { return }
        let known = try await service.store.sources(type: type.identifier)
        for name in names {
            let lowered = name.lowercased()
            if !known.contains(where: { $0.source.name.lowercased() == lowered || $0.source.key.lowercased() == lowered }) {
                throw HealthError(.invalidArgument,
                                  "no source named '\(name)' has \(type.identifier) samples; known: \(known.map(\.source.name).joined(separator: ", ")) (list_sources gives them)")
            }
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

    init(name: String, title: String, description: String, arguments: [String: JSON], required: [String] = [],
         output: JSON, run: @escaping @Sendable (HealthToolbox, ToolArguments) async throws -> ToolReply) {
        self.tool = Tool(
            name: name, title: title, description: description,
            inputSchema: Schema.object(arguments, required: required, additionalProperties: false),
            annotations: Tool.Annotations(title: title, readOnlyHint: true, destructiveHint: false,
                                          idempotentHint: true, openWorldHint: false),
            outputSchema: output)
        self.argumentNames = arguments.keys.sorted()
        self.run = run
    }
}

/// Collects the items of a page until the byte budget is spent.
struct PageBudget {
    var remaining: Int

    init(_ bytes: Int) { remaining = bytes }

    /// Takes an item's structured value and its text line; false when it no longer fits.
    mutating func take(_ item: JSON, text: String) -> Bool {
        let cost = item.estimatedJSONSize + text.utf8.count * 6 / 5 + 2
        guard cost <= remaining else { return false }
        remaining -= cost
        return true
    }
}
