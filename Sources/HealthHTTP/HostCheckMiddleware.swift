import Foundation
import HealthSupport
import HTTPTypes
import Hummingbird

/// DNS-rebinding protection: the request's host (HTTP/1.1 `Host`, which Hummingbird keeps as the request head's
/// authority) must be one `allows` accepts; any other request, or one without a host, gets the adapter's own refusal
/// (403 in its body shape) before anything else runs. ``loopback(refusal:)`` accepts any loopback name (MCP over
/// HTTP); the console accepts only its own address and port.
///
/// ```swift
/// router.group().add(middleware: HostCheckMiddleware<BasicRequestContext>.loopback { _ in Response(status: .forbidden) })
/// ```
public struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    public let allows: @Sendable (_ authority: String) -> Bool
    public let refusal: @Sendable (Request) -> Response

    public init(allows: @escaping @Sendable (_ authority: String) -> Bool,
                refusal: @escaping @Sendable (Request) -> Response) {
        self.allows = allows
        self.refusal = refusal
    }

    /// Any loopback host (``Loopback``): `127.0.0.0/8`, `localhost`, `[::1]`, with any port.
    public static func loopback(refusal: @escaping @Sendable (Request) -> Response) -> Self {
        Self(allows: { Loopback.isLoopback(hostName(fromAuthority: $0)) }, refusal: refusal)
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, allows(authority) else { return refusal(request) }
        return try await next(request, context)
    }

    /// `127.0.0.1` from `127.0.0.1:8080`, `::1` from `[::1]:8080`, `localhost` from `localhost`.
    public static func hostName(fromAuthority authority: String) -> String {
        let text = authority.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            return String(text[..<colon])
        }
        return text
    }
}
