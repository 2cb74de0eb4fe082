import Foundation
import HealthModel

/// HealthKit's anchored object query: what was added and deleted since an anchor, and the anchor to ask from next.
///
/// ```swift
/// var feed = try await service.changes(ChangesRequest(types: ["bodyMass"]))        // everything so far
/// feed = try await service.changes(ChangesRequest(types: ["bodyMass"], anchor: feed.anchor, wait: 30))   // long-poll
/// ```
public struct ChangesRequest: Codable, Sendable, Hashable {
    /// Types to follow (default every type).
    public var types: [String]?
    /// The `anchor` of the previous answer; absent: from the beginning.
    public var anchor: String?
    /// Seconds to wait for a change when there is none yet (long-poll), 0…60; default 0.
    public var wait: Double?
    /// Changes per answer, 1…5,000 (default 500).
    public var limit: Int?
    public var timeZone: String?

    public init(types: [String]? = nil, anchor: String? = nil, wait: Double? = nil, limit: Int? = nil,
                timeZone: String? = nil) {
        self.types = types; self.anchor = anchor; self.wait = wait; self.limit = limit; self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey { case types, anchor, wait, limit, timeZone = "time_zone" }
}

public struct ChangesResult: Codable, Sendable, Hashable {
    public var added: [ChangedObject]
    public var deleted: [DeletedObject]
    /// Pass it back to get what changed after this answer.
    public var anchor: String
    /// True when `limit` cut the answer: ask again from `anchor` at once.
    public var hasMore: Bool

    public init(added: [ChangedObject], deleted: [DeletedObject], anchor: String, hasMore: Bool) {
        self.added = added; self.deleted = deleted; self.anchor = anchor; self.hasMore = hasMore
    }

    public struct ChangedObject: Codable, Sendable, Hashable {
        public var type: String
        public var sample: SampleRecord?
        public var workout: WorkoutRecord?

        public init(type: String, sample: SampleRecord? = nil, workout: WorkoutRecord? = nil) {
            self.type = type; self.sample = sample; self.workout = workout
        }
    }

    public struct DeletedObject: Codable, Sendable, Hashable {
        public var uuid: String
        public var type: String
        public var syncId: String?
        public var deletedAt: String

        public init(uuid: String, type: String, syncId: String? = nil, deletedAt: String) {
            self.uuid = uuid; self.type = type; self.syncId = syncId; self.deletedAt = deletedAt
        }
        enum CodingKeys: String, CodingKey { case uuid, type, syncId = "sync_id", deletedAt = "deleted_at" }
    }

    enum CodingKeys: String, CodingKey { case added, deleted, anchor, hasMore = "has_more" }
}

/// The change feed's anchor now (HealthKit's anchor "now"): where an observer that wants only what happens from here
/// on starts, without downloading the history. Pass it as ``ChangesRequest/anchor``.
///
/// ```swift
/// let now = try await service.changesAnchor()                       // {"anchor": "1234"}
/// let later = try await service.changes(ChangesRequest(types: ["bodyMass"], anchor: now.anchor))
/// ```
public struct ChangesAnchor: Codable, Sendable, Hashable {
    /// The anchor of the last commit; `changes` from it answers only what is committed afterwards.
    public var anchor: String

    public init(anchor: String) {
        self.anchor = anchor
    }
}

// MARK: - Schemas

extension ChangesAnchor: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "anchor": .string("The anchor of the last commit: pass it to changes to get only what is committed afterwards."),
    ], required: ["anchor"])
}

extension ChangesRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "types": .array(.string(), "Types to follow (default every type)."),
        "anchor": .string("The anchor of the previous answer; absent: from the beginning."),
        "wait": .number("Seconds to wait for a change when there is none yet (0–60)."),
        "limit": .integer("Changes per answer.", minimum: 1, maximum: 5_000, default: 500),
        "time_zone": .string("IANA zone of the dates in the result; default the home zone."),
    ])
}

extension ChangesResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "added": .array(.object(["type": .string(), "sample": SampleRecord.jsonSchema,
                                 "workout": WorkoutRecord.jsonSchema], required: ["type"])),
        "deleted": .array(.object(["uuid": .string(), "type": .string(), "sync_id": .string(),
                                   "deleted_at": .instant()], required: ["uuid", "type", "deleted_at"])),
        "anchor": .string("Pass it back to get what changed after this answer."),
        "has_more": .boolean("True when limit cut the answer: ask again from anchor at once."),
    ], required: ["added", "deleted", "anchor", "has_more"])
}
