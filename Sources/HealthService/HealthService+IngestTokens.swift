import Foundation
import HealthAPI
import HealthAccess
import HealthModel

/// A push token just created: shown once (only its hash is kept), acting as `ingest:NAME`.
public struct CreatedIngestToken: Sendable, Hashable {
    public var name: String
    public var token: String
    public var principal: Principal
}

/// The push tokens of the Health Auto Export and Health Connect receivers (owner only).
extension HealthService {
    /// Creates the push token `name` and grants its principal `ingest:NAME` the writes `allowWrite` (what the
    /// pushing app can send) and no read (owner only). A revoked token's name may be used again; an active one may not.
    ///
    /// ```swift
    /// let created = try await service.createIngestToken(name: "iphone", allowWrite: HAEMetricCatalog.writableTypes)
    /// print(created.token)   // shown once
    /// ```
    public func createIngestToken(name: String, allowWrite: [String]) async throws -> CreatedIngestToken {
        let access = try ownerAccess("create ingest tokens")
        try AccessStore.checkIngestName(name)
        let principal = Principal(kind: .ingest, name: name)
        // The writes are checked before the token exists: a bad type name creates nothing.
        _ = try Self.grantTypes(allowWrite)
        let token = try access.createIngestToken(name: name)
        try await updateGrants(GrantsUpdate(principal: principal.id, allowWrite: allowWrite))
        return CreatedIngestToken(name: name, token: token, principal: principal)
    }

    /// The push tokens, revoked ones too, by name (owner only).
    public func ingestTokens() async throws -> [AccessStore.IngestToken] {
        try ownerAccess("list ingest tokens").ingestTokens()
    }

    /// Revokes the push token `name` (owner only): its next push is refused. Nil when there is none.
    ///
    /// ```swift
    /// guard try await service.revokeIngestToken(name: "iphone") != nil else { … }
    /// ```
    @discardableResult
    public func revokeIngestToken(name: String) async throws -> AccessStore.IngestToken? {
        try ownerAccess("revoke ingest tokens").revokeIngestToken(name: name)
    }
}
