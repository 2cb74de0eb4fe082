import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

extension HealthService {
    /// The largest batch of samples one write takes.
    public static let maxWriteBatch = 1_000

    /// Saves quantity and category samples for this principal, in one transaction, after checking its write
    /// grants and every value (type, unit, bounds, dates). A retried write changes nothing.
    ///
    /// ```swift
    /// let result = try await service.acting(as: .mcp()).save([SampleInput(type: "dietaryWater", value: 250, unit: "mL")])
    /// ```
    public func save(_ inputs: [SampleInput]) async throws -> WriteResult {
        guard !inputs.isEmpty else { throw HealthError(.invalidArgument, "samples is empty: give at least one sample") }
        guard inputs.count <= Self.maxWriteBatch else {
            throw HealthError(.payloadTooLarge, "at most \(Self.maxWriteBatch) samples per write")
        }
        var samples: [HealthSample] = []
        for (index, input) in inputs.enumerated() {
            do {
                samples.append(try await prepare(input))
            } catch let error as HealthError where inputs.count > 1 {
                throw HealthError(error.code, "samples[\(index)]: \(error.message)")
            }
        }
        return try await commit(samples: samples)
    }

    /// A sample ready to store: validated, converted to the type's unit, with this principal as its source.
    func prepare(_ input: SampleInput, defaultMetadata: [String: String] = [:]) async throws -> HealthSample {
        let type = try await resolveType(input.type)
        try await authorizeWrite(type.identifier)
        let now = clock()
        let start = try DateRange.nonEmpty(input.start).map { text throws(HealthError) in
            try DateExpression.parse(text, now: now, timeZone: homeTimeZone)
        } ?? now
        let end = try DateRange.nonEmpty(input.end).map { text throws(HealthError) in
            try DateExpression.parse(text, now: now, timeZone: homeTimeZone)
        } ?? start
        guard end >= start else {
            throw HealthError(.invalidRange, "the end (\(iso(end))) is before the start (\(iso(start)))")
        }
        guard end <= now.addingTimeInterval(Self.futureTolerance) else {
            throw HealthError(.invalidRange, "\(iso(end)) is in the future; health data is written when it happened")
        }
        guard start >= Self.earliestDate else {
            throw HealthError(.invalidRange, "\(iso(start)) is before 1900")
        }
        try SampleDates.check(start: start, end: end, now: now, aheadAllowed: Self.futureTolerance)
        let value: SampleValue
        switch type.kind {
        case .quantity:
            guard input.category == nil else {
                throw HealthError(.invalidArgument, "\(type.identifier) is a quantity type: give value (and unit), not category")
            }
            guard let number = input.value else {
                throw HealthError(.invalidArgument, "value is required for \(type.identifier)\(type.canonicalUnit.map { " (in \($0) unless unit says otherwise)" } ?? "")")
            }
            guard number.isFinite else { throw HealthError(.invalidArgument, "value must be a finite number") }
            let canonical = type.canonicalUnit ?? input.unit ?? "count"
            // An entry unit's name (glucose's mmol/L) stands for its HKUnit string.
            let spelled = DateRange.nonEmpty(input.unit).map { name in
                type.entryUnits.first { $0.name == name }?.unit ?? (name == "bpm" ? "count/min" : name)
            }
            let given = try HealthUnit.parse(spelled ?? canonical)
            let converted = try given.convert(number, to: HealthUnit.parse(canonical))
            try type.checkValue(converted)
            value = .quantity(converted, unit: canonical)
        case .category:
            guard input.value == nil, let name = DateRange.nonEmpty(input.category) else {
                throw HealthError(.invalidArgument, "\(type.identifier) is a category type: give category, one of \(type.categoryValues.map(\.name).joined(separator: ", "))")
            }
            guard let category = type.categoryValue(named: name) else {
                throw HealthError(.invalidArgument, "'\(name)' is not a value of \(type.identifier); use one of \(type.categoryValues.map(\.name).joined(separator: ", "))")
            }
            value = .category(category.rawValue)
        case .correlation, .workout:
            throw HealthError(.invalidType, "\(type.identifier) is a \(type.kind.rawValue) type: log food or a workout with their own writes")
        }
        var metadata = defaultMetadata.merging(try type.normalizedMetadata(input.metadata ?? [:], strict: false)) { own, _ in own }
        guard metadata.count <= 64, metadata.allSatisfy({ $0.key.utf8.count <= 128 && $0.value.utf8.count <= 4_096 }) else {
            throw HealthError(.invalidArgument, "metadata: at most 64 entries, keys of 128 and values of 4,096 bytes")
        }
        metadata[MetadataKey.wasUserEntered] = (input.userEntered ?? (principal.kind == .owner)) ? "1" : "0"
        if let logId = DateRange.nonEmpty(input.logId) {
            try Self.checkIdentifier(logId, name: "log id")
            metadata[MetadataKey.logIdentifier] = logId
        }
        var syncId = DateRange.nonEmpty(input.syncId)
        if syncId == nil, let logId = DateRange.nonEmpty(input.logId) { syncId = "\(logId)#\(type.identifier)" }
        if let syncId {
            try Self.checkIdentifier(syncId, name: "sync id")
            let version = input.syncVersion ?? 1
            guard version >= 0 else { throw HealthError(.invalidArgument, "sync version must be 0 or more") }
            metadata[MetadataKey.syncIdentifier] = syncId
            metadata[MetadataKey.syncVersion] = String(version)
        } else if input.syncVersion != nil {
            throw HealthError(.invalidArgument, "a sync version needs a sync id (or a log id)")
        }
        // A synced object's UUID names its version: a retry is the same object, a newer version a new one.
        let uuid = syncId.map { id in
            HealthSample.naturalUUID(type: type.identifier, sourceKey: principal.source.key, start: start, end: end,
                                     value: .quantity(Double(input.syncVersion ?? 1), unit: id))
        }
        return HealthSample(uuid: uuid, type: type.identifier, start: start, end: end, value: value, source: principal.source,
                            creationDate: now, metadata: metadata,
                            utcOffset: homeTimeZone.secondsFromGMT(for: start), timeZone: homeTimeZone.identifier)
    }

    /// Writes prepared objects in one transaction. Samples with a sync id that is already stored with an equal or
    /// greater version are not written; their stored UUID is answered.
    func commit(samples: [HealthSample], correlations: [HealthCorrelation] = [], workouts: [HealthWorkout] = [],
                deletions: [UUID] = []) async throws -> WriteResult {
        var objects: [WriteResult.WrittenObject] = []
        var toSave: [HealthSample] = []
        var unchanged = 0
        for sample in samples {
            if let syncId = sample.metadata[MetadataKey.syncIdentifier],
               let stored = try await storedVersion(type: sample.type, syncId: syncId),
               stored.version >= Int(sample.metadata[MetadataKey.syncVersion] ?? "0") ?? 0 {
                objects.append(.init(uuid: stored.uuid.uuidString, type: sample.type))
                unchanged += 1
                continue
            }
            toSave.append(sample)
            objects.append(.init(uuid: sample.uuid.uuidString, type: sample.type))
        }
        objects += correlations.map { .init(uuid: $0.uuid.uuidString, type: $0.type) }
        objects += workouts.map { .init(uuid: $0.uuid.uuidString, type: "workout") }
        let result = try await store.commit(StoreTransaction(deletions: deletions, samples: toSave,
                                                             correlations: correlations, workouts: workouts))
        await audit(.write, types: toSave.map(\.type) + correlations.map(\.type) + workouts.map { _ in "workout" },
                    count: result.saved.inserted + result.saved.replaced)
        return WriteResult(objects: objects, inserted: result.saved.inserted - result.saved.replaced,
                           replaced: result.saved.replaced + min(result.deleted, workouts.count + correlations.count),
                           unchanged: unchanged + result.saved.ignored, anchor: String(result.anchor))
    }

    /// The stored object of this principal with a sync id, and its version.
    func storedVersion(type: String, syncId: String) async throws -> (uuid: UUID, version: Int)? {
        guard let sample = try await store.sample(syncIdentifier: syncId, sourceKey: principal.source.key) else { return nil }
        return (sample.uuid, Int(sample.metadata[MetadataKey.syncVersion] ?? "0") ?? 0)
    }

    /// Writes may be dated a little after now: clocks disagree.
    static let futureTolerance = SampleDates.clockSkew
    static let earliestDate = SampleDates.earliest

    static func checkIdentifier(_ text: String, name: String) throws(HealthError) {
        guard text.utf8.count <= 256, !text.contains(where: { $0.isNewline }) else {
            throw HealthError(.invalidArgument, "a \(name) is at most 256 bytes on one line")
        }
    }
}
