import Foundation
import HealthModel

/// What an app asks for: types to read and to write (any spelling the registry knows), and why.
public struct AccessRequestInput: Codable, Sendable, Hashable {
    public var read: [String]
    public var write: [String]
    /// A short reason per type, shown to the owner (the app's usage description).
    public var reasons: [String: String]

    public init(read: [String] = [], write: [String] = [], reasons: [String: String] = [:]) {
        self.read = read; self.write = write; self.reasons = reasons
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        read = try container.decodeIfPresent([String].self, forKey: .read) ?? []
        write = try container.decodeIfPresent([String].self, forKey: .write) ?? []
        reasons = try container.decodeIfPresent([String: String].self, forKey: .reasons) ?? [:]
    }
}

/// A request for access, as the owner sees it.
public struct AccessRequest: Codable, Sendable, Hashable, Identifiable {
    public enum Status: String, Codable, Sendable, Hashable, CaseIterable {
        case pending, approved, denied
    }

    public var id: String
    /// Who asks (`app:ID`, `device:ID`, `ingest:NAME`, …).
    public var principal: String
    /// The paired client that filed it (its id, as `healthbridge clients` lists it), when one did: each client of an
    /// app has its own pending request and reasons.
    public var client: String?
    public var read: [String]
    public var write: [String]
    public var reasons: [String: String]
    /// ISO 8601, UTC.
    public var createdAt: String
    public var status: Status
    public var decidedAt: String?
    /// What the owner granted when approving (the whole request unless a subset was chosen).
    public var grantedRead: [String]
    public var grantedWrite: [String]

    public init(id: String, principal: String, read: [String], write: [String], reasons: [String: String],
                createdAt: String, status: Status = .pending, decidedAt: String? = nil, grantedRead: [String] = [],
                grantedWrite: [String] = [], client: String? = nil) {
        self.id = id; self.principal = principal; self.client = client; self.read = read; self.write = write
        self.reasons = reasons
        self.createdAt = createdAt; self.status = status; self.decidedAt = decidedAt
        self.grantedRead = grantedRead; self.grantedWrite = grantedWrite
    }
}

/// The owner's answer to a request: approve (all of it, or the `read`/`write` subsets) or deny.
public struct AccessDecision: Codable, Sendable, Hashable {
    public var id: String
    public var approve: Bool
    public var read: [String]?
    public var write: [String]?

    public init(id: String, approve: Bool, read: [String]? = nil, write: [String]? = nil) {
        self.id = id; self.approve = approve; self.read = read; self.write = write
    }
}

/// HealthKit's `HKAuthorizationStatus`, for writing.
public enum AuthorizationStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case notDetermined, sharingDenied, sharingAuthorized
}

/// The answer to ``HealthService/requestAccess(_:)``: the request filed (nil when there was nothing left to ask)
/// and the write status of each type asked for.
public struct AccessRequestFiling: Codable, Sendable, Hashable {
    public var request: AccessRequest?
    public var write: [String: AuthorizationStatus]

    public init(request: AccessRequest? = nil, write: [String: AuthorizationStatus]) {
        self.request = request; self.write = write
    }
}

/// The answer to ``HealthService/authorizationStatus(types:)``.
public struct AuthorizationStatusResult: Codable, Sendable, Hashable {
    public var principal: String
    public var write: [String: AuthorizationStatus]
    /// Whether a request of this principal waits for the owner.
    public var requestPending: Bool

    public init(principal: String, write: [String: AuthorizationStatus], requestPending: Bool) {
        self.principal = principal; self.write = write; self.requestPending = requestPending
    }
}

/// Every access request.
public struct AccessRequestsResult: Codable, Sendable, Hashable {
    public var requests: [AccessRequest]

    public init(requests: [AccessRequest]) {
        self.requests = requests
    }
}

// MARK: - Schemas

extension AccessRequestInput: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "read": .array(.string(), "Types to read."),
        "write": .array(.string(), "Types to write."),
        "reasons": .map(.string(), "A short reason per type, shown to the owner."),
    ])
}

extension AccessRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "id": .string(),
        "principal": .string("Who asks (app:ID, device:ID, ingest:NAME, …)."),
        "client": .string("The paired client that filed it: each client of an app has its own pending request and reasons."),
        "read": .array(.string()), "write": .array(.string()),
        "reasons": .map(.string()),
        "createdAt": .string(format: "date-time"),
        "status": .string(oneOf: Status.allCases.map(\.rawValue)),
        "decidedAt": .string(format: "date-time"),
        "grantedRead": .array(.string()), "grantedWrite": .array(.string()),
    ], required: ["id", "principal", "read", "write", "reasons", "createdAt", "status", "grantedRead", "grantedWrite"])
}

extension AccessDecision: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "id": .string(), "approve": .boolean(),
        "read": .array(.string(), "The reads granted (default all asked)."),
        "write": .array(.string(), "The writes granted (default all asked)."),
    ], required: ["id", "approve"])
}

extension AuthorizationStatus: SchemaDescribed {
    public static let jsonSchema = JSONSchema.string(oneOf: allCases.map(\.rawValue))

    /// The write status of each type asked for, by type.
    public static let byType = JSONSchema.map(jsonSchema)
}

extension AccessRequestFiling: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "request": AccessRequest.jsonSchema.describing("The request filed; absent when every type was already decided."),
        "write": AuthorizationStatus.byType,
    ], required: ["write"])
}

extension AuthorizationStatusResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "principal": .string(), "write": AuthorizationStatus.byType,
        "requestPending": .boolean("Whether a request of this principal waits for the owner."),
    ], required: ["principal", "write", "requestPending"])
}

extension AccessRequestsResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object(["requests": .array(AccessRequest.jsonSchema)], required: ["requests"])
}
