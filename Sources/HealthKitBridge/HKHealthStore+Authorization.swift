import Foundation
import HealthAPI
import HealthBridgeKit

/// Whether asking again would show the person anything (HealthKit's `HKAuthorizationRequestStatus`).
public enum HKAuthorizationRequestStatus: Int, Sendable {
    case unknown = 0
    case shouldRequest = 1
    case unnecessary = 2
}

// Authorization (HealthKit's `requestAuthorization(toShare:read:)` and `authorizationStatus(for:)`): the request
// goes to the owner, who approves or denies it on the server; the write status is cached in the app's container so
// that `authorizationStatus(for:)` answers at once, as HealthKit's does, and refreshed in the background.
extension HKHealthStore {
    /// Asks the owner for access to write `typesToShare` and read `typesToRead`. Returns once the request is filed
    /// (the owner decides on the server); ``authorizationStatus(for:)`` then tells the write status. As in HealthKit,
    /// a correlation type cannot be asked for: a meal is authorized through its nutrients.
    ///
    /// ```swift
    /// try await store.requestAuthorization(toShare: [HKQuantityType(.dietaryWater)], read: [HKQuantityType(.bodyMass)])
    /// ```
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?) async throws {
        let connection = try connection()
        let share = typesToShare ?? [], read = typesToRead ?? []
        if let correlation = share.first(where: { $0 is HKCorrelationType }) ?? read.first(where: { $0 is HKCorrelationType }) {
            throw HKError(.errorInvalidArgument,
                          "Authorization to share or read \(correlation.identifier) is disallowed: ask for the types it contains")
        }
        guard !share.isEmpty || !read.isEmpty else {
            throw HKError(.errorInvalidArgument, "give at least one type to share or read")
        }
        let write = Set(share.map { HealthDataType($0.serverName) })
        do {
            try await connection.manager.requestAuthorization(toShare: write, read: Set(read.map { HealthDataType($0.serverName) }))
        } catch {
            throw HKError.from(error)
        }
        if !write.isEmpty { try await connection.refreshAuthorization(write) }
    }

    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
                                     completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await requestAuthorization(toShare: typesToShare, read: typesToRead)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Whether the app may write `type`, at once, from the kit's cache (refreshed from the server in the background
    /// when older than two seconds). Reads are never reported, as in HealthKit.
    ///
    /// ```swift
    /// if store.authorizationStatus(for: HKQuantityType(.dietaryWater)) == .sharingAuthorized { … }
    /// ```
    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
        guard let connection = try? connection() else { return .notDetermined }
        let status = connection.cachedStatus(type.serverName) ?? .notDetermined
        let stale = connection.authorizationRefreshed.withLock { last in
            guard let at = last, ContinuousClock.now - at < .seconds(2) else {
                last = .now   // one refresh at a time
                return true
            }
            return false
        }
        if stale {
            let known = connection.authorization.withLock { Set($0.keys) }.union([type.serverName])
            Task { try? await connection.refreshAuthorization(Set(known.map { HealthDataType($0) })) }
        }
        return status
    }

    /// Whether asking for these types would show the owner anything new.
    public func getRequestStatusForAuthorization(toShare typesToShare: Set<HKSampleType>,
                                                 read typesToRead: Set<HKObjectType>) async throws -> HKAuthorizationRequestStatus {
        let connection = try connection()
        guard !typesToShare.isEmpty else { return .unknown }
        try await connection.refreshAuthorization(Set(typesToShare.map { HealthDataType($0.serverName) }))
        let undecided = typesToShare.contains { connection.cachedStatus($0.serverName) ?? .notDetermined == .notDetermined }
        return undecided ? .shouldRequest : .unnecessary
    }
}

extension HealthKitConnection {
    /// Asks the server for the write status of `types` and caches it.
    func refreshAuthorization(_ types: Set<HealthDataType>) async throws(HKError) {
        let answer: [HealthDataType: AuthorizationStatus]
        do {
            answer = try await manager.authorizationStatuses(for: types)
        } catch {
            throw HKError.from(error)
        }
        remember(Dictionary(uniqueKeysWithValues: answer.map { type, status in
            (type.rawValue, status == .sharingAuthorized ? .sharingAuthorized : status == .sharingDenied ? .sharingDenied : .notDetermined)
        }))
    }
}
