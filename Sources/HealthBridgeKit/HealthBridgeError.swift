import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel

/// What went wrong, in the seed's cases (`HealthKitManager.HealthKitError`), each carrying the details: the server's
/// ``HealthError/Code`` when it answered, the HTTP status, and whether trying again later can succeed.
///
/// ```swift
/// do { try await manager.writeWater(250) } catch let error as HealthBridgeError where error.isTransient {
///     // the server is unreachable or busy: a SyncEngine would queue the write
/// }
/// ```
public enum HealthBridgeError: Error, Sendable, LocalizedError, CustomStringConvertible {
    /// Not paired (no credentials), or the server presents another certificate than the paired one.
    case unavailable(HealthBridgeFailure)
    /// The owner did not grant the write (`HEALTH_NOT_AUTHORIZED`), or the pairing was revoked (`HEALTH_UNAUTHENTICATED`).
    case notAuthorized(HealthBridgeFailure)
    case queryFailed(HealthBridgeFailure)
    case saveFailed(HealthBridgeFailure)

    public var failure: HealthBridgeFailure {
        switch self {
        case .unavailable(let f), .notAuthorized(let f), .queryFailed(let f), .saveFailed(let f): f
        }
    }

    /// The server's error code, nil when it did not answer.
    public var code: HealthError.Code? { failure.code }
    /// True when the same request may succeed later (no answer, a timeout, 5xx, 423 paused sharing, 429).
    public var isTransient: Bool { failure.isTransient }

    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .unavailable(let f): "HealthBridge is not available: \(f.message)"
        case .notAuthorized(let f): "HealthBridge access has not been authorized: \(f.message)"
        case .queryFailed(let f): "Failed to query HealthBridge: \(f.message)"
        case .saveFailed(let f): "Failed to save to HealthBridge: \(f.message)"
        }
    }
}

/// The details of a ``HealthBridgeError``.
///
/// ```swift
/// if error.failure.code == .conflict { /* show the conflict */ }
/// ```
public struct HealthBridgeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server's code (`HEALTH_INVALID_ARGUMENT`, `HEALTH_CONFLICT`…), nil when there was no answer.
    public var code: HealthError.Code?
    /// The HTTP status, nil when there was no answer.
    public var status: Int?
    public var message: String
    /// Seconds the server asked to wait (429).
    public var retryAfter: Int?
    public var isTransient: Bool

    public init(code: HealthError.Code? = nil, status: Int? = nil, message: String, retryAfter: Int? = nil,
                isTransient: Bool) {
        self.code = code; self.status = status; self.message = message; self.retryAfter = retryAfter
        self.isTransient = isTransient
    }

    public var description: String { message }

    /// Classifies a client error.
    static func from(_ error: any Error) -> HealthBridgeFailure {
        if let failure = error as? HealthBridgeFailure { return failure }
        if let error = error as? HealthBridgeError { return error.failure }
        guard let error = error as? PairedAPIClientError else {
            return HealthBridgeFailure(message: String(describing: error), isTransient: true)
        }
        switch error {
        case .server(let status, let code, let message, _, let retryAfter):
            let known = HealthError.Code(rawValue: code)
            let transient = status >= 500 || status == 423 || status == 429 || status == 408
            return HealthBridgeFailure(code: known, status: status, message: message, retryAfter: retryAfter,
                                       isTransient: transient)
        case .transport, .timedOut, .connectionClosed, .malformedResponse:
            return HealthBridgeFailure(message: error.description, isTransient: true)
        case .fingerprintMismatch, .responseTooLarge, .notPaired, .invalidArgument:
            return HealthBridgeFailure(message: error.description, isTransient: false)
        }
    }
}

extension HealthBridgeError {
    enum Operation { case query, save }

    /// The error of a failed call: not paired and a certificate mismatch are `unavailable`, a refused grant or a
    /// revoked pairing `notAuthorized`, anything else the operation's failure.
    static func wrap(_ error: any Error, _ operation: Operation) -> HealthBridgeError {
        if let error = error as? HealthBridgeError { return error }
        let failure = HealthBridgeFailure.from(error)
        if let client = error as? PairedAPIClientError {
            switch client {
            case .notPaired, .fingerprintMismatch: return .unavailable(failure)
            default: break
            }
        }
        if failure.code == .notAuthorized || failure.code == .unauthenticated { return .notAuthorized(failure) }
        return operation == .query ? .queryFailed(failure) : .saveFailed(failure)
    }
}
