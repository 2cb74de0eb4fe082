import HealthAPI
import PairedAPIClient
import Foundation
import HealthHTTP
import Hummingbird
import Testing
@testable import PairedAPI

/// The OpenAPI document stays true to the implementation: the router's routes are exactly its paths and methods, and
/// one real answer per endpoint (and per error shape) fits the documented schema.
@Suite("OpenAPI document")
struct OpenAPITests {
    static let document = OpenAPIDocument.document

    @Test func routesMatchTheDocument() async throws {
        try await Harness.inProcess { harness in
            let router = harness.server.makeRouter()
            let routed = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description.hasPrefix("/") ? "" : "/")\($0.path)" })
            var documented = Set<String>()
            for (path, item) in try #require(Self.document["paths"]?.objectValue) {
                for method in try #require(item.objectValue).keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            #expect(routed == documented)
            #expect(Set(harness.server.routes.map(\.description)) == documented)
            #expect(Self.document["openapi"]?.stringValue?.hasPrefix("3.") == true)
            // Every $ref resolves.
            func refs(_ value: JSONValue) -> [String] {
                switch value {
                case .object(let object):
                    return (object["$ref"]?.stringValue.map { [$0] } ?? []) + object.values.flatMap(refs)
                case .array(let array): return array.flatMap(refs)
                default: return []
                }
            }
            for ref in refs(Self.document) { #expect(Self.schema(ref) != nil, "\(ref)") }
        }
    }

    /// The components are the contract's schemas (HealthAPI), not a copy: MCP, the kit and this document read one
    /// declaration per type.
    @Test func componentsAreTheContractsSchemas() throws {
        let components = try #require(Self.document["components"]?["schemas"]?.objectValue)
        for (name, type) in OpenAPIDocument.contractSchemas {
            #expect(components[name] == type.jsonSchema.json, "\(name)")
        }
        #expect(components["SummaryResult"] == SummaryResult.jsonSchema.json)
        #expect(components["Error"] == APIErrorResponse.jsonSchema.json)
    }

    @Test func realAnswersFitTheSchemas() async throws {
        try await Harness.inProcess { harness in
            try await harness.share(["stepCount", "sleepAnalysis"])
            let (code, _) = try harness.state.issuePairingCode()
            let pairBody = Array(try JSONEncoder().encode(PairRequest(code: code, clientName: "schema")))
            let paired = try await harness.send("POST", "/api/v1/pair", body: pairBody)
            try check(paired, "POST", "/api/v1/pair")
            let token = try #require(paired.json?["token"]?.stringValue)

            try check(try await harness.send("GET", "/api/v1/status", token: token), "GET", "/api/v1/status")
            try check(try await harness.send("GET", "/api/v1/health/types", token: token), "GET", "/api/v1/health/types")
            let query = "types=stepCount,sleepAnalysis&start=2026-01-08T00:00:00Z&end=2026-01-10T00:00:00Z&limit=50"
            let page = try await harness.send("GET", "/api/v1/health/data?" + query, token: token)
            try check(page, "GET", "/api/v1/health/data")
            #expect(page.json?["nextCursor"] != nil)
            let body = Array(#"{"types":["sleepAnalysis"],"start":"2026-01-08T00:00:00Z","end":"2026-01-10T00:00:00Z"}"#.utf8)
            let sleep = try await harness.send("POST", "/api/v1/health/data", token: token, body: body)
            try check(sleep, "POST", "/api/v1/health/data")
            #expect(sleep.json?["samples"]?.arrayValue?.first?["category"]?.stringValue != nil)
            let openapi = try await harness.send("GET", "/api/v1/openapi.json", token: token)
            try check(openapi, "GET", "/api/v1/openapi.json")
            #expect(openapi.json == Self.document)

            // Error shapes.
            try check(try await harness.send("GET", "/api/v1/status"), "GET", "/api/v1/status")
            try check(try await harness.send("GET", "/api/v1/health/data?types=bogusType&start=x&end=y", token: token),
                      "GET", "/api/v1/health/data")
            try check(try await harness.send("GET", "/api/v1/health/data?types=heartRate&start=2026-01-08T00:00:00Z&end=2026-01-09T00:00:00Z",
                                             token: token), "GET", "/api/v1/health/data")
            try check(try await harness.send("POST", "/api/v1/pair", body: pairBody), "POST", "/api/v1/pair")
            try harness.state.setSharingState(.paused)
            try check(try await harness.send("POST", "/api/v1/health/data", token: token, body: body), "POST", "/api/v1/health/data")
            try check(try await harness.send("GET", "/api/v1/health/types", token: token), "GET", "/api/v1/health/types")
        }
    }

    /// Checks a reply against the schema documented for its method, path and status.
    func check(_ reply: PinnedHTTPSClient.Reply, _ method: String, _ path: String,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let operation = try #require(Self.document["paths"]?[path]?[method.lowercased()], sourceLocation: sourceLocation)
        let response = try #require(operation["responses"]?[String(reply.status)],
                                    "status \(reply.status) of \(method) \(path) is not documented", sourceLocation: sourceLocation)
        let schema = try #require(response["content"]?["application/json"]?["schema"], sourceLocation: sourceLocation)
        let value = try #require(reply.json, "not JSON", sourceLocation: sourceLocation)
        let problems = Self.validate(value, against: schema, at: "$")
        #expect(problems.isEmpty, "\(method) \(path) → \(reply.status): \(problems)", sourceLocation: sourceLocation)
        #expect(reply.header(PairedAPIProtocol.requestIDHeader) != nil, sourceLocation: sourceLocation)
    }

    static func schema(_ ref: String) -> JSONValue? {
        let name = ref.replacingOccurrences(of: "#/components/schemas/", with: "")
        return document["components"]?["schemas"]?[name]
    }

    /// A small JSON Schema subset: $ref, type, required, properties, items, enum.
    static func validate(_ value: JSONValue, against schema: JSONValue, at path: String) -> [String] {
        if let ref = schema["$ref"]?.stringValue {
            guard let resolved = Self.schema(ref) else { return ["\(path): unresolved \(ref)"] }
            return validate(value, against: resolved, at: path)
        }
        var problems: [String] = []
        if let type = schema["type"]?.stringValue {
            let ok: Bool
            switch (type, value) {
            case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool): ok = true
            case ("number", .int), ("number", .double): ok = true
            case ("integer", _): ok = value.intValue != nil
            default: ok = false
            }
            if !ok { return ["\(path): expected \(type), got \(value)"] }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(value) {
            problems.append("\(path): \(value) is not one of \(options)")
        }
        if case .object(let object) = value {
            for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[key] == nil {
                problems.append("\(path): missing required '\(key)'")
            }
            let properties = schema["properties"]?.objectValue ?? [:]
            for (key, item) in object {
                if let property = properties[key] {
                    problems += validate(item, against: property, at: "\(path).\(key)")
                } else if !properties.isEmpty {
                    problems.append("\(path): undocumented key '\(key)'")
                }
            }
        }
        if case .array(let items) = value, let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() { problems += validate(item, against: itemSchema, at: "\(path)[\(index)]") }
        }
        return problems
    }
}
