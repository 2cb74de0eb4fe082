import Foundation
import HealthModel
import HTTPTypes
import Hummingbird
import NIOCore

extension HealthError.Code {
    /// The HTTP status of each code: the one table every HTTP interface answers with (the paired API, the console,
    /// MCP over HTTP).
    ///
    /// ```swift
    /// HealthError.Code.sharingPaused.httpStatus   // 423 Locked
    /// ```
    public var httpStatus: HTTPResponse.Status {
        switch self {
        case .invalidType, .invalidRange, .invalidArgument, .invalidUnit, .invalidTimeZone, .noSummary,
             .importMalformed, .importRejected: .badRequest
        case .notAuthorized: .forbidden
        case .unauthenticated: .unauthorized
        case .notFound: .notFound
        case .conflict: .conflict
        case .rateLimited: .tooManyRequests
        case .payloadTooLarge: .contentTooLarge
        case .sharingPaused: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
        case .storeUnavailable: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }
}

/// A ``HealthError`` that reaches Hummingbird answers with its status from ``HealthError/Code/httpStatus`` and the
/// one-vocabulary body `{"error": {"code", "message"}}` (plus `denied_types` when set). Adapters with a body shape
/// of their own (the paired API's `status` and `requestId`) render it themselves.
///
/// ```swift
/// router.get("x") { _, _ -> Response in throw HealthError(.notFound, "no such thing") }   // 404 + JSON body
/// ```
extension HealthError: HTTPResponseError {
    public var status: HTTPResponse.Status { code.httpStatus }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        HTTPFailure(self).response()
    }
}
