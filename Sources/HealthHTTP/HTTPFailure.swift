import Foundation
import HealthModel
import HTTPTypes
import Hummingbird
import NIOCore

/// A refusal at the HTTP edge: a ``HealthError`` with the status to answer (the table's unless the edge knows a
/// better one, e.g. 414 for a long request target), the seconds for `Retry-After`, and the reason the audit log
/// records (`RATE_LIMITED`, `AUTH_BACKOFF`; the error's code when nil). Thrown by the shared middlewares; each
/// adapter renders it in its own body shape, or lets it render itself as `{"error": {"code", "message"}}`.
///
/// ```swift
/// throw HTTPFailure(.tooManyRequests, .rateLimited, "more than 20 requests per second", retryAfter: 1)
/// ```
public struct HTTPFailure: Error, Sendable, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var error: HealthError
    public var retryAfter: Int?
    public var auditReason: String?

    public init(_ status: HTTPResponse.Status, _ code: HealthError.Code, _ message: String, retryAfter: Int? = nil,
                auditReason: String? = nil) {
        self.status = status
        self.error = HealthError(code, message)
        self.retryAfter = retryAfter
        self.auditReason = auditReason
    }

    /// The error with the status of the one table.
    public init(_ error: HealthError, retryAfter: Int? = nil) {
        self.status = error.code.httpStatus
        self.error = error
        self.retryAfter = retryAfter
    }

    /// The headers every refusal carries: `Retry-After` when set, and the bearer challenge on 401.
    public func apply(to headers: inout HTTPFields) {
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"healthbridge\"" }
    }

    /// `{"error": {"code", "message"}}` as JSON, with ``apply(to:)``'s headers.
    public func response() -> Response {
        let body = (try? JSONEncoder().encode(error.envelope)) ?? Data()
        var response = Response.json(status, body)
        apply(to: &response.headers)
        return response
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response()
    }
}

extension Response {
    /// A JSON answer (`application/json; charset=utf-8`) of `bytes`.
    ///
    /// ```swift
    /// Response.json(.ok, try JSONEncoder().encode(result))
    /// ```
    public static func json(_ status: HTTPResponse.Status, _ bytes: some Sequence<UInt8>) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
