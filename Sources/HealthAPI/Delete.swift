import Foundation
import HealthModel

/// What to delete: one object by UUID, several objects by UUID in one transaction (HealthKit's `delete([HKObject])`),
/// every object of an entry by its log id (a meal: its nutrients and its food correlation), or the object with a
/// sync id. Exactly one of them.
///
/// ```swift
/// try await service.delete(DeleteRequest(uuids: [first.uuidString, second.uuidString]))   // both or neither
/// ```
public struct DeleteRequest: Codable, Sendable, Hashable {
    public var uuid: String?
    /// Several objects by UUID, 1…1,000, deleted in one transaction; unknown ones are skipped.
    public var uuids: [String]?
    public var logId: String?
    public var syncId: String?

    public init(uuid: String? = nil, uuids: [String]? = nil, logId: String? = nil, syncId: String? = nil) {
        self.uuid = uuid; self.uuids = uuids; self.logId = logId; self.syncId = syncId
    }

    enum CodingKeys: String, CodingKey { case uuid, uuids, logId = "log_id", syncId = "sync_id" }

    /// The most UUIDs one delete takes.
    public static let maxUUIDs = 1_000
}

public struct DeleteResult: Codable, Sendable, Hashable {
    public var deleted: Int
    public var uuids: [String]
    /// The change feed's anchor after the delete.
    public var anchor: String

    public init(deleted: Int, uuids: [String], anchor: String) {
        self.deleted = deleted; self.uuids = uuids; self.anchor = anchor
    }
}

// MARK: - Schemas

extension DeleteRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "uuid": .string("One object by its UUID."),
        "uuids": .array(.string(), "Several objects by UUID (1–1,000), deleted in one transaction; unknown ones are skipped."),
        "log_id": .string("Every object of an entry by its log id."),
        "sync_id": .string("The object with this sync identifier."),
    ])
}

extension DeleteResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "deleted": .integer(), "uuids": .array(.string()),
        "anchor": .string("The change feed's anchor after the delete."),
    ], required: ["deleted", "uuids", "anchor"])
}
