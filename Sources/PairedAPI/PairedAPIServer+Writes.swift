import Foundation
import HealthAPI
import HealthAccess
import HealthModel
import HealthService
import Hummingbird

// Writes for paired clients with a write grant: decode the body into the service's request, call the service as
// the client, encode its result, and audit who wrote which types and how many objects (never a value).

extension PairedAPIServer {
    /// `POST /api/v1/log/weight` and `…/water`: a value with its unit, optionally an id to make the write idempotent.
    struct QuantityLogBody: Decodable {
        var value: Double
        var unit: String?
        var at: String?
        var logId: String?
        var syncId: String?
        var syncVersion: Int?
        enum CodingKeys: String, CodingKey {
            case value, unit, at, logId = "log_id", syncId = "sync_id", syncVersion = "sync_version"
        }
    }

    struct SamplesBody: Decodable {
        var samples: [SampleInput]
    }

    func addWrites(to api: RouterGroup<PairedAPIContext>) {
        api.post("health/samples") { request, context in
            let body = try await self.body(SamplesBody.self, request)
            return try await self.write(context) { try await $0.save(body.samples) }
        }
        api.post("log") { request, context in
            let body = try await self.body(QuantityLog.self, request)
            return try await self.write(context) { try await $0.log(body) }
        }
        api.post("log/food") { request, context in
            let body = try await self.body(FoodLog.self, request)
            return try await self.write(context) { try await $0.logFood(body) }
        }
        api.post("log/weight") { request, context in
            let body = try await self.body(QuantityLogBody.self, request)
            return try await self.write(context) {
                try await $0.logWeight(body.value, unit: body.unit, at: body.at, logId: body.logId, syncId: body.syncId,
                                       syncVersion: body.syncVersion)
            }
        }
        api.post("log/water") { request, context in
            let body = try await self.body(QuantityLogBody.self, request)
            return try await self.write(context) {
                try await $0.logWater(body.value, unit: body.unit, at: body.at, logId: body.logId, syncId: body.syncId,
                                      syncVersion: body.syncVersion)
            }
        }
        api.post("log/workout") { request, context in
            let body = try await self.body(WorkoutLog.self, request)
            return try await self.write(context) { try await $0.logWorkout(body) }
        }
        api.delete("log/:logId") { _, context in
            let logId = context.parameters.get("logId")
            return try await self.deleteObjects(context, DeleteRequest(logId: logId))
        }
        api.post("health/delete") { request, context in
            let body = try await self.body(DeleteRequest.self, request)
            return try await self.deleteObjects(context, body)
        }
        api.get("health/changes") { request, context in
            let p = try APIParameters(request.uri, allowed: ["types", "anchor", "wait", "limit", "time_zone"])
            let wait = try p.string("wait").map { text throws(HealthError) -> Double in
                guard let value = Double(text) else {
                    throw HealthError(.invalidArgument, "wait must be a number of seconds, got '\(text.prefix(32))'")
                }
                return value
            }
            return try await self.answer(context) { service in
                try await service.changes(ChangesRequest(types: p.list("types"), anchor: p.string("anchor"), wait: wait,
                                                         limit: try p.int("limit"), timeZone: p.string("time_zone")))
            }
        }
    }

    /// Runs a delete as the request's paired client and audits how many objects went (never which values).
    func deleteObjects(_ context: PairedAPIContext, _ request: DeleteRequest) async throws -> Response {
        let result = try await deviceService(context).delete(request)
        audit.record(AuditEvent(event: .dataDelete, requestId: context.requestId, client: context.client?.auditId,
                                address: context.remoteAddress, detail: .init(sampleCount: result.deleted)))
        return Self.json(.ok, try JSONEncoder.wire.encode(result))
    }

    func body<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
        return try DataQueryParser.decode(T.self, buffer)
    }

    /// Runs a write as the request's paired client and audits it (the service refuses it while sharing is paused).
    func write(_ context: PairedAPIContext, _ call: (HealthService) async throws -> WriteResult) async throws -> Response {
        let result = try await call(deviceService(context))
        audit.record(AuditEvent(event: .dataWrite, requestId: context.requestId, client: context.client?.auditId,
                                address: context.remoteAddress,
                                detail: .init(types: Array(Set(result.objects.map(\.type))).sorted(),
                                              sampleCount: result.inserted + result.replaced)))
        return Self.json(.ok, try JSONEncoder.wire.encode(result))
    }
}
