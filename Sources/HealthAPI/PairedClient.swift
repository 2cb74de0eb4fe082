import Foundation
import HealthModel

/// A device or app paired with the paired API: what the owner sees in `healthbridge clients`, the console's Access
/// page and the audit. Its token is never part of it.
///
/// ```swift
/// let clients = try await service.pairedClients()
/// clients.filter { !$0.isRevoked }.map(\.principal)   // [app:org.example.diet, device:4f1c…]
/// ```
public struct PairedClient: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: Date
    public var lastSeenAt: Date?
    public var revokedAt: Date?
    /// Set when paired with a code issued for an app (HealthBridgeKit; `healthbridge pair-code --app ID`).
    public var appId: String?
    /// How audit entries name this client: a hash of its id, never the id itself (the access store computes it).
    public var auditId: String

    public init(id: String, name: String, createdAt: Date, lastSeenAt: Date? = nil, revokedAt: Date? = nil,
                appId: String? = nil, auditId: String) {
        self.id = id; self.name = name; self.createdAt = createdAt; self.lastSeenAt = lastSeenAt
        self.revokedAt = revokedAt; self.appId = appId; self.auditId = auditId
    }

    /// The principal this client acts as: `app:<appId>` when it redeemed a code issued for that app, else
    /// `device:<clientId>`.
    public var principal: Principal {
        appId.map { Principal(kind: .app, name: $0) } ?? .device(id)
    }

    public var isRevoked: Bool { revokedAt != nil }
}
