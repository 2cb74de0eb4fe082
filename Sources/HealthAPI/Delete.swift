import Foundation
import HealthModel

/// What to delete: one object by UUID, every object of an entry by its log id (a meal: its nutrients and its food
/// correlation), or the object with a sync id.
public struct DeleteRequest: Codable, Sendable, Hashable {
    public var uuid: String?
    public var logId: String?
    public var syncId: String?

    public init(uuid: String? = nil, logId: String? = nil, syncId: String? = nil) {
        self.uuid = uuid; self.logId = logId; self.syncId = syncId
    }

    enum CodingKeys: String, CodingKey { case uuid, logId = "log_id", syncId = "sync_id" }
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
