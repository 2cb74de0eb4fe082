import Foundation
import HealthHTTP
import HealthModel
import HealthSupport
import Hummingbird

/// What the MCP endpoint's authorization check decided for one request.
public enum MCPAuthorization: Sendable, Equatable {
    /// Go on, acting for `principal` (nil: the endpoint's own principal, `mcp:default`).
    case allow(Principal?)
    /// Answer `status` (401) with `WWW-Authenticate` (RFC 6750 / RFC 9728: `Bearer resource_metadata="…"`).
    case refuse(status: Int, wwwAuthenticate: String?, message: String)
}

/// Decides who an MCP request acts for from its bearer token (nil when it sent none). `serve` plugs the OAuth
/// authorization server's check in (``HealthMCPHTTP/Options/authorizer``); without one the endpoint keeps its static
/// bearer token.
///
/// ```swift
/// struct Everyone: MCPRequestAuthorizer {
///     func authorize(bearer: String?) async -> MCPAuthorization { .allow(nil) }
/// }
/// ```
public protocol MCPRequestAuthorizer: Sendable {
    func authorize(bearer: String?) async -> MCPAuthorization
}

extension HealthMCPHTTP {
    /// The principal the current MCP request acts for, set by the authorization check around the request's handling
    /// (nil: the endpoint's own toolbox principal). A session keeps the principal it was opened for.
    @TaskLocal public static var requestPrincipal: Principal?

    /// `toolbox`, acting for the current request's principal when the authorization check named one.
    ///
    /// ```swift
    /// let server = await HealthMCPServer.make(toolbox: HealthMCPHTTP.toolbox(for: toolbox))
    /// ```
    public static func toolbox(for toolbox: HealthToolbox) -> HealthToolbox {
        guard let principal = requestPrincipal else { return toolbox }
        return HealthToolbox(service: toolbox.service, principal: principal, maxReplyBytes: toolbox.maxReplyBytes,
                             logger: toolbox.logger)
    }
}

/// Runs the request under the principal its authorizer names, or answers the refusal in JSON-RPC's shape.
struct MCPAuthorizationMiddleware<Context: RequestContext>: RouterMiddleware {
    let authorizer: any MCPRequestAuthorizer

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        switch await authorizer.authorize(bearer: BearerToken.parse(request.headers[.authorization])) {
        case .allow(let principal):
            return try await HealthMCPHTTP.$requestPrincipal.withValue(principal) { try await next(request, context) }
        case .refuse(let status, let challenge, let message):
            var fields = ["Content-Type": "application/json", "Cache-Control": "no-store"]
            if let challenge { fields["WWW-Authenticate"] = challenge }
            return Response(status: .init(code: status), headers: HealthMCPHTTP.headers(fields),
                            body: HealthMCPHTTP.body(HealthMCPHTTP.jsonRPCError(-32001, message)))
        }
    }
}
