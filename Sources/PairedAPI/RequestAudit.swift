import HealthAPI
import Foundation
import HealthAccess
import HealthHTTP
import Hummingbird

/// The `api.request` audit entry of every answer (route, status, allowed or denied, the client and the reason the
/// handlers and middlewares found). An answer whose request recorded an entry that must precede it (its data read,
/// its write, its pairing: ``AuditLog/commit(since:)``) leaves only once those entries and its own line are durable;
/// when the audit log cannot be written, it is withheld and replaced by a 503. An answer without data (`status`, a
/// refusal) leaves at once and its line goes with the next group write: one fsync per group, never one per request.
struct RequestAudit: RouterMiddleware {
    typealias Context = PairedAPIContext
    let server: PairedAPIServer

    func handle(_ request: Request, context: PairedAPIContext,
                next: (Request, PairedAPIContext) async throws -> Response) async throws -> Response {
        let mark = server.audit.mark
        var response = try await next(request, context)
        let status = Int(response.status.code)
        let denied = [401, 403, 423, 429].contains(status)
        var route = context.endpointPath ?? "unmatched"
        if route == "NotFound" || route.utf8.count > 100 { route = "unmatched" }
        server.audit.record(AuditEvent(
            event: .apiRequest, requestId: context.requestId, client: context.trace.client, address: context.remoteAddress,
            method: request.method.rawValue.count <= 16 ? request.method.rawValue : "OTHER", route: route, status: status,
            decision: denied ? .denied : .allowed,
            detail: context.trace.detail))
        do {
            try await server.audit.commit(since: mark)
        } catch {
            server.logger.error("cannot write the audit log; withholding the answer", metadata: ["requestId": "\(context.requestId)"])
            response = APIError(.serviceUnavailable, .storeUnavailable,
                                "the audit log cannot be written; try again later").response(requestId: context.requestId)
        }
        return response
    }
}

/// Every error as the paired API's JSON answer (``APIError``), with its reason noted for the audit entry.
struct ErrorAnswers: RouterMiddleware {
    typealias Context = PairedAPIContext
    let server: PairedAPIServer

    func handle(_ request: Request, context: PairedAPIContext,
                next: (Request, PairedAPIContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = APIError.from(error, logger: server.logger, requestId: context.requestId)
            if context.trace.reason == nil {
                context.trace.setReason(apiError.auditReason ?? apiError.code, types: apiError.error.deniedTypes)
            }
            return apiError.response(requestId: context.requestId)
        }
    }
}
