import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

/// JSON values as the MCP SDK carries them.
typealias JSON = MCP.Value

// MARK: - Arguments

/// A tool call's arguments, read leniently (a number may come as a string, `null` means absent) and checked strictly
/// (unknown names, wrong types and out-of-range values are `HEALTH_INVALID_ARGUMENT` errors that say how to fix the
/// call).
struct ToolArguments: Sendable {
    let tool: String
    let values: [String: JSON]

    init(tool: String, values: [String: JSON], allowed: [String]) throws(HealthError) {
        self.tool = tool
        var kept: [String: JSON] = [:]
        for (key, value) in values {
            if case .null = value { continue }
            if case .string(let text) = value, text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard allowed.contains(key) else {
                let list = allowed.isEmpty ? "no arguments" : "only " + allowed.joined(separator: ", ")
                throw HealthError(.invalidArgument, "\(tool) has no argument '\(key)'; it takes \(list)")
            }
            kept[key] = value
        }
        self.values = kept
    }

    var isEmpty: Bool { values.isEmpty }
    func has(_ key: String) -> Bool { values[key] != nil }

    func string(_ key: String) throws(HealthError) -> String? {
        guard let value = values[key] else { return nil }
        switch value {
        case .string(let text): return text.trimmingCharacters(in: .whitespaces)
        case .int(let number): return String(number)
        default:
            throw HealthError(.invalidArgument, "\(key) must be a string, got \(Self.describe(value))")
        }
    }

    func requiredString(_ key: String, hint: String) throws(HealthError) -> String {
        guard let text = try string(key) else {
            throw HealthError(.invalidArgument, "\(tool) needs '\(key)': \(hint)")
        }
        return text
    }

    /// A string, a comma-separated string or an array of strings.
    func strings(_ key: String) throws(HealthError) -> [String]? {
        guard let value = values[key] else { return nil }
        var result: [String] = []
        switch value {
        case .string(let text):
            result = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        case .array(let items):
            for item in items {
                guard case .string(let text) = item else {
                    throw HealthError(.invalidArgument, "\(key) must be a string or an array of strings, got \(Self.describe(item)) in the array")
                }
                result.append(text.trimmingCharacters(in: .whitespaces))
            }
        default:
            throw HealthError(.invalidArgument, "\(key) must be a string or an array of strings, got \(Self.describe(value))")
        }
        result.removeAll { $0.isEmpty }
        return result.isEmpty ? nil : result
    }

    func int(_ key: String, default defaultValue: Int, range: ClosedRange<Int>) throws(HealthError) -> Int {
        guard let value = values[key] else { return defaultValue }
        let problem = HealthError(.invalidArgument,
                                  "\(key) must be an integer from \(range.lowerBound) to \(range.upperBound), got \(Self.describe(value))")
        var number: Double
        switch value {
        case .int(let n): number = Double(n)
        case .double(let d): number = d
        case .string(let s):
            guard let d = Double(s.trimmingCharacters(in: .whitespaces)) else { throw problem }
            number = d
        default: throw problem
        }
        // Checked as a Double first: converting a huge or fractional number to Int would trap.
        guard number.isFinite, number.rounded() == number,
              number >= Double(range.lowerBound), number <= Double(range.upperBound) else { throw problem }
        number = number.rounded()
        return Int(number)
    }

    /// A number (an integer, a decimal, or one written as a string).
    func number(_ key: String) throws(HealthError) -> Double? {
        guard let value = values[key] else { return nil }
        switch value {
        case .int(let n): return Double(n)
        case .double(let d) where d.isFinite: return d
        case .string(let s):
            if let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite { return d }
        default: break
        }
        throw HealthError(.invalidArgument, "\(key) must be a number, got \(Self.describe(value))")
    }

    func requiredNumber(_ key: String) throws(HealthError) -> Double {
        guard let number = try number(key) else { throw HealthError(.invalidArgument, "\(tool) needs '\(key)', a number") }
        return number
    }

    func bool(_ key: String, default defaultValue: Bool) throws(HealthError) -> Bool {
        guard let value = values[key] else { return defaultValue }
        switch value {
        case .bool(let flag): return flag
        case .string(let s) where ["true", "false"].contains(s.lowercased()): return s.lowercased() == "true"
        case .int(let n) where n == 0 || n == 1: return n == 1
        default: throw HealthError(.invalidArgument, "\(key) must be true or false, got \(Self.describe(value))")
        }
    }

    func choice(_ key: String, _ allowed: [String], default defaultValue: String) throws(HealthError) -> String {
        guard let text = try string(key) else { return defaultValue }
        guard let match = allowed.first(where: { $0.lowercased() == text.lowercased() }) else {
            throw HealthError(.invalidArgument, "\(key) must be one of \(allowed.joined(separator: ", ")), got '\(text)'")
        }
        return match
    }

    static func describe(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "'\(s.count > 60 ? String(s.prefix(60)) + "…" : s)'"
        case .data: return "binary data"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSON {
    /// An upper bound of the size of this value encoded as JSON, cheap enough to call per item.
    var estimatedJSONSize: Int {
        switch self {
        case .null: return 4
        case .bool: return 5
        case .int: return 20
        case .double: return 24
        case .string(let s): return s.utf8.count * 6 / 5 + 2
        case .data(_, let d): return d.count * 4 / 3 + 64
        case .array(let items): return items.reduce(2) { $0 + $1.estimatedJSONSize + 1 }
        case .object(let fields): return fields.reduce(2) { $0 + $1.key.utf8.count + 4 + $1.value.estimatedJSONSize }
        }
    }
}

// Text rendering lives beside the contract (HealthAPI/Text), shared with the CLI.

// MARK: - JSON Schema

extension JSON {
    /// A contract type's schema (``SchemaDescribed``) as the MCP SDK carries it: tools' output schemas are read from
    /// the result types, never written here.
    init(_ schema: JSONSchema) { self.init(schema.json) }

    /// A JSON value as the MCP SDK carries it.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(Int(clamping: number))
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSON.init))
        case .object(let fields): self = .object(fields.mapValues(JSON.init))
        }
    }
}

/// The JSON Schema subset tool arguments declare: objects, arrays, strings, numbers, integers, booleans, enums.
/// Results declare theirs beside their types in HealthAPI.
enum Schema {
    static func object(_ properties: [String: JSON], required: [String] = [], description: String? = nil,
                       additionalProperties: Bool? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.map(JSON.string)) }
        if let description { schema["description"] = .string(description) }
        if let additionalProperties { schema["additionalProperties"] = .bool(additionalProperties) }
        return .object(schema)
    }

    static func string(_ description: String? = nil, oneOf values: [String]? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "string"]
        if let description { schema["description"] = .string(description) }
        if let values { schema["enum"] = .array(values.map(JSON.string)) }
        return .object(schema)
    }

    static func number(_ description: String? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "number"]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    static func integer(_ description: String? = nil, minimum: Int? = nil, maximum: Int? = nil,
                        default defaultValue: Int? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "integer"]
        if let description { schema["description"] = .string(description) }
        if let minimum { schema["minimum"] = .int(minimum) }
        if let maximum { schema["maximum"] = .int(maximum) }
        if let defaultValue { schema["default"] = .int(defaultValue) }
        return .object(schema)
    }

    static func boolean(_ description: String? = nil, default defaultValue: Bool? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "boolean"]
        if let description { schema["description"] = .string(description) }
        if let defaultValue { schema["default"] = .bool(defaultValue) }
        return .object(schema)
    }

    static func array(_ items: JSON, _ description: String? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "array", "items": items]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    /// An object whose keys are free (e.g. metadata) with values of one schema.
    static func map(_ values: JSON, _ description: String? = nil) -> JSON {
        var schema: [String: JSON] = ["type": "object", "additionalProperties": values]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    // Arguments shared by several tools.
    static let dateHelp = "an ISO date (2024-05-01, the start of that day), an instant (2024-05-01T08:00:00Z), now, today, yesterday, or a span back from now: 7d (the last 7 days including today), 12h, 2w, 3mo, 1y"

    static func start(defaultText: String) -> JSON {
        string("Start of the range: \(dateHelp). Default: \(defaultText).")
    }

    static let end = string("End of the range (exclusive), in the same forms as start. Default: now.")
    static let timeZone = string("IANA time zone for day boundaries and the times shown, e.g. Europe/Paris. Default: the user's home time zone.")
    static let cursor = string("next_cursor from the previous result, to get the next page. With a cursor the other arguments are taken from it and may be left out.")
    static let typeArgument = string("A HealthKit type identifier, with or without its prefix: stepCount, heartRate, restingHeartRate, bodyMass, activeEnergyBurned, distanceWalkingRunning, sleepAnalysis, … (list_types gives the types present).")
}
