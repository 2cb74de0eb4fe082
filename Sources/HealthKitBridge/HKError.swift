import Foundation
import HealthBridgeKit

/// HealthKit's errors, with HealthKit's domain and codes (`com.apple.healthkit`).
///
/// ```swift
/// do { try await store.save(sample) }
/// catch let error as HKError where error.code == .errorAuthorizationDenied { … }
/// ```
public struct HKError: Error, CustomNSError, LocalizedError, Equatable, Sendable {
    public enum Code: Int, Sendable {
        case noError = 0
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15
    }

    public let code: Code
    /// What went wrong, in words (never a health value).
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static let errorDomain = "com.apple.healthkit"
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var errorDescription: String? { message }

    public static var errorHealthDataUnavailable: Code { .errorHealthDataUnavailable }
    public static var errorInvalidArgument: Code { .errorInvalidArgument }
    public static var errorAuthorizationDenied: Code { .errorAuthorizationDenied }
    public static var errorDatabaseInaccessible: Code { .errorDatabaseInaccessible }
    public static var errorNoData: Code { .errorNoData }

    /// HealthKit's code for a failure of the kit: not paired → unavailable, refused → authorization denied,
    /// a bad request → invalid argument, a server out of reach → database inaccessible.
    static func from(_ error: any Error) -> HKError {
        if let error = error as? HKError { return error }
        guard let failure = error as? HealthBridgeError else {
            return HKError(.errorDatabaseInaccessible, "HealthBridge could not be reached: \(error)")
        }
        let message = failure.failure.message
        switch failure.code {
        case .notAuthorized?, .unauthenticated?: return HKError(.errorAuthorizationDenied, message)
        case .invalidArgument?, .invalidUnit?, .invalidType?, .invalidRange?, .invalidTimeZone?, .payloadTooLarge?:
            return HKError(.errorInvalidArgument, message)
        default:
            if case .unavailable = failure, !failure.isTransient { return HKError(.errorHealthDataUnavailable, message) }
            return HKError(.errorDatabaseInaccessible, message)
        }
    }
}
