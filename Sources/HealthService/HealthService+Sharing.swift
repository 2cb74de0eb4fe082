import Foundation
import HealthAccess
import HealthAPI
import HealthModel

/// What the paired API shares: whether it shares at all now, the types every paired device may read (the read
/// grants of `device:*`), the device name `status` reports and when data was last exported.
public struct SharingStatus: Sendable, Hashable {
    public var state: SharingState
    /// The read grants of every paired device (`device:*`).
    public var sharedTypes: TypeGrant
    /// The name the owner set (`healthbridge sharing name`); nil: the host name.
    public var deviceName: String?
    public var lastExport: Date?
}

/// Sharing with paired clients (owner only): pause and resume, the shared types, the device name.
extension HealthService {
    /// The sharing state and the shared types (owner only). The shared types of an older version, kept in
    /// `export.sqlite`, are moved into the grants of `device:*` first (once).
    ///
    /// ```swift
    /// let sharing = try await service.sharingStatus()
    /// print(sharing.state, sharing.sharedTypes.summary)   // active stepCount, heartRate
    /// ```
    public func sharingStatus() async throws -> SharingStatus {
        let access = try ownerAccess("read the sharing settings")
        try await adoptSharedTypes(access)
        let sharing = try await access.currentSharing()
        return SharingStatus(state: sharing.state, sharedTypes: try await grants(for: .allDevices).read,
                             deviceName: sharing.deviceName, lastExport: sharing.lastExport)
    }

    /// Pauses or resumes sharing (owner only): while paused, paired devices and apps read and write nothing
    /// (`HEALTH_SHARING_PAUSED`). A change is audited.
    ///
    /// ```swift
    /// try await service.setSharing(.paused)
    /// ```
    public func setSharing(_ state: SharingState) async throws {
        try ownerAccess("pause or resume sharing").setSharingState(state)
    }

    /// Shares types with every paired device and stops sharing others (owner only): the read grants of `device:*`
    /// (`*` in `disable` for every type). Answers the new status.
    ///
    /// ```swift
    /// try await service.shareTypes(enable: ["stepCount", "heartRate"])
    /// ```
    @discardableResult
    public func shareTypes(enable: [String] = [], disable: [String] = []) async throws -> SharingStatus {
        try await adoptSharedTypes(try ownerAccess("change the shared types"))
        if !enable.isEmpty || !disable.isEmpty {
            try await updateGrants(GrantsUpdate(principal: Principal.allDevices.id, allowRead: enable, deny: disable))
        }
        return try await sharingStatus()
    }

    /// Sets the device name `status` reports (owner only); nil goes back to the host name.
    public func setDeviceName(_ name: String?) async throws {
        try ownerAccess("name this device").setDeviceName(name)
    }

    /// The types this principal may read, as a paired client lists them: the stored types it may read and the ones
    /// granted to it without samples yet. Unlike ``types(includingGranted:)`` (which the paired API's `status` asks
    /// while paused, to tell what is shared), a paired device or app is refused with `HEALTH_SHARING_PAUSED` while the
    /// owner has paused sharing.
    ///
    /// ```swift
    /// let listed = try await session.service.sharedTypes()   // GET /api/v1/health/types; 423 while paused
    /// ```
    public func sharedTypes() async throws -> TypesResult {
        try await requireSharingActive()
        return try await types(includingGranted: true)
    }

    /// Moves the shared types of an older version (kept in `export.sqlite`) into the grants of every paired device
    /// (`device:*`), where the service decides what paired clients may read. Runs once: later calls find nothing to
    /// move. The owner's grants, when already set, win.
    func adoptSharedTypes(_ access: AccessStore) async throws {
        let legacy = try await access.currentSharing().types
        guard !legacy.isEmpty else { return }
        if try await listGrants().principals.first(where: { $0.principal == Principal.allDevices.id })?.explicit != true {
            try await updateGrants(GrantsUpdate(principal: Principal.allDevices.id, allowRead: legacy))
        }
        try access.setSharedTypes([])
    }
}
