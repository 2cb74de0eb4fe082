import Foundation
import HealthAPI
import HealthModel
import HealthStore

extension HealthService {
    /// Logs a meal: a sample per nutrient and an `HKCorrelationTypeIdentifierFood` correlation, in one transaction.
    /// The log id makes it idempotent; a greater `syncVersion` replaces the meal (nutrients and correlation).
    /// Authorized as HealthKit authorizes a food correlation: through its members, a write grant on each nutrient the
    /// meal contains (never a `food` grant); a nutrient without one is `HEALTH_NOT_AUTHORIZED` naming it.
    ///
    /// ```swift
    /// try await service.acting(as: app).logFood(FoodLog(logId: "meal-42", name: "Porridge", calories: 320,
    ///                                                   protein: 11, carbs: 54, fat: 6, fiber: 8))
    /// // needs write grants on dietaryEnergyConsumed, dietaryProtein, dietaryCarbohydrates, dietaryFatTotal, dietaryFiber
    /// ```
    public func logFood(_ log: FoodLog) async throws -> WriteResult {
        try Self.checkIdentifier(log.logId, name: "log id")
        guard !log.logId.isEmpty else { throw HealthError(.invalidArgument, "log id is required") }
        let name = log.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(name.count) else { throw HealthError(.invalidArgument, "name must be 1 to 200 characters") }
        // The correlation's members, each checked before anything is prepared (``prepare`` checks them again).
        for nutrient in log.nutrients { try await authorizeWrite(nutrient.type) }
        var metadata = [MetadataKey.foodType: name]
        if let meal = DateRange.nonEmpty(log.meal) { metadata["HealthBridgeMeal"] = meal }
        let version = log.syncVersion ?? 1
        var samples: [HealthSample] = []
        for nutrient in log.nutrients {
            samples.append(try await prepare(SampleInput(type: nutrient.type, value: nutrient.value, unit: nutrient.unit,
                                                         start: log.loggedAt, logId: log.logId, syncVersion: version),
                                         defaultMetadata: metadata))
        }
        let source = principal.source
        let syncId = "\(log.logId)#food"
        let existing = try await ownedCorrelations(logId: log.logId)
        if let stored = existing.first, (Int(stored.metadata[MetadataKey.syncVersion] ?? "0") ?? 0) >= version {
            // A retry (or an older version): the meal as stored.
            var objects: [WriteResult.WrittenObject] = []
            for member in stored.members {
                objects.append(.init(uuid: member.uuidString, type: try await store.sample(member)?.type ?? "food member"))
            }
            return WriteResult(objects: objects + [.init(uuid: stored.uuid.uuidString, type: "food")],
                               inserted: 0, replaced: 0, unchanged: stored.members.count + 1,
                               anchor: String(try await store.currentAnchor()))
        }
        var correlationMetadata = metadata
        correlationMetadata[MetadataKey.logIdentifier] = log.logId
        correlationMetadata[MetadataKey.syncIdentifier] = syncId
        correlationMetadata[MetadataKey.syncVersion] = String(version)
        let at = samples.first?.start ?? clock()
        let correlation = HealthCorrelation(
            uuid: HealthSample.naturalUUID(type: "correlation:food", sourceKey: source.key, start: at, end: at,
                                           value: .quantity(Double(version), unit: syncId)),
            type: "food", start: at, end: at, source: source, creationDate: clock(), metadata: correlationMetadata,
            members: samples.map(\.uuid))
        // A newer version replaces the old meal whole: nutrients it no longer has go with the old correlation.
        let stale = existing.flatMap { [$0.uuid] + $0.members }.filter { uuid in !samples.contains { $0.uuid == uuid } }
        return try await commit(samples: samples, correlations: [correlation], deletions: stale)
    }

    /// Logs one quantity of any writable type (``SampleType/isWritable``), or of a diet-app verb (`water`,
    /// `weight`): the unit must be one of the type's entry units (default the first), the metadata what the registry
    /// allows for it; then the write is checked as every write is (grants, dates, bounds in the canonical unit).
    ///
    /// ```swift
    /// try await service.acting(as: .mcp()).log(QuantityLog(type: "weight", value: 160, unit: "lb"))
    /// ```
    public func log(_ request: QuantityLog) async throws -> WriteResult {
        guard let name = DateRange.nonEmpty(request.type) else {
            throw HealthError(.invalidArgument, "type is required: a writable type (\(SampleTypeRegistry.writableTypes.map(\.identifier).joined(separator: ", "))) or \(SampleTypeRegistry.logShortcuts.keys.sorted().joined(separator: ", "))")
        }
        let type = try SampleTypeRegistry.loggable(name)
        try await authorizeWrite(type.identifier)
        let unit = try type.entryUnit(request.unit)
        let metadata = try type.normalizedMetadata(request.metadata ?? [:], strict: true)
        return try await save([SampleInput(type: type.identifier, value: request.value, unit: unit.unit, start: request.at,
                                           metadata: metadata.isEmpty ? nil : metadata, logId: request.logId,
                                           syncId: request.syncId, syncVersion: request.syncVersion)])
    }

    /// Logs a weight (`bodyMass`), default in kg: the `weight` shortcut of ``log(_:)``.
    public func logWeight(_ value: Double, unit: String? = nil, at: String? = nil, logId: String? = nil,
                          syncId: String? = nil, syncVersion: Int? = nil) async throws -> WriteResult {
        try await log(QuantityLog(type: "weight", value: value, unit: unit, at: at, logId: logId, syncId: syncId,
                                  syncVersion: syncVersion))
    }

    /// Logs water drunk (`dietaryWater`), default in mL: the `water` shortcut of ``log(_:)``.
    public func logWater(_ value: Double, unit: String? = nil, at: String? = nil, logId: String? = nil,
                         syncId: String? = nil, syncVersion: Int? = nil) async throws -> WriteResult {
        try await log(QuantityLog(type: "water", value: value, unit: unit, at: at, logId: logId, syncId: syncId,
                                  syncVersion: syncVersion))
    }

    /// Logs a workout. An unknown activity is an error listing close names, never a guess.
    public func logWorkout(_ log: WorkoutLog) async throws -> WriteResult {
        try await authorizeWrite("workout")
        guard let activity = try Self.activityTypes([log.activity])?.first else {
            throw HealthError(.invalidArgument, "activity is required")
        }
        let range = try self.range(start: log.start, end: log.end, defaultStart: "now")
        guard range.end > range.start else { throw HealthError(.invalidRange, "a workout ends after it starts") }
        guard range.end <= clock().addingTimeInterval(Self.futureTolerance) else {
            throw HealthError(.invalidRange, "\(iso(range.end)) is in the future; log a workout once it happened")
        }
        guard range.end.timeIntervalSince(range.start) <= 7 * 86_400 else {
            throw HealthError(.invalidRange, "a workout lasts at most 7 days")
        }
        if let energy = log.energy, !(0...20_000).contains(energy) || !energy.isFinite {
            throw HealthError(.invalidArgument, "energy must be 0 to 20,000 kcal")
        }
        let distance = try log.distance.map { text throws(HealthError) in try Self.distance(text) }
        let source = principal.source
        var metadata = [MetadataKey.wasUserEntered: principal.kind == .owner ? "1" : "0"]
        var deletions: [UUID] = []
        let version = log.syncVersion ?? 1
        var uuid: UUID?
        if let logId = DateRange.nonEmpty(log.logId) {
            try Self.checkIdentifier(logId, name: "log id")
            metadata[MetadataKey.logIdentifier] = logId
            metadata[MetadataKey.syncIdentifier] = "\(logId)#workout"
            metadata[MetadataKey.syncVersion] = String(version)
            let existing = try await ownedWorkouts(logId: logId)
            if let stored = existing.first, (Int(stored.metadata[MetadataKey.syncVersion] ?? "0") ?? 0) >= version {
                return WriteResult(objects: [.init(uuid: stored.uuid.uuidString, type: "workout")], inserted: 0,
                                   replaced: 0, unchanged: 1, anchor: String(try await store.currentAnchor()))
            }
            deletions = existing.map(\.uuid)
            uuid = HealthSample.naturalUUID(type: "workout:log", sourceKey: source.key, start: range.start,
                                            end: range.end, value: .quantity(Double(version), unit: logId))
        }
        let workout = HealthWorkout(uuid: uuid, activityType: activity, start: range.start, end: range.end,
                                    source: source, creationDate: clock(), metadata: metadata,
                                    utcOffset: homeTimeZone.secondsFromGMT(for: range.start),
                                    timeZone: homeTimeZone.identifier,
                                    totalDistance: distance.map { .init($0, "km") },
                                    totalEnergyBurned: log.energy.map { .init($0, "kcal") })
        return try await commit(samples: [], workouts: [workout], deletions: deletions)
    }

    /// `5km`, `3.1 mi`, `800 m` → km.
    static func distance(_ text: String) throws(HealthError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces)
        guard let value = Double(number), value.isFinite, value >= 0, value <= 1_000 * 1_000 else {
            throw HealthError(.invalidArgument, "distance must be a number with its unit, e.g. 5km, 3.1mi, 800m")
        }
        let km = try HealthUnit.parse(unit.isEmpty ? "km" : unit).convert(value, to: HealthUnit.parse("km"))
        guard km <= 1_000 else { throw HealthError(.invalidArgument, "a workout's distance is at most 1,000 km") }
        return km
    }

    /// This principal's food correlations with a log id, newest version first.
    func ownedCorrelations(logId: String) async throws -> [HealthCorrelation] {
        let key = principal.source.key
        return try await store.correlations(type: "food", start: nil, end: nil, limit: nil)
            .filter { $0.source.key == key && $0.metadata[MetadataKey.logIdentifier] == logId }
            .sorted { (Int($0.metadata[MetadataKey.syncVersion] ?? "0") ?? 0) > (Int($1.metadata[MetadataKey.syncVersion] ?? "0") ?? 0) }
    }

    /// This principal's workouts with a log id, newest version first.
    func ownedWorkouts(logId: String) async throws -> [HealthWorkout] {
        let key = principal.source.key
        return try await store.workouts(WorkoutQuery())
            .filter { $0.source.key == key && $0.metadata[MetadataKey.logIdentifier] == logId }
            .sorted { (Int($0.metadata[MetadataKey.syncVersion] ?? "0") ?? 0) > (Int($1.metadata[MetadataKey.syncVersion] ?? "0") ?? 0) }
    }
}
