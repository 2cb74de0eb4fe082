import Foundation
import HealthAccess
import HealthAPI
import HealthModel

/// A one-time pairing code the owner issued: shown once, only its hash is kept.
public struct PairingCode: Sendable, Hashable {
    /// `XXXX-XXXX`.
    public var code: String
    public var expires: Date
    /// The app the code was issued for: the client redeeming it acts as `app:<appId>`.
    public var appId: String?
}

/// Pairing: the owner issues one-time codes (optionally for an app), a client redeems one and gets its token, the
/// owner lists and revokes paired clients.
extension HealthService {
    /// Issues a one-time pairing code valid for `lifetime` seconds (owner only). With `appId` the client redeeming
    /// it acts as `app:<appId>`: the owner confirmed that app by issuing the code.
    ///
    /// ```swift
    /// let card = try await service.issuePairingCode(appId: "org.example.dietsync")
    /// print(card.code)   // "7KQM-3XWZ", valid 5 minutes
    /// ```
    public func issuePairingCode(lifetime: TimeInterval = 300, appId: String? = nil) async throws -> PairingCode {
        let access = try ownerAccess("issue pairing codes")
        let (code, expires) = try access.issuePairingCode(lifetime: lifetime, appId: appId)
        return PairingCode(code: code, expires: expires, appId: appId)
    }

    /// Redeems a pairing code for a new client named `clientName`, sent from `address` (wrong codes are counted per
    /// address). Any principal may ask: the code is the credential. The client's app id is the one the code was
    /// issued for; `appId` is only checked against it.
    ///
    /// ```swift
    /// if case .paired(let token, let clientID) = try await service.pair(code: "7KQM-3XWZ", clientName: "Anna's iPhone") { … }
    /// ```
    public func pair(code: String, clientName: String, appId: String? = nil,
                     address: String = "unknown") async throws -> AccessStore.Redemption {
        try await accessStore().redeem(code: code, clientName: clientName, appId: appId, address: address)
    }

    /// The paired clients, revoked ones too, oldest first (owner only).
    ///
    /// ```swift
    /// for client in try await service.pairedClients() where !client.isRevoked { print(client.id, client.principal) }
    /// ```
    public func pairedClients() async throws -> [AccessStore.Client] {
        try ownerAccess("list paired clients").clients()
    }

    /// One paired client by id, nil if none (owner only).
    public func pairedClient(id: String) async throws -> AccessStore.Client? {
        try await ownerAccess("read paired clients").client(id: id)
    }

    /// The clients acting as `app:<appId>` and not revoked (owner only): a second code for an app adds a client to
    /// it, and the owner is told so.
    public func pairedClients(ofApp appId: String) async throws -> [AccessStore.Client] {
        try await pairedClients().filter { $0.appId == appId && !$0.isRevoked }
    }

    /// Revokes a paired client by id or a unique prefix of 4 characters or more (owner only): its token fails from
    /// its next request; the revocation is audited. Nil when no client matches.
    ///
    /// ```swift
    /// try await service.revokePairedClient("3f2a")?.revokedAt
    /// ```
    @discardableResult
    public func revokePairedClient(_ id: String) async throws -> AccessStore.Client? {
        try ownerAccess("revoke paired clients").revoke(id)
    }
}
