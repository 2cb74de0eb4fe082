import Foundation

/// A JSON value: documents built in code (JSON Schemas, the OpenAPI document, error bodies), the `params` /
/// `payload` / `details` the OpenClaw gateway's schemas type as `unknown`, and answers checked against schemas.
/// Integers and fractions are kept apart (`5` stays `5` on the wire); objects keep their keys sorted when serialised.
///
/// ```swift
/// let schema: JSONValue = ["type": "object", "required": ["type"], "maximum": 5_000]
/// String(decoding: schema.serialized(), as: UTF8.self)   // {"maximum":5000,"required":["type"],"type":"object"}
/// ```
public indirect enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number: an integer when it is a whole number an `Int64` holds exactly, else a fraction.
    public static func number(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 9.0e15 { return .int(Int64(value)) }
        return .double(value)
    }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(Int64(value)) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON bytes.
    public static func parse(_ bytes: some DataProtocol) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// Parses JSON text.
    public init(json text: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The value of `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    /// An integer, also from a JSON number written with a fraction of zero (`5.0`).
    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e15: return Int64(value)
        default: return nil
        }
    }
    /// Any number, integer or not.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// Decodes a typed value from this JSON value.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }

    /// Encodes a value as a JSON value.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// Compact JSON text as the wire writes it (``JSONEncoder/wire``: sorted keys, no escaped slashes).
    public var jsonText: String {
        (try? JSONEncoder.wire.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    public var description: String { jsonText }

    /// Compact JSON with sorted keys.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .int(let value): out += Array(String(value).utf8)
        case .double(let value): JSONWriter.number(value, into: &out)
        case .string(let value): JSONWriter.string(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                object[key].map { $0.write(into: &out) }
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

/// Hand-rolled JSON output for the hot path (samples): strings escaped per RFC 8259, numbers in their shortest form.
package enum JSONWriter {
    package static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [92, 34]
            case UInt8(ascii: "\\"): out += [92, 92]
            case 0x0A: out += [92, 110]
            case 0x0D: out += [92, 114]
            case 0x09: out += [92, 116]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    package static func number(_ value: Double, into out: inout [UInt8]) {
        guard value.isFinite else { out += Array("null".utf8); return }
        if value == value.rounded(), abs(value) < 1e15 {
            out += Array(String(Int64(value)).utf8)
        } else {
            out += Array(value.description.utf8)
        }
    }
}
