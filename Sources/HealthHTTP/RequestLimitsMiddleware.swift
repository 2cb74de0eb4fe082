import HealthModel
import HTTPTypes
import Hummingbird

/// Refuses, before anything reads the body, a request target longer than `maxURILength` (414), a `Content-Length`
/// that is not a number (400) and one above the body limit of the request's path (413). The body limit and the
/// words of its refusal come from `bodyLimit` (a receiver path may take 64 MB where the rest takes 64 KB). Bodies
/// sent without a length are held to the same limit where they are collected.
///
/// ```swift
/// router.add(middleware: RequestLimitsMiddleware<MyContext>(maxURILength: 8192) { _ in
///     .init(bytes: 65_536, message: "the request body is larger than 64 KB")
/// })
/// ```
public struct RequestLimitsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The largest body a path takes, and what the refusal says.
    public struct BodyLimit: Sendable {
        public var bytes: Int
        public var message: String
        public init(bytes: Int, message: String) { self.bytes = bytes; self.message = message }
    }

    public let maxURILength: Int
    public let bodyLimit: @Sendable (_ path: String) -> BodyLimit

    public init(maxURILength: Int, bodyLimit: @escaping @Sendable (_ path: String) -> BodyLimit) {
        self.maxURILength = maxURILength
        self.bodyLimit = bodyLimit
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.string.utf8.count > maxURILength {
            throw HTTPFailure(.uriTooLong, .payloadTooLarge, "the request target is longer than \(maxURILength) bytes")
        }
        if let length = request.headers[.contentLength] {
            guard let value = Int(length), value >= 0 else {
                throw HTTPFailure(.badRequest, .invalidArgument, "invalid Content-Length")
            }
            let limit = bodyLimit(request.uri.path)
            if value > limit.bytes { throw HTTPFailure(.contentTooLarge, .payloadTooLarge, limit.message) }
        }
        return try await next(request, context)
    }
}
