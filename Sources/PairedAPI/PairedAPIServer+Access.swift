import Foundation
import HealthAPI
import HealthAccess
import HealthModel
import HealthService
import Hummingbird

// Authorization the way HealthKit asks for it, for paired clients (HealthBridgeKit's `requestAuthorization` and
// `authorizationStatus(for:)`): thin adapters over the service's access requests. The owner decides with
// `healthbridge access approve|deny`. Only write statuses are answered; read denial is never revealed to an app.

extension PairedAPIServer {
    func addAccess(to api: RouterGroup<PairedAPIContext>) {
        api.post("access/requests") { request, context in
            let body = try await self.body(AccessRequestInput.self, request)
            let filing = try await self.deviceService(context).requestAccess(body)
            if filing.request != nil {
                self.audit.record(AuditEvent(event: .accessRequest, requestId: context.requestId,
                                             client: context.client?.auditId, address: context.remoteAddress,
                                             detail: .init(types: (body.read + body.write).sorted(),
                                                           principal: context.client?.principal.id)))
            }
            return Self.json(.ok, try JSONEncoder.wire.encode(filing))
        }
        api.get("access/status") { request, context in
            let p = try APIParameters(request.uri, allowed: ["types"])
            guard let types = p.list("types"), !types.isEmpty else {
                throw HealthError(.invalidArgument, "types is required: the types to report the write status of, comma-separated")
            }
            let status = try await self.deviceService(context).authorizationStatus(types: types)
            return Self.json(.ok, try JSONEncoder.wire.encode(status))
        }
    }
}
