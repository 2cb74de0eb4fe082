import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

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
        /// The metadata predicate (``SamplesRequest/metadataKey``); absent in cursors issued before it existed.
        var metadataKey: String?
        var metadataValues: [String]?
    }

    /// Raw samples of a type, newest first unless `ascending`, paged with a cursor. A type this principal may not
    /// read gives a page of only what this principal wrote itself (HealthKit's rule; usually empty).
    /// `metadataKey` with `metadataValues` keeps only the samples whose metadata has that
    /// key with one of those values (HealthKit's `predicateForObjects(withMetadataKey:allowedValues:)`); the cursor
    /// keeps the predicate.
    ///
    /// ```swift
    /// var page = try await service.samples(SamplesRequest(type: "stepCount", start: "2024-05-01", end: "2024-05-02"))
    /// while let next = page.nextCursor { page = try await service.samples(SamplesRequest(cursor: next)) }
    /// let meal = try await service.samples(SamplesRequest(type: "dietaryProtein", metadataKey: "DietAppLogId",
    ///                                                     metadataValues: ["meal-42"]))
    /// ```
    public func samples(_ request: SamplesRequest) async throws -> SamplesResult {
        var state: SamplesState
        var position: String?
        if let cursor = DateRange.nonEmpty(request.cursor) {
            state = try ServiceCursor.decode(cursor, as: SamplesState.self, use: "samples")
            guard (1...SamplesRequest.maxLimit).contains(state.limit), state.end >= state.start else {
                throw ServiceCursor.invalid("samples")
            }
            do {
                _ = try Self.metadataPredicate(key: state.metadataKey, values: state.metadataValues)
            } catch {
                throw ServiceCursor.invalid("samples")
            }
            position = state.position
            if let limit = request.limit {
                state.limit = try Self.limit(limit, default: state.limit, range: 1...SamplesRequest.maxLimit)
            }
        } else {
            let predicate = try Self.metadataPredicate(key: request.metadataKey, values: request.metadataValues)
            let zoned = try self.zoned(request.timeZone)
            let range = try zoned.range(start: request.start, end: request.end, defaultStart: "7d")
            state = SamplesState(type: request.type ?? "", start: range.start, end: range.end,
                                 limit: try Self.limit(request.limit, default: SamplesRequest.defaultLimit,
                                                       range: 1...SamplesRequest.maxLimit),
                                 ascending: request.ascending ?? false, sources: Self.list(request.sources),
                                 timeZone: zoned.homeTimeZone.identifier, unit: DateRange.nonEmpty(request.unit),
                                 position: "", metadataKey: predicate?.key, metadataValues: predicate?.values)
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
        // HealthKit's rule: without a read grant a principal still reads what it wrote itself (an app finds the
        // samples it saved, to delete them) and nothing else — which tells it nothing it does not know.
        let sources = try await authorizeRead([type.identifier]) ? state.sources : [principal.source.key]
        let page = try await engine.samples(SampleQuery(
            type: type.identifier, start: state.start, end: state.end, matching: .strictStartDate,
            sources: sources, metadataKey: state.metadataKey, metadataValues: state.metadataValues ?? [],
            limit: state.limit, ascending: state.ascending, cursor: position))
        result.samples = try page.samples.map { try service.record($0, type: type, unit: unit) }
        result.count = result.samples.count
        if let next = page.nextCursor {
            state.position = next
            result.hasMore = true
            result.nextCursor = ServiceCursor.encode(state, use: "samples")
        }
        return result
    }

    /// A metadata predicate as a request gives it: both or neither of key and values; the key 1…128 bytes without
    /// `"`, `\\` or control characters; 1…100 values of at most 4,096 bytes. Nil when neither is given.
    static func metadataPredicate(key: String?, values: [String]?) throws(HealthError) -> (key: String, values: [String])? {
        switch (key, values) {
        case (nil, nil):
            return nil
        case (nil, .some):
            throw HealthError(.invalidArgument, "metadata_values needs metadata_key: the metadata key whose values to match")
        case (.some, nil):
            throw HealthError(.invalidArgument, "metadata_key needs metadata_values: 1 to \(SamplesRequest.maxMetadataValues) values the key may have")
        case (let key?, let values?):
            guard (1...SamplesRequest.maxMetadataKeyBytes).contains(key.utf8.count) else {
                throw HealthError(.invalidArgument, "metadata_key must be 1 to \(SamplesRequest.maxMetadataKeyBytes) bytes")
            }
            guard !key.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.properties.generalCategory == .control }) else {
                throw HealthError(.invalidArgument, "metadata_key '\(key.prefix(64))' may not contain quotes, backslashes or control characters")
            }
            guard (1...SamplesRequest.maxMetadataValues).contains(values.count) else {
                throw HealthError(.invalidArgument, "metadata_values must hold 1 to \(SamplesRequest.maxMetadataValues) values, got \(values.count)")
            }
            guard values.allSatisfy({ $0.utf8.count <= SamplesRequest.maxMetadataValueBytes }) else {
                throw HealthError(.invalidArgument, "each of metadata_values is at most \(SamplesRequest.maxMetadataValueBytes) bytes")
            }
            return (key, values)
        }
    }

    /// A stored sample as results show it: quantities in the type's canonical unit (`bpm` for heart rates) or in
    /// `unit`, categories by name, dates in this service's zone. Adapters that speak another dialect (the OpenClaw
    /// node's `health.update`) map this record.
    ///
    /// ```swift
    /// let record = try service.record(sample, type: try SampleTypeRegistry.resolve("heartRate"))
    /// record.unit   // "bpm"
    /// ```
    public func record(_ sample: HealthSample, type: SampleType, unit: HealthUnit? = nil) throws -> SampleRecord {
        var value: Double?, valueUnit: String?, category: String?
        switch sample.value {
        case .quantity(let recorded, let recordedUnit):
            if let unit {
                value = try HealthUnit.parse(recordedUnit).convert(recorded, to: unit)
                valueUnit = Self.wireUnit(unit.description)
            } else if let canonical = type.canonicalUnit {
                value = try HealthUnit.parse(recordedUnit).convert(recorded, to: HealthUnit.parse(canonical))
                valueUnit = Self.wireUnit(canonical)
            } else {
                value = recorded
                valueUnit = recordedUnit
            }
        case .category(let raw):
            category = Self.categoryName(raw, type: type)
        case .none:
            break
        }
        return SampleRecord(uuid: sample.uuid.uuidString, start: iso(sample.start), end: iso(sample.end),
                            value: value, unit: valueUnit, category: category, source: sample.source.name,
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

    /// The plan's unit names: `bpm` for beats per minute, HKUnit strings otherwise.
    public static func wireUnit(_ unit: String) -> String {
        unit == "count/min" ? "bpm" : unit
    }

    /// The plan's category names for sleep (`inBed`, `asleep`, `awake`, `core`, `deep`, `rem`), the registry's
    /// short names for other types, the raw value for unknown values.
    public static func categoryName(_ raw: Int, type: SampleType) -> String {
        if type.categoryHandling == .sleepStages {
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
