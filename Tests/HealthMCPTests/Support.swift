import Foundation
import HealthBridgeTesting
import HealthDemo
import HealthMCP
import HealthModel
import HealthService
import HealthStore
import MCP
import Testing

/// One demo store for every test: 30 days, seed 7, ending 2024-05-15 12:00 UTC, home zone UTC, clock fixed there.
enum Fixture {
    static let utc = TimeZone(identifier: "UTC")!
    static let end = ISO8601.date("2024-05-15T12:00:00Z")!

    static let shared: Task<(HealthService, DemoReport), any Error> = Task {
        let (store, report) = try await DemoWorld(days: 30, seed: 7, end: end, zone: utc).store()
        let service = HealthService(store: store, homeTimeZone: utc, clock: { end })
        return (service, report)
    }

    static func service() async throws -> HealthService { try await shared.value.0 }
    static func report() async throws -> DemoReport { try await shared.value.1 }
}

/// An MCP client connected to a HealthBridge server through the SDK's in-memory transport.
struct Harness {
    let client: Client
    let server: Server
    let tools: [String: Tool]

    static func make(maxReplyBytes: Int = 1_000_000) async throws -> Harness {
        let toolbox = HealthToolbox(service: try await Fixture.service(), maxReplyBytes: maxReplyBytes)
        let (clientTransport, serverTransport) = await InMemoryTransport.createConnectedPair()
        let server = await HealthMCPServer.make(toolbox: toolbox)
        try await server.start(transport: serverTransport)
        let client = Client(name: "healthbridge-tests", version: "1.0")
        try await client.connect(transport: clientTransport)
        // The schemas to check results against come from the toolbox: decoding tools/list with the SDK's client
        // takes a third of a second (listsTenReadOnlyToolsWithSchemas lists them over the wire once).
        return Harness(client: client, server: server,
                       tools: Dictionary(uniqueKeysWithValues: toolbox.tools.map { ($0.name, $0) }))
    }

    /// Calls a tool and returns its raw result.
    func call(_ name: String, _ arguments: [String: Value] = [:]) async throws -> CallTool.Result {
        let context: RequestContext<CallTool.Result> = try await client.callTool(name: name, arguments: arguments)
        return try await context.value
    }

    /// Calls a tool that must succeed; checks its structured content against the declared output schema and
    /// that the text rendering is there, and returns the structured content.
    func ok(_ name: String, _ arguments: [String: Value] = [:],
            sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Value] {
        let result = try await call(name, arguments)
        #expect(result.isError != true, "\(name) failed: \(text(result))", sourceLocation: sourceLocation)
        guard case .object(let structured)? = result.structuredContent else {
            Issue.record("\(name) returned no structured content", sourceLocation: sourceLocation)
            return [:]
        }
        let schema = try #require(tools[name]?.outputSchema, sourceLocation: sourceLocation)
        let problems = SchemaChecker.check(.object(structured), against: schema)
        #expect(problems.isEmpty, "\(name): \(problems.prefix(5).joined(separator: "; "))", sourceLocation: sourceLocation)
        #expect(!text(result).isEmpty, "\(name) has no text rendering", sourceLocation: sourceLocation)
        return structured
    }

    /// Calls a tool that must fail with `code`; returns the message.
    func failure(_ name: String, _ arguments: [String: Value], code: String,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await call(name, arguments)
        #expect(result.isError == true, "\(name) should have failed with \(code)", sourceLocation: sourceLocation)
        #expect(text(result).hasPrefix(code + ": "), "text: \(text(result))", sourceLocation: sourceLocation)
        let error = result.structuredContent?.objectValue?["error"]?.objectValue
        #expect(error?["code"]?.stringValue == code, sourceLocation: sourceLocation)
        return error?["message"]?.stringValue ?? ""
    }

    func text(_ result: CallTool.Result) -> String {
        result.content.compactMap { content -> String? in
            if case .text(let text, _, _) = content { return text }
            return nil
        }.joined(separator: "\n")
    }

    func close() async {
        await client.disconnect()
        await server.stop()
    }
}

extension Value {
    var number: Double? { doubleValue ?? intValue.map(Double.init) }
    subscript(_ key: String) -> Value? { objectValue?[key] }
}

/// A JSON Schema checker for the subset the tools declare: type (one or several), properties, required, items,
/// enum, minimum/maximum, additionalProperties (false, true or a schema). Properties a schema does not declare are
/// reported unless additionalProperties allows them, so that declared schemas stay complete.
enum SchemaChecker {
    static func check(_ value: Value, against schema: Value, path: String = "$") -> [String] {
        guard case .object(let rules) = schema else { return ["\(path): schema is not an object"] }
        var problems: [String] = []
        if let type = rules["type"] {
            let allowed = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            if !allowed.contains(where: { matches(value, $0) }) {
                return ["\(path): expected \(allowed.joined(separator: "|")), got \(value)"]
            }
        }
        if let options = rules["enum"]?.arrayValue, !options.contains(value) {
            problems.append("\(path): \(value) is not one of \(options)")
        }
        if let number = value.number {
            if let minimum = rules["minimum"]?.number, number < minimum { problems.append("\(path): below minimum") }
            if let maximum = rules["maximum"]?.number, number > maximum { problems.append("\(path): above maximum") }
        }
        if case .object(let fields) = value {
            let properties = rules["properties"]?.objectValue ?? [:]
            for name in rules["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where fields[name] == nil {
                problems.append("\(path): missing required '\(name)'")
            }
            for (name, field) in fields {
                if let property = properties[name] {
                    problems += check(field, against: property, path: "\(path).\(name)")
                } else {
                    switch rules["additionalProperties"] {
                    case .bool(true)?: break
                    case .object?: problems += check(field, against: rules["additionalProperties"]!, path: "\(path).\(name)")
                    default: problems.append("\(path): undeclared property '\(name)'")
                    }
                }
            }
        }
        if case .array(let items) = value, let itemSchema = rules["items"] {
            for (index, item) in items.enumerated() {
                problems += check(item, against: itemSchema, path: "\(path)[\(index)]")
            }
        }
        return problems
    }

    static func matches(_ value: Value, _ type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null): return true
        case ("number", .int), ("number", .double), ("integer", .int): return true
        case ("integer", .double(let d)): return d.rounded() == d
        default: return false
        }
    }
}
