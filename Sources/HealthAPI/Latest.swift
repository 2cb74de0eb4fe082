import Foundation
import HealthModel

/// The most recent sample of a type.
///
/// ```swift
/// let weight = try await service.latest(LatestRequest(type: "bodyMass"))
/// weight.value   // 72.4 (kg)
/// ```
public struct LatestRequest: Codable, Sendable, Hashable {
    public var type: String?
    public var sources: [String]?
    public var timeZone: String?

    public init(type: String? = nil, sources: [String]? = nil, timeZone: String? = nil) {
        self.type = type; self.sources = sources; self.timeZone = timeZone
    }
}

public struct LatestResult: Codable, Sendable, Hashable {
    public var type: String
    /// False when the store has no sample of the type (or this principal may not read it).
    public var found: Bool
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var start: String?
    public var end: String?
    public var source: String?
    /// Hours between the sample's end and now.
    public var ageHours: Double?
    public var timeZone: String
    public var note: String?

    public init(type: String, found: Bool, value: Double? = nil, unit: String? = nil, category: String? = nil,
                start: String? = nil, end: String? = nil, source: String? = nil, ageHours: Double? = nil,
                timeZone: String, note: String? = nil) {
        self.type = type; self.found = found; self.value = value; self.unit = unit; self.category = category
        self.start = start; self.end = end; self.source = source; self.ageHours = ageHours; self.timeZone = timeZone
        self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case type, found, value, unit, category, start, end, source, ageHours = "age_hours", timeZone = "time_zone", note
    }
}

// MARK: - Schemas

extension LatestRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A type identifier."),
        "sources": .array(.string(), "Only these sources."),
        "timeZone": .string("IANA zone of the dates in the result; default the home zone."),
    ])
}

extension LatestResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string(),
        "found": .boolean("False when the store has no sample of the type."),
        "value": .number("The value, in unit (quantity types)."),
        "unit": .string(),
        "category": .string("The value's name (category types, e.g. asleepDeep)."),
        "start": .instant(),
        "end": .instant(),
        "source": .string(),
        "age_hours": .number("Hours between the sample's end and now."),
        "time_zone": .string(),
        "note": .string(),
    ], required: ["type", "found", "time_zone"])
}
