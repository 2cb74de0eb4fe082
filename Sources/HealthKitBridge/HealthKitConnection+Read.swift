import Foundation
import HealthAPI
import HealthModel

// Reading samples for the queries: the server narrows by type, time range and metadata; the kit applies the rest of
// the predicate with HealthKit's semantics.
extension HealthKitConnection {
    /// The widest range the server takes when a query has none (HealthKit's "all samples").
    static let allTimeStart = "1900-01-01T00:00:00Z"
    static let allTimeEnd = "2200-01-01T00:00:00Z"

    /// Samples of `type` matching `filter`, ordered by start date; at most `limit` (nil: all).
    func samples(of type: HKSampleType, _ filter: HKPredicateSpec, limit: Int?,
                 ascending: Bool) async throws(HKError) -> [HKSample] {
        if type is HKWorkoutType { return try await workouts(filter, limit: limit, ascending: ascending) }
        if type is HKCorrelationType {
            throw HKError(.errorInvalidArgument,
                          "\(type.identifier): query the member types of a correlation (a meal's nutrients) instead")
        }
        let (start, end) = Self.serverRange(filter)
        var request = SamplesRequest(type: type.serverName, start: start, end: end, limit: SamplesRequest.maxLimit,
                                     ascending: ascending, timeZone: "UTC")
        if let condition = filter.metadataCondition {
            request.metadataKey = condition.key
            request.metadataValues = condition.values
        }
        var found: [HKSample] = []
        while true {
            let page = try await post("health/samples/query", request, as: SamplesResult.self)
            for record in page.samples {
                guard let sample = Self.sample(record, type: type, unit: page.unit), filter.matches(sample) else { continue }
                found.append(sample)
                if let limit, found.count >= limit { return found }
            }
            guard let next = page.nextCursor, page.hasMore else { return found }
            request = SamplesRequest(cursor: next)
        }
    }

    private func workouts(_ filter: HKPredicateSpec, limit: Int?, ascending: Bool) async throws(HKError) -> [HKSample] {
        let (start, end) = Self.serverRange(filter)
        var query = [("start", start), ("end", end), ("limit", "500"), ("order", ascending ? "asc" : "desc"),
                     ("time_zone", "UTC")]
        var found: [HKSample] = []
        while true {
            let page = try await get("health/workouts", query, as: WorkoutsResult.self)
            for record in page.workouts {
                guard let workout = Self.workout(record), filter.matches(workout) else { continue }
                found.append(workout)
                if let limit, found.count >= limit { return found }
            }
            guard let next = page.nextCursor, page.hasMore else { return found }
            query = [("cursor", next)]
        }
    }

    /// The range to ask the server for: samples that start up to a day before the range may overlap it.
    static func serverRange(_ filter: HKPredicateSpec) -> (String, String) {
        guard let range = filter.range else { return (allTimeStart, allTimeEnd) }
        let lower = range.start.map { range.options.contains(.strictStartDate) ? $0 : $0.addingTimeInterval(-86_400) }
        // The server's end is exclusive; a sample starting exactly at the end still overlaps HealthKit's range.
        let upper = range.end.map { $0.addingTimeInterval(0.001) }
        return (lower.map { ISO8601.string($0) } ?? allTimeStart, upper.map { ISO8601.string($0) } ?? allTimeEnd)
    }

    // MARK: Records → objects

    static func date(_ text: String) -> Date? { ISO8601.date(text) }

    static func source(_ name: String) -> HKSourceRevision {
        HKSourceRevision(source: HKSource(name: name), version: nil)
    }

    /// A sample record of the server as HealthKit's object; nil when it cannot be read (never a crash).
    static func sample(_ record: SampleRecord, type: HKSampleType? = nil, unit pageUnit: String? = nil) -> HKSample? {
        guard let uuid = UUID(uuidString: record.uuid), let start = date(record.start), let end = date(record.end) else {
            return nil
        }
        let metadata = HKMetadata.fromWire(record.metadata)
        let source = source(record.source)
        if let value = record.value {
            let unit = HKUnit(from: record.unit ?? pageUnit ?? "count")
            let quantityType = type as? HKQuantityType ?? HKQuantityType(identifier: type?.identifier ?? "")
            return HKQuantitySample(read: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value), start: start,
                                    end: end, uuid: uuid, metadata: metadata, source: source)
        }
        if let category = record.category, let categoryType = type as? HKCategoryType {
            let raw = categoryType.registered.flatMap { SampleTypeRegistry.categoryValue(for: $0, exportValue: category) }?.rawValue ?? 0
            return HKCategorySample(read: categoryType, value: raw, start: start, end: end, uuid: uuid, metadata: metadata,
                                    source: source)
        }
        return nil
    }

    static func workout(_ record: WorkoutRecord) -> HKWorkout? {
        guard let uuid = UUID(uuidString: record.uuid), let start = date(record.start), let end = date(record.end) else {
            return nil
        }
        return HKWorkout(read: HKWorkoutActivityType(serverName: record.activityType), start: start, end: end,
                         duration: duration(record, start: start, end: end),
                         energy: record.energyKcal.map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) },
                         distance: record.distanceKm.map { HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: $0) },
                         uuid: uuid, metadata: [:], source: source(record.source))
    }

    /// The workout's duration in seconds. The server gives minutes to a tenth; when that is the span from start to
    /// end (no pause), the span is the exact duration.
    static func duration(_ record: WorkoutRecord, start: Date, end: Date) -> TimeInterval {
        let span = end.timeIntervalSince(start), given = record.durationMinutes * 60
        return abs(span - given) <= 3 ? span : given
    }

    /// A changed object of the change feed as HealthKit's object.
    static func object(_ change: ChangesResult.ChangedObject) -> HKSample? {
        if let workout = change.workout { return self.workout(workout) }
        guard let record = change.sample, let type = HKObjectType.of(serverName: change.type) as? HKSampleType else { return nil }
        return sample(record, type: type)
    }
}
