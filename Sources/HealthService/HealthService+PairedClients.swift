import Foundation
import HealthAccess
import HealthAPI
import HealthModel

/// A paired client's request, authenticated: the client, the sharing settings read with its token in the same
/// transaction, and the service acting for the client's principal with that sharing state (paused sharing refuses
/// its reads and writes with `HEALTH_SHARING_PAUSED`).
public struct PairedClientSession: Sendable {
    public var client: AccessStore.Client
    public var sharing: AccessStore.Sharing
    /// Acting as ``AccessStore/Client/principal`` (`app:<appId>` or `device:<clientId>`) through this client.
    public var service: HealthService
}

/// What a bearer token on the paired API is.
public enum PairedClientAuthentication: Sendable {
    /// No client holds this token.
    case unknownToken
    /// The client holding it was revoked (its audit id may still be logged).
    case revoked(AccessStore.Client)
    case authenticated(PairedClientSession)
}

extension HealthService {
    /// The per-request lookup of the paired API: the client holding `token` and the sharing settings, in one read,
    /// and the service acting for that client's principal. Any service may ask (the token is the credential); the
    /// answer's service is the client's, never the caller's.
    ///
    /// ```swift
    /// switch try await service.authenticatePairedClient(token: bearer) {
    /// case .authenticated(let session):
    ///     let page = try await session.service.samples(ofTypes: request)   // 423 while sharing is paused
    /// case .revoked, .unknownToken:
    ///     throw HealthError(.unauthenticated, "pair again")
    /// }
    /// ```
    public func authenticatePairedClient(token: String) async throws -> PairedClientAuthentication {
        let snapshot = try await accessStore().snapshot(tokenHash: AccessStore.tokenHash(token))
        guard let client = snapshot.client else { return .unknownToken }
        if client.isRevoked { return .revoked(client) }
        var service = acting(as: client.principal, client: client.id)
        service.pairedSharing = snapshot.sharing.state
        return .authenticated(PairedClientSession(client: client, sharing: snapshot.sharing, service: service))
    }

    /// The principal of the Health Auto Export / Health Connect push token `token` (`ingest:NAME`), noting its use;
    /// nil for an unknown or revoked token.
    ///
    /// ```swift
    /// guard let pusher = try await service.ingestPrincipal(token: bearer) else { throw HealthError(.unauthenticated, "…") }
    /// let report = try await service.acting(as: pusher).ingest(try HealthConnectPayloadReader().batch(body))
    /// ```
    public func ingestPrincipal(token: String) async throws -> Principal? {
        try await accessStore().ingestTokenName(tokenHash: AccessStore.tokenHash(token))
            .map { Principal(kind: .ingest, name: $0) }
    }
}
