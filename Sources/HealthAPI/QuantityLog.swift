import Foundation
import HealthModel

/// One quantity to log, of any type the registry marks writable (``SampleType/isWritable``): a value in one of the
/// type's entry units, when, and the metadata the registry allows. The diet app's verbs are
/// shortcuts for the type: `water`, `weight`.
///
/// ```swift
/// try await service.log(QuantityLog(type: "bodyMass", value: 160, unit: "lb", at: "2024-05-01T07:30"))
/// try await service.log(QuantityLog(type: "water", value: 250))   // mL, the first entry unit
/// ```
public struct QuantityLog: Codable, Sendable, Hashable {
    /// A writable type's identifier (with or without its prefix) or a shortcut (`water`, `weight`). The paired API
    /// takes it from the path (`POST /api/v1/log/{type}`).
    public var type: String?
    public var value: Double
    /// One of the type's entry units (`kg`, `lb`…); default the first.
    public var unit: String?
    /// When: a date expression; default now.
    public var at: String?
    /// Metadata the registry allows for the type, by name.
    public var metadata: [String: String]?
    public var logId: String?
    public var syncId: String?
    public var syncVersion: Int?

    public init(type: String? = nil, value: Double, unit: String? = nil, at: String? = nil,
                metadata: [String: String]? = nil, logId: String? = nil, syncId: String? = nil, syncVersion: Int? = nil) {
        self.type = type; self.value = value; self.unit = unit; self.at = at; self.metadata = metadata
        self.logId = logId; self.syncId = syncId; self.syncVersion = syncVersion
    }

    enum CodingKeys: String, CodingKey {
        case type, value, unit, at, metadata, logId = "log_id", syncId = "sync_id", syncVersion = "sync_version"
    }
}

extension QuantityLog: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A writable quantity type (bodyMass, dietaryWater, heartRate…) or a shortcut (water, weight); the paired API takes it from the path."),
        "value": .number("The quantity, in unit."),
        "unit": .string("One of the type's entry units (kg or lb for bodyMass, mL, L or fl_oz_us for water…); default the first."),
        "at": .string("When: a date expression; default now."),
        "metadata": .map(.string(), "Metadata the type allows, by name (the registry's write facts), with values by name or raw value."),
    ].adding(WriteIdentifiers.properties), required: ["value"])
}
