import Foundation
import HealthAPI
import HealthAccess
import HealthModel
import HealthService
import Hummingbird

// The read use cases beyond `health/data`, one endpoint each: decode the query parameters into the service's
// request, call the service as the paired client, encode its result (the same JSON document MCP and the CLI give).
// Parameter names are those of the MCP tools.

extension PairedAPIServer {
    func addUseCases(to api: RouterGroup<PairedAPIContext>) {
        api.get("health/statistics") { request, context in
            let p = try APIParameters(request.uri, allowed: ["type", "start", "end", "interval", "statistics", "time_zone",
                                                             "by_source", "source", "skip_empty", "unit", "limit", "cursor",
                                                             "contributions"])
            return try await self.answer(context) { service in
                try await service.summary(SummaryRequest(
                    type: p.string("type"), start: p.string("start"), end: p.string("end"), interval: p.string("interval"),
                    statistics: p.list("statistics"), timeZone: p.string("time_zone"), bySource: try p.bool("by_source"),
                    sources: p.list("source"), skipEmpty: try p.bool("skip_empty"), unit: p.string("unit"),
                    limit: try p.int("limit"), cursor: p.string("cursor"), contributions: try p.bool("contributions")))
            }
        }
        api.get("health/coverage") { request, context in
            let p = try APIParameters(request.uri, allowed: ["type", "start", "end", "interval", "time_zone"])
            return try await self.answer(context) { service in
                try await service.coverage(CoverageRequest(type: p.string("type"), start: p.string("start"),
                                                           end: p.string("end"), interval: p.string("interval"),
                                                           timeZone: p.string("time_zone")))
            }
        }
        api.get("health/latest") { request, context in
            let p = try APIParameters(request.uri, allowed: ["type", "source", "time_zone"])
            return try await self.answer(context) { service in
                try await service.latest(LatestRequest(type: p.string("type"), sources: p.list("source"),
                                                       timeZone: p.string("time_zone")))
            }
        }
        api.get("health/sleep") { request, context in
            let p = try APIParameters(request.uri, allowed: ["start", "end", "time_zone", "cursor"])
            return try await self.answer(context) { service in
                try await service.sleep(SleepRequest(start: p.string("start"), end: p.string("end"),
                                                     timeZone: p.string("time_zone"), cursor: p.string("cursor")))
            }
        }
        api.get("health/workouts") { request, context in
            let p = try APIParameters(request.uri, allowed: ["activity_type", "start", "end", "limit", "order", "time_zone", "cursor"])
            let order = p.string("order") ?? "desc"
            guard ["asc", "desc"].contains(order) else {
                throw HealthError(.invalidArgument, "order must be asc or desc, got '\(order.prefix(16))'")
            }
            return try await self.answer(context) { service in
                try await service.workouts(WorkoutsRequest(
                    activityTypes: p.list("activity_type"), start: p.string("start"), end: p.string("end"),
                    limit: try p.int("limit"), ascending: order == "asc", timeZone: p.string("time_zone"),
                    cursor: p.string("cursor")))
            }
        }
        api.get("health/workouts/:uuid") { request, context in
            let p = try APIParameters(request.uri, allowed: ["route_offset", "route_limit", "time_zone"])
            let uuid = context.parameters.get("uuid")
            return try await self.answer(context) { service in
                try await service.workout(WorkoutRequest(uuid: uuid, routeOffset: try p.int("route_offset"),
                                                         routeLimit: try p.int("route_limit"), timeZone: p.string("time_zone")))
            }
        }
        api.get("health/activity") { request, context in
            let p = try APIParameters(request.uri, allowed: ["start", "end", "limit", "time_zone", "cursor"])
            return try await self.answer(context) { service in
                try await service.activitySummaries(ActivitySummariesRequest(
                    start: p.string("start"), end: p.string("end"), limit: try p.int("limit"),
                    timeZone: p.string("time_zone"), cursor: p.string("cursor")))
            }
        }
        api.get("health/sources") { request, context in
            let p = try APIParameters(request.uri, allowed: ["type"])
            return try await self.answer(context) { service in
                try await service.sources(SourcesRequest(type: p.string("type")))
            }
        }
        api.get("health/today") { request, context in
            _ = try APIParameters(request.uri, allowed: [])
            return try await self.answer(context) { service in try await service.today() }
        }
        api.post("health/samples/query") { request, context in
            let body = try await self.body(SamplesRequest.self, request)
            return try await self.answer(context) { service in try await service.samples(body) }
        }
        api.get("health/changes/anchor") { request, context in
            _ = try APIParameters(request.uri, allowed: [])
            return try await self.answer(context) { service in try await service.changesAnchor() }
        }
        api.get("health/energy") { request, context in
            let p = try APIParameters(request.uri, allowed: ["start", "end", "time_zone"])
            return try await self.answer(context) { service in
                try await service.energy(EnergyRequest(start: p.string("start"), end: p.string("end"),
                                                       timeZone: p.string("time_zone")))
            }
        }
    }

    /// Runs a use case as the request's paired client (the service refuses it while sharing is paused), records a
    /// `data.read` audit entry (the types read and how many objects were answered, never a value) and answers its
    /// result as JSON.
    func answer<Result: Encodable & AuditedRead>(_ context: PairedAPIContext,
                                                 _ call: (HealthService) async throws -> Result) async throws -> Response {
        let service = deviceService(context)
        let result = try await call(service)
        auditRead(context, principal: service.principal, types: result.auditTypes, count: result.auditCount)
        return Self.json(.ok, try JSONEncoder.wire.encode(result))
    }

    /// The `data.read` entry of a read on the paired API: who (the client's hash and the principal it acts as), which
    /// types, how many objects. Never a value.
    func auditRead(_ context: PairedAPIContext, principal: Principal, types: [String], count: Int,
                   start: String? = nil, end: String? = nil) {
        audit.record(AuditEvent(event: .dataRead, requestId: context.requestId, client: context.client?.auditId,
                                address: context.remoteAddress,
                                detail: .init(types: Array(Set(types)).sorted(), sampleCount: count, start: start, end: end,
                                              principal: principal.id)))
    }
}

/// What a read's audit entry says about its answer: the types read and how many objects (samples, buckets, nights,
/// workouts, route points, sources…) were answered. Never a value.
protocol AuditedRead {
    var auditTypes: [String] { get }
    var auditCount: Int { get }
}

extension SummaryResult: AuditedRead {
    var auditTypes: [String] { [type] }
    var auditCount: Int { buckets.count + (bySource ?? []).reduce(0) { $0 + $1.buckets.count } }
}

extension CoverageResult: AuditedRead {
    var auditTypes: [String] { [type] }
    var auditCount: Int { buckets.count }
}

extension LatestResult: AuditedRead {
    var auditTypes: [String] { [type] }
    var auditCount: Int { found ? 1 : 0 }
}

extension SleepResult: AuditedRead {
    var auditTypes: [String] { ["sleepAnalysis"] }
    var auditCount: Int { nights.count }
}

extension WorkoutsResult: AuditedRead {
    var auditTypes: [String] { ["workout"] }
    var auditCount: Int { workouts.count }
}

extension WorkoutDetail: AuditedRead {
    var auditTypes: [String] { route == nil ? ["workout"] : ["workout", "workoutRoute"] }
    var auditCount: Int { 1 + routePoints.count }
}

extension ActivitySummariesResult: AuditedRead {
    var auditTypes: [String] { ["activitySummary"] }
    var auditCount: Int { summaries.count }
}

extension SourcesResult: AuditedRead {
    var auditTypes: [String] { type.map { [$0] } ?? [] }
    var auditCount: Int { sources.count }
}

extension TodayResult: AuditedRead {
    var auditTypes: [String] { ["stepCount", "activeEnergyBurned", "restingHeartRate", "sleepAnalysis", "workout"] }
    var auditCount: Int {
        [steps, activeEnergyKcal, restingHeartRateBpm].compactMap { $0 }.count + (sleep == nil ? 0 : 1) + workouts.count
    }
}

extension SamplesResult: AuditedRead {
    var auditTypes: [String] { [type] }
    var auditCount: Int { samples.count }
}

extension ChangesAnchor: AuditedRead {
    var auditTypes: [String] { [] }
    var auditCount: Int { 0 }
}

extension EnergyResult: AuditedRead {
    var auditTypes: [String] { ["basalEnergyBurned", "activeEnergyBurned"] }
    var auditCount: Int { days.count }
}

extension ChangesResult: AuditedRead {
    var auditTypes: [String] { added.map(\.type) + deleted.map(\.type) }
    var auditCount: Int { added.count + deleted.count }
}
