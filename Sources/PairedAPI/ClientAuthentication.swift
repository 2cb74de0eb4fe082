import Foundation
import HealthHTTP
import HealthModel
import HealthService
import HealthSupport
import Hummingbird

/// Bearer authentication of a paired client (deny by default): every route added after it, and every request no
/// route answers, needs a valid, unrevoked client token; only the `publicPaths` (pairing, read from the router) are
/// answered without one. An address that keeps failing is answered 429 without a token lookup
/// (``PairedAPIServer/failedAuth``). The client and the sharing settings read with its token go into the context.
///
/// It is a middleware of its own rather than hummingbird-auth's `AuthenticatorMiddleware`: that one treats a failed
/// lookup as "no identity" and leaves the refusal to a later middleware, while the paired API answers each failure
/// differently (no token, unknown, revoked, back-off), charges the address on each, and audits the client of a revoked
/// token; the parsing is ``BearerToken``, shared with MCP over HTTP.
///
/// ```swift
/// router.add(middleware: ClientAuthentication(server: server, publicPaths: ["/api/v1/pair"]))
/// ```
struct ClientAuthentication: RouterMiddleware {
    typealias Context = PairedAPIContext
    let server: PairedAPIServer
    let publicPaths: Set<String>

    func handle(_ request: Request, context: PairedAPIContext,
                next: (Request, PairedAPIContext) async throws -> Response) async throws -> Response {
        guard !publicPaths.contains(request.uri.path) else { return try await next(request, context) }
        var context = context
        let address = context.remoteAddress
        if let retry = server.failedAuth.retryAfter(address) {
            throw HTTPFailure(.tooManyRequests, .rateLimited,
                              "too many failed authentications from this address; wait \(retry) s", retryAfter: retry,
                              auditReason: "AUTH_BACKOFF")
        }
        guard let token = BearerToken.parse(request.headers[.authorization], maxLength: PairedAPIServer.maxTokenLength) else {
            server.failedAuth.charge(address)
            throw HTTPFailure(.unauthorized, .unauthenticated, "pair first: every endpoint needs `Authorization: Bearer <token>`")
        }
        switch try await server.service.authenticatePairedClient(token: token) {
        case .unknownToken:
            server.failedAuth.charge(address)
            throw HTTPFailure(.unauthorized, .unauthenticated, "unknown token; pair again")
        case .revoked(let client):
            context.trace.setClient(client.auditId)
            server.failedAuth.charge(address)
            throw HTTPFailure(.unauthorized, .unauthenticated, "this client was revoked; pair again")
        case .authenticated(let session):
            context.trace.setClient(session.client.auditId)
            server.audit.clientSeen(session.client.id, at: Date())
            context.client = session.client
            context.sharing = session.sharing
        }
        return try await next(request, context)
    }
}

/// Bearer authentication of a push (`POST /api/v1/ingest/…`): an ingest token, never a paired client's, makes the
/// principal `ingest:NAME`. A failure is charged against the address like any token, except a paired client's valid
/// token, which is not a guess.
struct IngestAuthentication: RouterMiddleware {
    typealias Context = PairedAPIContext
    let server: PairedAPIServer

    func handle(_ request: Request, context: PairedAPIContext,
                next: (Request, PairedAPIContext) async throws -> Response) async throws -> Response {
        var context = context
        let address = context.remoteAddress
        if let retry = server.failedAuth.retryAfter(address) {
            throw HTTPFailure(.tooManyRequests, .rateLimited,
                              "too many failed authentications from this address; wait \(retry) s", retryAfter: retry,
                              auditReason: "AUTH_BACKOFF")
        }
        let token = BearerToken.parse(request.headers[.authorization], maxLength: PairedAPIServer.maxTokenLength)
        guard let token, let principal = try await server.service.ingestPrincipal(token: token) else {
            if let token, case .authenticated(let session) = try await server.service.authenticatePairedClient(token: token) {
                context.trace.setClient(session.client.auditId)
            } else {
                server.failedAuth.charge(address)
            }
            throw HTTPFailure(.unauthorized, .unauthenticated,
                              "a valid ingest token is required: `Authorization: Bearer <token>` from `healthbridge ingest-token create NAME` (a paired client's token is not one)")
        }
        context.trace.setClient(principal.id)
        context.ingestName = principal.name
        return try await next(request, context)
    }
}

/// The long body deadline of a push: granted to the connection (``ConnectionGuard``) only once the push has
/// authenticated and passed its rate limit, before its body is read; a request that names the path without a valid
/// ingest token keeps the ordinary deadline and is answered unread.
struct LongRequestGrant: RouterMiddleware {
    typealias Context = PairedAPIContext

    func handle(_ request: Request, context: PairedAPIContext,
                next: (Request, PairedAPIContext) async throws -> Response) async throws -> Response {
        try? await context.channel.triggerUserOutboundEvent(ConnectionGuard.LongRequestGranted()).get()
        return try await next(request, context)
    }
}
