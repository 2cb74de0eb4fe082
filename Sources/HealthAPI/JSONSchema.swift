/// A JSON Schema, the subset the contract declares: objects (properties, required, additionalProperties), arrays,
/// strings (enum, format), numbers, integers (minimum, maximum, default), booleans, descriptions.
///
/// Every request and result type of the contract declares its schema beside it (``SchemaDescribed``); MCP's tool
/// schemas and the OpenAPI document's components are read from there, so a field is declared once.
///
/// ```swift
/// let schema = JSONSchema.object(["type": .string("The type."), "count": .integer()], required: ["type"])
/// schema.json["required"]   // ["type"]
/// ```
public struct JSONSchema: Sendable, Hashable {
    /// The schema as a JSON document.
    public var json: JSONValue

    public init(_ json: JSONValue) { self.json = json }

    /// An object with these properties; `additionalProperties` only when given.
    public static func object(_ properties: [String: JSONSchema], required: [String] = [], description: String? = nil,
                              additionalProperties: Bool? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties.mapValues(\.json))]
        if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        if let description { schema["description"] = .string(description) }
        if let additionalProperties { schema["additionalProperties"] = .bool(additionalProperties) }
        return JSONSchema(.object(schema))
    }

    public static func string(_ description: String? = nil, oneOf values: [String]? = nil,
                              format: String? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "string"]
        if let description { schema["description"] = .string(description) }
        if let values { schema["enum"] = .array(values.map(JSONValue.string)) }
        if let format { schema["format"] = .string(format) }
        return JSONSchema(.object(schema))
    }

    /// An ISO 8601 instant as results give it (`2024-05-07T13:57:00+02:00`: with the offset of the result's zone).
    public static func instant(_ description: String = "ISO 8601 instant with the time zone's offset") -> JSONSchema {
        string(description, format: "date-time")
    }

    public static func number(_ description: String? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "number"]
        if let description { schema["description"] = .string(description) }
        return JSONSchema(.object(schema))
    }

    public static func integer(_ description: String? = nil, minimum: Int? = nil, maximum: Int? = nil,
                               default defaultValue: Int? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "integer"]
        if let description { schema["description"] = .string(description) }
        if let minimum { schema["minimum"] = .number(Double(minimum)) }
        if let maximum { schema["maximum"] = .number(Double(maximum)) }
        if let defaultValue { schema["default"] = .number(Double(defaultValue)) }
        return JSONSchema(.object(schema))
    }

    public static func boolean(_ description: String? = nil, default defaultValue: Bool? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "boolean"]
        if let description { schema["description"] = .string(description) }
        if let defaultValue { schema["default"] = .bool(defaultValue) }
        return JSONSchema(.object(schema))
    }

    public static func array(_ items: JSONSchema, _ description: String? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "array", "items": items.json]
        if let description { schema["description"] = .string(description) }
        return JSONSchema(.object(schema))
    }

    /// An object whose keys are free (metadata, minutes per category value) with values of one schema.
    public static func map(_ values: JSONSchema, _ description: String? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "object", "additionalProperties": values.json]
        if let description { schema["description"] = .string(description) }
        return JSONSchema(.object(schema))
    }

    /// An object with free keys and values of any type.
    public static func freeObject(_ description: String? = nil) -> JSONSchema {
        var schema: [String: JSONValue] = ["type": "object", "additionalProperties": true]
        if let description { schema["description"] = .string(description) }
        return JSONSchema(.object(schema))
    }

    /// This schema with `description` (replacing its own).
    ///
    /// ```swift
    /// SleepNightRecord.jsonSchema.describing("Last night (the night ending today).")
    /// ```
    public func describing(_ description: String) -> JSONSchema {
        guard case .object(var schema) = json else { return self }
        schema["description"] = .string(description)
        return JSONSchema(.object(schema))
    }

    /// The paging fields of a paged result (`has_more`, `next_cursor`).
    public static let paging: [String: JSONSchema] = [
        "has_more": .boolean("True when more items match than this reply holds; pass next_cursor to get them."),
        "next_cursor": .string("Present when has_more: the cursor argument for the next page."),
    ]
}

/// A contract type that declares its JSON Schema beside it: what its JSON encoding (``JSONEncoder/wire``) looks like.
///
/// ```swift
/// extension LatestResult: SchemaDescribed {
///     public static let jsonSchema = JSONSchema.object(["type": .string(), "found": .boolean()], required: ["type", "found"])
/// }
/// ```
public protocol SchemaDescribed {
    static var jsonSchema: JSONSchema { get }
}

extension Dictionary where Key == String, Value == JSONSchema {
    /// These properties and `other`'s (these win on a name both have).
    public func adding(_ other: [String: JSONSchema]) -> [String: JSONSchema] {
        merging(other) { mine, _ in mine }
    }
}
