import Foundation
import HealthAPI
import HealthAccess
import HealthModel
import HealthStore
import Logging

/// The service and its access state: pairing codes, paired clients, sharing, ingest tokens, console keys and the
/// audit log live in an ``AccessStore`` (`export.sqlite`) that the service owns; the use cases over it are methods of
/// the service acting for a principal (most are the owner's alone). Expiries (codes, keys) and audit times are
/// taken on the wall clock, not on the service's injected ``clock``: they are shared with other processes.
extension HealthService {
    /// A service whose home zone is the store's setting, with the access state `access`: its access use cases act on
    /// it, and its writes, deletes and consent changes are recorded in its audit log.
    ///
    /// ```swift
    /// let home = try HealthBridgeHome.resolve()
    /// let service = try await HealthService.open(store: try SQLiteHealthStore(location: .file(home.storeURL)),
    ///                                            access: try AccessStore.open(home: home.directory))
    /// let code = try await service.issuePairingCode()          // the owner pairs a phone
    ///
    /// // In tests: everything in memory.
    /// let test = try await HealthService.open(store: SQLiteHealthStore(location: .inMemory), access: try AccessStore.inMemory())
    /// ```
    public static func open(store: any HealthStore, access: AccessStore, timeZone: TimeZone? = nil,
                            clock: @escaping @Sendable () -> Date = { Date() },
                            logger: Logger = Logger(label: "healthbridge.audit")) async throws -> HealthService {
        try await open(store: store, timeZone: timeZone, clock: clock).withAccess(access, logger: logger)
    }

    /// The same service on the access state `access`, recording its writes, deletes and consent changes in its
    /// audit log.
    ///
    /// ```swift
    /// let service = try await HealthService.open(store: store).withAccess(try AccessStore.open(home: home))
    /// ```
    public func withAccess(_ access: AccessStore, logger: Logger = Logger(label: "healthbridge.audit")) -> HealthService {
        var copy = self
        copy.access = access
        copy.pairedSharing = nil
        copy.auditor = AccessAuditor(access: access, logger: logger)
        return copy
    }

    /// The access state, or `HEALTH_STORE_UNAVAILABLE` for a service opened without one.
    func accessStore() throws(HealthError) -> AccessStore {
        guard let access else {
            throw HealthError(.storeUnavailable, "this service has no access state (open it with an access store)")
        }
        return access
    }

    /// The owner-only access use cases: `HEALTH_NOT_AUTHORIZED` for anyone else, then the access state.
    func ownerAccess(_ action: String) throws(HealthError) -> AccessStore {
        try requireOwner(action)
        return try accessStore()
    }

    /// Paused sharing is the phone being locked for paired devices and apps: they read and write nothing until the
    /// owner resumes. The state is the one read with the request's token when there is one, else the stored one.
    /// Other principals (the owner, MCP, gateways, push tokens) are not affected.
    func requireSharingActive() async throws {
        guard principal.kind == .device || principal.kind == .app else { return }
        let state: SharingState
        if let pairedSharing {
            state = pairedSharing
        } else if let access {
            state = try await access.currentSharing().state
        } else {
            return
        }
        if state == .paused {
            throw HealthError(.sharingPaused, "sharing is paused on the server", hint: .ownerResumesSharing)
        }
    }
}
