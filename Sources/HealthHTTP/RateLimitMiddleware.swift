import HealthModel
import HTTPTypes
import Hummingbird

/// Per-principal request rate: a token bucket (``RateLimiter``) per key that `key` reads from the context (the
/// authenticated client, set by the authentication before it); a request without a key passes. Over the rate the
/// answer is 429 with `Retry-After`, audited as `RATE_LIMITED`.
///
/// ```swift
/// group.add(middleware: RateLimitMiddleware(limiter: RateLimiter(rate: 20), message: "more than 20 requests per second") {
///     $0.client?.id
/// })
/// ```
public struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    public let limiter: RateLimiter
    public let message: String
    public let key: @Sendable (Context) -> String?

    public init(limiter: RateLimiter, message: String, key: @escaping @Sendable (Context) -> String?) {
        self.limiter = limiter
        self.message = message
        self.key = key
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        if let key = key(context), case .limited(let retry) = limiter.check(key) {
            throw HTTPFailure(.tooManyRequests, .rateLimited, message, retryAfter: retry, auditReason: "RATE_LIMITED")
        }
        return try await next(request, context)
    }
}
