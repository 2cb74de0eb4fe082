import Foundation
import HealthModel

/// A change of grants (`healthbridge grants PRINCIPAL --allow-read … --allow-write … --deny … --reset`).
public struct GrantsUpdate: Codable, Sendable, Hashable {
    public var principal: String
    public var allowRead: [String]
    public var allowWrite: [String]
    public var deny: [String]
    public var reset: Bool

    public init(principal: String, allowRead: [String] = [], allowWrite: [String] = [], deny: [String] = [],
                reset: Bool = false) {
        self.principal = principal; self.allowRead = allowRead; self.allowWrite = allowWrite; self.deny = deny
        self.reset = reset
    }
}

/// The grants of every principal.
public struct GrantsResult: Codable, Sendable, Hashable {
    public struct Entry: Codable, Sendable, Hashable {
        public var principal: String
        /// `all`, `all except …`, the types, or `none`.
        public var read: String
        public var write: String
        /// False when the principal has its kind's defaults (or, for a device, those of `device:*`).
        public var explicit: Bool
        public var grants: AccessGrants

        public init(principal: String, read: String, write: String, explicit: Bool, grants: AccessGrants) {
            self.principal = principal; self.read = read; self.write = write; self.explicit = explicit
            self.grants = grants
        }
    }

    public var principals: [Entry]

    public init(principals: [Entry]) {
        self.principals = principals
    }
}

// MARK: - Schemas

extension GrantsUpdate: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "principal": .string(), "allowRead": .array(.string()), "allowWrite": .array(.string()),
        "deny": .array(.string()), "reset": .boolean(),
    ], required: ["principal", "allowRead", "allowWrite", "deny", "reset"])
}
