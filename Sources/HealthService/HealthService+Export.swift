import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

extension HealthService {
    struct TypedSamplesState: Codable {
        var types: [String]
        var start: Date
        var end: Date
        var limit: Int
        var index: Int
        var position: String?
    }

    /// Several types' samples in one paged stream. A type this principal may not read is refused when it is told
    /// about denial (a paired device: `HEALTH_NOT_AUTHORIZED` with the types), else left out.
    public func samples(ofTypes request: TypedSamplesRequest) async throws -> TypedSamplesResult {
        var state: TypedSamplesState
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: TypedSamplesState.self, use: "typed-samples")
            guard (1...TypedSamplesRequest.maxLimit).contains(state.limit), state.end >= state.start,
                  (1...TypedSamplesRequest.maxTypes).contains(state.types.count),
                  state.index >= 0, state.index < state.types.count else { throw ServiceCursor.invalid("typed-samples") }
            // A cursor only continues the request it came from: types and instants given with it must be its own.
            let types = try (Self.list(request.types) ?? []).map { name throws(HealthError) in
                try SampleTypeRegistry.resolve(name).identifier
            }
            let start = request.start.flatMap(ISO8601.date), end = request.end.flatMap(ISO8601.date)
            var seen = Set<String>()
            let distinct = types.filter { seen.insert($0).inserted }
            if (!distinct.isEmpty && distinct != state.types)
                || (start != nil && start != state.start) || (end != nil && end != state.end) {
                throw HealthError(.invalidArgument, "this cursor was issued for other types or another range: send it with the request it came from, or start again without it")
            }
        } else {
            let names = Self.list(request.types) ?? []
            guard !names.isEmpty else {
                throw HealthError(.invalidArgument, "types is required: type identifiers, e.g. stepCount,heartRate")
            }
            guard names.count <= TypedSamplesRequest.maxTypes else {
                throw HealthError(.invalidArgument, "at most \(TypedSamplesRequest.maxTypes) types per request")
            }
            var seen = Set<String>()
            var types: [String] = []
            for name in names {
                guard name.utf8.count <= 128 else {
                    throw HealthError(.invalidType, "type names are identifiers of at most 128 characters")
                }
                let type = try SampleTypeRegistry.resolve(name)
                try requireSampleType(type, use: "health data")
                if seen.insert(type.identifier).inserted { types.append(type.identifier) }
            }
            let range = try range(start: request.start, end: request.end, defaultStart: "7d")
            state = TypedSamplesState(types: types, start: range.start, end: range.end,
                                      limit: try Self.limit(request.limit, default: TypedSamplesRequest.defaultLimit,
                                                            range: 1...TypedSamplesRequest.maxLimit),
                                      index: 0, position: nil)
        }
        let grants = try await readGrant()   // paused sharing refuses paired devices and apps first
        let denied = state.types.filter { !grants.allows($0) }
        if !denied.isEmpty, principal.seesReadDenial { _ = try await authorizeRead(denied) }
        var result = TypedSamplesResult(types: state.types, start: state.start, end: state.end, samples: [])
        result.samples.reserveCapacity(min(state.limit, 1_024))
        while state.index < state.types.count {
            let name = state.types[state.index]
            let remaining = state.limit - result.samples.count
            if remaining == 0 {
                state.position = nil
                result.nextCursor = ServiceCursor.encode(state, use: "typed-samples")
                break
            }
            if grants.allows(name), let type = SampleTypeRegistry.registered(name) {
                let page = try await store.samples(SampleQuery(
                    type: type.identifier, start: state.start, end: state.end, matching: .strictStartDate,
                    limit: remaining, ascending: true, cursor: state.position))
                for sample in page.samples {
                    result.samples.append(TypedSample(type: type.identifier, sample: try record(sample, type: type)))
                }
                if let next = page.nextCursor {
                    state.position = next
                    result.nextCursor = ServiceCursor.encode(state, use: "typed-samples")
                    break
                }
            }
            state.index += 1
            state.position = nil
        }
        return result
    }
}
