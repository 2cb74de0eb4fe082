import Foundation
import HealthModel

// HealthKit's authorization: ask for types, the owner decides, the app learns the write status only.
extension HealthBridgeManager {
    /// Files an access request for the types to write and read, HealthKit's `requestAuthorization(toShare:read:)`.
    /// The owner approves or denies it on the server (`healthbridge access`). Types already decided are not asked
    /// again. Returns at once (the owner decides later); ``authorizationStatus(for:)`` tells the outcome for writes.
    ///
    /// ```swift
    /// try await manager.requestAuthorization(toShare: [.dietaryEnergyConsumed, .dietaryProtein], read: [.bodyMass])
    /// ```
    @discardableResult
    public func requestAuthorization(toShare write: Set<HealthDataType>, read: Set<HealthDataType>,
                                     reasons: [HealthDataType: String] = HealthBridgePermissions.reasons)
        async throws(HealthBridgeError) -> AccessRequestFiling
    {
        let asked = write.union(read)
        let body = AccessRequestInput(read: read.map(\.rawValue).sorted(), write: write.map(\.rawValue).sorted(),
                        reasons: Dictionary(uniqueKeysWithValues: reasons.filter { asked.contains($0.key) }
                            .map { ($0.key.rawValue, $0.value) }))
        do {
            return try await call("POST", "access/requests", body: Array(try JSONEncoder.wire.encode(body)),
                                  as: AccessRequestFiling.self)
        } catch {
            throw HealthBridgeError.wrap(error, .query)
        }
    }

    /// The seed's onboarding subset (``HealthBridgePermissions/onboardingWriteTypes`` and read types).
    ///
    /// ```swift
    /// try await manager.requestOnboardingAuthorization()
    /// ```
    @discardableResult
    public func requestOnboardingAuthorization() async throws(HealthBridgeError) -> AccessRequestFiling {
        try await requestAuthorization(toShare: HealthBridgePermissions.onboardingWriteTypes,
                                       read: HealthBridgePermissions.onboardingReadTypes)
    }

    /// The seed's full set.
    ///
    /// ```swift
    /// try await manager.requestFullAuthorization()
    /// ```
    @discardableResult
    public func requestFullAuthorization() async throws(HealthBridgeError) -> AccessRequestFiling {
        try await requestAuthorization(toShare: HealthBridgePermissions.writeTypes, read: HealthBridgePermissions.readTypes)
    }

    /// Whether this app may write `type`: `notDetermined` until the owner decides, then `sharingAuthorized` or
    /// `sharingDenied` (HealthKit's `authorizationStatus(for:)`). Reads are never reported.
    ///
    /// ```swift
    /// if try await manager.authorizationStatus(for: .dietaryEnergyConsumed) == .sharingAuthorized { … }
    /// ```
    public func authorizationStatus(for type: HealthDataType) async throws(HealthBridgeError) -> AuthorizationStatus {
        try await authorizationStatuses(for: [type])[type] ?? .notDetermined
    }

    /// The write status of several types at once.
    ///
    /// ```swift
    /// let statuses = try await manager.authorizationStatuses(for: HealthBridgePermissions.writeTypes)
    /// ```
    public func authorizationStatuses(for types: Set<HealthDataType>)
        async throws(HealthBridgeError) -> [HealthDataType: AuthorizationStatus]
    {
        let answer = try await get("access/status", query: [("types", types.map(\.rawValue).sorted().joined(separator: ","))],
                                   as: AuthorizationStatusResult.self)
        return Dictionary(uniqueKeysWithValues: answer.write.map { (HealthDataType($0.key), $0.value) })
    }
}
