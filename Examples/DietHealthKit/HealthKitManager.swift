// The diet app's HealthKit code, seed diet-app-healthkit-spec.md §2 (HealthKitPermissions, HealthKitManager), verbatim except where noted
// (scripts/seed-verbatim.py counts the lines kept).
import Foundation
import HealthKitBridge

// MARK: - HealthKit Permissions
struct HealthKitPermissions {
    // Types we read FROM HealthKit
    static let readTypes: Set<HKObjectType> = [
        HKQuantityType(.bodyMass),
        HKQuantityType(.bodyFatPercentage),
        HKQuantityType(.leanBodyMass),
        HKQuantityType(.activeEnergyBurned),
        HKQuantityType(.basalEnergyBurned),
        HKQuantityType(.stepCount),
        HKQuantityType(.dietaryWater),
        HKWorkoutType.workoutType()
    ]

    // Types we write TO HealthKit
    static let writeTypes: Set<HKSampleType> = [
        HKQuantityType(.dietaryEnergyConsumed),
        HKQuantityType(.dietaryProtein),
        HKQuantityType(.dietaryCarbohydrates),
        HKQuantityType(.dietaryFatTotal),
        HKQuantityType(.dietaryFiber),
        HKQuantityType(.dietarySugar),
        HKQuantityType(.dietarySodium),
        HKQuantityType(.dietaryCholesterol),
        HKQuantityType(.dietaryFatSaturated),
        HKQuantityType(.dietaryWater),
        HKQuantityType(.bodyMass)
    ]

    // Minimal set for onboarding (expand later)
    static let onboardingReadTypes: Set<HKObjectType> = [
        HKQuantityType(.bodyMass),
        HKQuantityType(.activeEnergyBurned),
        HKWorkoutType.workoutType()
    ]

    static let onboardingWriteTypes: Set<HKSampleType> = [
        HKQuantityType(.dietaryEnergyConsumed),
        HKQuantityType(.dietaryProtein),
        HKQuantityType(.dietaryCarbohydrates),
        HKQuantityType(.dietaryFatTotal)
    ]
}

// MARK: - HealthKit Manager
final class HealthKitManager: ObservableObject {
    let healthStore = HKHealthStore()  // not private: the seed's extensions (§3–§5) are files of their own here

    @Published var authorizationStatus: AuthorizationStatus = .notDetermined
    @Published var lastSyncDate: Date?

    enum AuthorizationStatus {
        case notDetermined
        case authorized
        case denied
        case unavailable
    }

    // MARK: - Availability Check

    var isAvailable: Bool {
        HKHealthStore.isHealthDataAvailable()
    }

    // MARK: - Authorization

    func requestOnboardingAuthorization() async throws {
        guard isAvailable else {
            authorizationStatus = .unavailable
            throw HealthKitError.unavailable
        }

        try await healthStore.requestAuthorization(
            toShare: HealthKitPermissions.onboardingWriteTypes,
            read: HealthKitPermissions.onboardingReadTypes
        )

        await updateAuthorizationStatus()
    }

    func requestFullAuthorization() async throws {
        guard isAvailable else {
            authorizationStatus = .unavailable
            throw HealthKitError.unavailable
        }

        try await healthStore.requestAuthorization(
            toShare: HealthKitPermissions.writeTypes,
            read: HealthKitPermissions.readTypes
        )

        await updateAuthorizationStatus()
    }

    @MainActor
    private func updateAuthorizationStatus() {
        // Check a representative type
        let status = healthStore.authorizationStatus(for: HKQuantityType(.dietaryEnergyConsumed))

        switch status {
        case .notDetermined:
            authorizationStatus = .notDetermined
        case .sharingAuthorized:
            authorizationStatus = .authorized
        case .sharingDenied:
            authorizationStatus = .denied
        @unknown default:
            authorizationStatus = .notDetermined
        }
    }

    // MARK: - Error Types

    enum HealthKitError: LocalizedError {
        case unavailable
        case notAuthorized
        case queryFailed(Error)
        case saveFailed(Error)

        var errorDescription: String? {
            switch self {
            case .unavailable:
                return "HealthKit is not available on this device"
            case .notAuthorized:
                return "HealthKit access has not been authorized"
            case .queryFailed(let error):
                return "Failed to query HealthKit: \(error.localizedDescription)"
            case .saveFailed(let error):
                return "Failed to save to HealthKit: \(error.localizedDescription)"
            }
        }
    }
}
