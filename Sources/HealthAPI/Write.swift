import Foundation
import HealthModel

// Writes: samples (`HealthService.save`) and what a write did.

/// One sample to write: a quantity (`value` + `unit`) or a category (`category` by name).
///
/// ```swift
/// SampleInput(type: "bodyMass", value: 72.4, unit: "kg", start: "2024-05-01T07:30:00Z", logId: "w-1")
/// ```
public struct SampleInput: Codable, Sendable, Hashable {
    public var type: String?
    public var value: Double?
    /// Any unit compatible with the type's (`kg`, `lb`, `kcal`, `kJ`, `mL`, `fl_oz_us`…); default the type's own.
    public var unit: String?
    /// Category types: the value's name (`asleepDeep`, `stood`…).
    public var category: String?
    /// A date expression; default now.
    public var start: String?
    /// Default the start.
    public var end: String?
    public var metadata: [String: String]?
    /// The writer's id for the entry: deletes find it; writing it again changes nothing (see `syncVersion`).
    public var logId: String?
    /// HealthKit's `HKMetadataKeySyncIdentifier`: a later write with a greater `syncVersion` replaces the object;
    /// an equal or lower one changes nothing and answers the stored object's UUID.
    public var syncId: String?
    public var syncVersion: Int?
    /// `HKWasUserEntered`: typed in by the person (default true for the owner's CLI, false otherwise).
    public var userEntered: Bool?

    public init(type: String? = nil, value: Double? = nil, unit: String? = nil, category: String? = nil,
                start: String? = nil, end: String? = nil, metadata: [String: String]? = nil, logId: String? = nil,
                syncId: String? = nil, syncVersion: Int? = nil, userEntered: Bool? = nil) {
        self.type = type; self.value = value; self.unit = unit; self.category = category; self.start = start
        self.end = end; self.metadata = metadata; self.logId = logId; self.syncId = syncId
        self.syncVersion = syncVersion; self.userEntered = userEntered
    }

    enum CodingKeys: String, CodingKey {
        case type, value, unit, category, start, end, metadata, logId = "log_id", syncId = "sync_id"
        case syncVersion = "sync_version", userEntered = "user_entered"
    }
}

/// What a write did.
public struct WriteResult: Codable, Sendable, Hashable {
    /// The objects the request stands for, new or already stored, in the order asked (a meal: its nutrients, then
    /// the food correlation).
    public var objects: [WrittenObject]
    public var inserted: Int
    public var replaced: Int
    /// Already stored: a retry, or a sync version not greater than the stored one.
    public var unchanged: Int
    /// The change feed's anchor after the write.
    public var anchor: String

    public init(objects: [WrittenObject], inserted: Int, replaced: Int, unchanged: Int, anchor: String) {
        self.objects = objects; self.inserted = inserted; self.replaced = replaced; self.unchanged = unchanged
        self.anchor = anchor
    }

    public struct WrittenObject: Codable, Sendable, Hashable {
        public var uuid: String
        public var type: String

        public init(uuid: String, type: String) {
            self.uuid = uuid; self.type = type
        }
    }
}


extension SampleInput: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string("A HealthKit type identifier, with or without its prefix."),
        "value": .number("The quantity, in unit (quantity types)."),
        "unit": .string("Any unit compatible with the type's (kg, lb, kcal, kJ, mL, fl_oz_us…); default the type's own."),
        "category": .string("Category types: the value's name (asleepDeep, stood…)."),
        "start": .string("A date expression; default now."),
        "end": .string("A date expression; default the start."),
        "metadata": .map(.string(), "HealthKit metadata (HKMetadataKey…)."),
        "user_entered": .boolean("Typed in by the person (HKWasUserEntered)."),
    ].adding(WriteIdentifiers.properties), required: ["type"])
}

/// The identifiers a write may carry: `log_id`, `sync_id`, `sync_version`.
enum WriteIdentifiers {
    static let properties: [String: JSONSchema] = [
        "log_id": .string("Your id for the entry: writing it again changes nothing; deleting it removes the entry."),
        "sync_id": .string("A HealthKit sync identifier: a greater sync_version replaces the stored object."),
        "sync_version": .integer("The version of this write (default 1).", minimum: 0),
    ]
}

extension WriteResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "objects": .array(.object(["uuid": .string(), "type": .string()], required: ["uuid", "type"]),
                          "The objects the call stands for, new or already stored."),
        "inserted": .integer(), "replaced": .integer(),
        "unchanged": .integer("Already stored: a retry, or a sync version not greater than the stored one."),
        "anchor": .string("The change feed's anchor after the write (get_changes)."),
    ], required: ["objects", "inserted", "replaced", "unchanged", "anchor"])
}
