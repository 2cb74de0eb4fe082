import Foundation
import HealthEngine
import HealthModel
import HealthStore

/// Raw samples of one type, paged.
///
/// ```swift
/// let page = try await service.samples(SamplesRequest(type: "heartRate", start: "today", limit: 50))
/// ```
public struct SamplesRequest: Codable, Sendable, Hashable {
    /// A type identifier, with or without its HealthKit prefix. Required unless `cursor` is given.
    public var type: String?
    /// Default `7d`. See ``DateRange``.
    public var start: String?
    public var end: String?
    /// Samples per page, 1…5,000, default 100.
    public var limit: Int?
    /// Oldest first; default newest first.
    public var ascending: Bool?
    /// Only samples of these sources (names or keys).
    public var sources: [String]?
    /// IANA zone of the dates in the result; default the home zone.
    public var timeZone: String?
    /// Quantities in this unit (`kcal`, `lb`, `km`, …) instead of the type's own.
    public var unit: String?
    /// `next_cursor` of the previous page: the other fields are then taken from it (but `limit`, which may still
    /// change the page size).
    public var cursor: String?

    public init(type: String? = nil, start: String? = nil, end: String? = nil, limit: Int? = nil,
                ascending: Bool? = nil, sources: [String]? = nil, timeZone: String? = nil, unit: String? = nil,
                cursor: String? = nil) {
        self.type = type; self.start = start; self.end = end; self.limit = limit; self.ascending = ascending
        self.sources = sources; self.timeZone = timeZone; self.unit = unit; self.cursor = cursor
    }

    public static let maxLimit = 5_000
    public static let defaultLimit = 100
}

/// A page of samples.
public struct SamplesResult: Codable, Sendable, Hashable {
    public var type: String
    /// The unit of every value (quantity types).
    public var unit: String?
    public var timeZone: String
    public var start: String
    public var end: String
    /// `desc` (newest first) or `asc`.
    public var order: String
    public var count: Int
    public var samples: [SampleRecord]
    public var hasMore: Bool
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case type, unit, timeZone = "time_zone", start, end, order, count, samples, hasMore = "has_more"
        case nextCursor = "next_cursor"
    }
}

/// One sample: a quantity in its type's unit, or a category by name.
public struct SampleRecord: Codable, Sendable, Hashable {
    public var uuid: String
    public var start: String
    public var end: String
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var source: String
    public var metadata: [String: String]?
}

extension HealthService {
    struct SamplesState: Codable {
        var type: String
        var start: Date
        var end: Date
        var limit: Int
        var ascending: Bool
        var sources: [String]?
        var timeZone: String
        var unit: String?
        var position: String
    }

    /// Raw samples of a type, newest first unless `ascending`, paged with a cursor. A type this principal may not
    /// read gives an empty page.
    ///
    /// ```swift
    /// var page = try await service.samples(SamplesRequest(type: "stepCount", start: "2024-05-01", end: "2024-05-02"))
    /// while let next = page.nextCursor { page = try await service.samples(SamplesRequest(cursor: next)) }
    /// ```
    public func samples(_ request: SamplesRequest) async throws -> SamplesResult {
        var state: SamplesState
        var position: String?
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: SamplesState.self, use: "samples")
            guard (1...SamplesRequest.maxLimit).contains(state.limit), state.end >= state.start else {
                throw ServiceCursor.invalid("samples")
            }
            position = state.position
            if let limit = request.limit {
                state.limit = try Self.limit(limit, default: state.limit, range: 1...SamplesRequest.maxLimit)
            }
        } else {
            let zoned = try self.zoned(request.timeZone)
            let range = try zoned.range(start: request.start, end: request.end, defaultStart: "7d")
            state = SamplesState(type: request.type ?? "", start: range.start, end: range.end,
                                 limit: try Self.limit(request.limit, default: SamplesRequest.defaultLimit,
                                                       range: 1...SamplesRequest.maxLimit),
                                 ascending: request.ascending ?? false, sources: Self.list(request.sources),
                                 timeZone: zoned.homeTimeZone.identifier, unit: DateRange.nonEmpty(request.unit),
                                 position: "")
        }
        let service = try zoned(state.timeZone)
        let type = try await resolveType(state.type)
        try requireSampleType(type, use: "samples")
        state.type = type.identifier
        try await checkSources(state.sources, type: type)
        let unit = try state.unit.map { name throws(HealthError) in try Self.unit(name, for: type) }
        var result = SamplesResult(type: type.identifier, unit: unit.map { Self.wireUnit($0.description) } ?? Self.resultUnit(type),
                                   timeZone: state.timeZone,
                                   start: service.iso(state.start), end: service.iso(state.end),
                                   order: state.ascending ? "asc" : "desc", count: 0, samples: [], hasMore: false)
        guard try await authorizeRead([type.identifier]) else { return result }
        let page = try await engine.samples(SampleQuery(
            type: type.identifier, start: state.start, end: state.end, matching: .strictStartDate,
            sources: state.sources, limit: state.limit, ascending: state.ascending, cursor: position))
        result.samples = try page.samples.map { try service.record($0, type: type, unit: unit) }
        result.count = result.samples.count
        if let next = page.nextCursor {
            state.position = next
            result.hasMore = true
            result.nextCursor = ServiceCursor.encode(state, use: "samples")
        }
        return result
    }

    /// A sample as results show it: quantities in the type's canonical unit (`bpm` for heart rates), categories by
    /// name, dates in this service's zone.
    func record(_ sample: HealthSample, type: SampleType, unit: HealthUnit? = nil) throws -> SampleRecord {
        var wire = try wireSample(sample, type: type)
        if let unit, case .quantity(let value, let recorded) = sample.value {
            wire.value = try HealthUnit.parse(recorded).convert(value, to: unit)
            wire.unit = Self.wireUnit(unit.description)
        }
        return SampleRecord(uuid: sample.uuid.uuidString, start: wire.dateISO, end: wire.endDateISO ?? wire.dateISO,
                            value: wire.value, unit: wire.unit, category: wire.category, source: sample.source.name,
                            metadata: sample.metadata.isEmpty ? nil : sample.metadata)
    }

    /// A unit a request asks for: it must parse and be compatible with the type's.
    static func unit(_ name: String, for type: SampleType) throws(HealthError) -> HealthUnit {
        guard type.kind == .quantity else {
            throw HealthError(.invalidUnit, "\(type.identifier) is a \(type.kind.rawValue) type: its values have no unit")
        }
        let unit = try HealthUnit.parse(name == "bpm" ? "count/min" : name)
        if let canonical = type.canonicalUnit { _ = try HealthUnit.parse(canonical).convert(1, to: unit) }
        return unit
    }

    /// The unit values of a type are given in (`bpm` for count/min); nil for category types.
    static func resultUnit(_ type: SampleType) -> String? {
        guard type.kind == .quantity else { return nil }
        return type.canonicalUnit.map(wireUnit)
    }

    /// A sample in the OpenClaw wire form: quantities in the type's canonical unit, categories by name.
    public func wireSample(_ sample: HealthSample, type: SampleType) throws -> OpenClawHealthSample {
        var wire = OpenClawHealthSample(dateISO: iso(sample.start), endDateISO: iso(sample.end), source: sample.source.name)
        switch sample.value {
        case .quantity(let value, let unit):
            if let canonical = type.canonicalUnit {
                wire.value = try HealthUnit.parse(unit).convert(value, to: HealthUnit.parse(canonical))
                wire.unit = Self.wireUnit(canonical)
            } else {
                wire.value = value
                wire.unit = unit
            }
        case .category(let raw):
            wire.category = Self.categoryName(raw, type: type)
        case .none:
            break
        }
        return wire
    }

    /// The plan's unit names: `bpm` for beats per minute, HKUnit strings otherwise.
    public static func wireUnit(_ unit: String) -> String {
        unit == "count/min" ? "bpm" : unit
    }

    /// The plan's category names for sleep (`inBed`, `asleep`, `awake`, `core`, `deep`, `rem`), the registry's
    /// short names for other types, the raw value for unknown values.
    public static func categoryName(_ raw: Int, type: SampleType) -> String {
        if type.identifier == "sleepAnalysis" {
            switch raw {
            case 0: return "inBed"
            case 1: return "asleep"
            case 2: return "awake"
            case 3: return "core"
            case 4: return "deep"
            case 5: return "rem"
            default: return "unknown"
            }
        }
        return type.categoryValue(raw: raw)?.name ?? String(raw)
    }
}
