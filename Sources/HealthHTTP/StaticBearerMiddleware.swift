import Foundation
import HealthSupport
import HTTPTypes
import Hummingbird

/// Requires `Authorization: Bearer <token>` with one configured token (compared in constant time); any other
/// request gets the adapter's own refusal (its body shape, with `WWW-Authenticate: Bearer realm="healthbridge"`
/// added). For a listener with a single shared secret, such as MCP over HTTP.
///
/// ```swift
/// router.group().add(middleware: StaticBearerMiddleware<BasicRequestContext>(token: secret) {
///     Response(status: .unauthorized)
/// })
/// ```
public struct StaticBearerMiddleware<Context: RequestContext>: RouterMiddleware {
    public let token: String
    public let refusal: @Sendable () -> Response

    public init(token: String, refusal: @escaping @Sendable () -> Response) {
        self.token = token
        self.refusal = refusal
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let given = BearerToken.parse(request.headers[.authorization]), ConstantTime.equals(given, token) else {
            var response = refusal()
            response.headers[.wwwAuthenticate] = "Bearer realm=\"healthbridge\""
            return response
        }
        return try await next(request, context)
    }
}
