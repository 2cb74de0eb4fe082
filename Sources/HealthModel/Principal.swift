import Foundation

/// Who is asking: every call into `HealthService` carries one, and the service checks its grants per type and
/// direction before it reads or writes.
///
/// A principal is written `kind:name` (`owner` alone): `owner` (the person, on this machine's CLI and console),
/// `mcp:NAME` (an MCP client; `mcp:default` for stdio and the HTTP endpoint), `gateway:NAME` (an OpenClaw gateway the
/// node serves), `device:ID` (a paired device, by its client id; `device:*` stands for every paired device),
/// `ingest:NAME` (a push token), `app:ID` (an app using HealthBridgeKit), `person:ID` (another person of the household,
/// a caregiver, reading what this person shared with them).
///
/// ```swift
/// let reader = try Principal(parsing: "device:3f2a")   // a paired device
/// let agent = Principal.mcp()                            // mcp:default
/// ```
public struct Principal: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case owner, mcp, gateway, device, ingest, app
        /// Another person of the household (a caregiver): reads only the types this person granted, never writes.
        case person
    }

    public var kind: Kind
    /// The client's own name or id; empty for the owner.
    public var name: String

    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = kind == .owner ? "" : name
    }

    /// The person who owns the data: may read and write everything.
    public static let owner = Principal(kind: .owner, name: "")
    /// An MCP client.
    public static func mcp(_ name: String = "default") -> Principal { Principal(kind: .mcp, name: name) }
    /// An OpenClaw gateway.
    public static func gateway(_ name: String = "default") -> Principal { Principal(kind: .gateway, name: name) }
    /// A paired device by client id.
    public static func device(_ id: String) -> Principal { Principal(kind: .device, name: id) }
    /// Another person of the household, by their id (`person:alex-martin`): a caregiver reading what was shared.
    public static func person(_ id: String) -> Principal { Principal(kind: .person, name: id) }
    /// Every paired device: the grants a device has unless it was given its own.
    public static let allDevices = Principal(kind: .device, name: "*")

    /// `owner`, or `kind:name`.
    public var id: String { kind == .owner ? "owner" : "\(kind.rawValue):\(name)" }
    public var description: String { id }

    /// Reads `owner`, `kind` (its default name) or `kind:name`.
    public init(parsing text: String) throws(HealthError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let kind = Kind(rawValue: String(parts[0]).lowercased()) else {
            throw HealthError(.invalidArgument,
                              "unknown principal '\(text)'; write owner, mcp[:NAME], gateway[:NAME], device:ID (device:* for every paired device), ingest:NAME, app:ID or person:ID")
        }
        var name = parts.count > 1 ? String(parts[1]) : ""
        if name.isEmpty, kind == .mcp || kind == .gateway { name = "default" }
        guard kind == .owner || !name.isEmpty else {
            throw HealthError(.invalidArgument, "\(kind.rawValue) needs a name: \(kind.rawValue):NAME")
        }
        guard name.utf8.count <= 128, !name.contains(where: { $0.isNewline }) else {
            throw HealthError(.invalidArgument, "a principal's name is at most 128 characters on one line")
        }
        self.init(kind: kind, name: name)
    }

    /// What a principal of this kind may do when nobody granted it anything: the owner everything, MCP clients and
    /// gateways read everything (an agent the person installed), paired devices what `device:*` was granted,
    /// ingest tokens, apps and the household's other people nothing.
    package var defaultGrants: AccessGrants {
        switch kind {
        case .owner: return AccessGrants(read: .all, write: .all)
        case .mcp, .gateway: return AccessGrants(read: .all, write: .none)
        case .device, .ingest, .app, .person: return AccessGrants(read: .none, write: .none)
        }
    }

    /// Whether read denial is visible to this principal. HealthKit's rule is that an app cannot tell "denied" from
    /// "nothing recorded", and that holds for agents and apps; a paired device is told which types the owner did not
    /// share (the local-network export protocol answers `no_permission` with the types).
    public var seesReadDenial: Bool { kind == .device }
}
