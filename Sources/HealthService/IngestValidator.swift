import Foundation
import HealthModel

/// The checks every pushed object passes before the service keys, stores or audits it — the same ones a write
/// through the API passes (``SampleType/checkValue(_:)``, ``SampleType/checkCategory(_:)``, ``SampleDates``): a value
/// finite and within its type's bounds, dates from 1900 to a little after now, a span no longer than a year bucket.
/// What fails is counted per label (the payload's metric; `workouts`) with its first reason, as the reader counts what it
/// cannot map.
///
/// ```swift
/// var validator = IngestValidator(now: Date())
/// if validator.accepts(batch.samples[0]) { entries.append(0) }
/// validator.rejected   // ["step_count": 1]
/// validator.reasons    // ["step_count": "1e+19 count is outside what stepCount can be (0…300000 count)"]
/// ```
struct IngestValidator {
    let now: Date
    private(set) var rejected: [String: Int] = [:]
    private(set) var reasons: [String: String] = [:]
    /// Types by identifier, resolved once per payload.
    private var types: [String: SampleType] = [:]
    /// The last type resolved: a payload's samples come metric by metric, so most lookups hash nothing.
    private var lastType: (identifier: String, type: SampleType)?

    init(now: Date) { self.now = now }

    /// Whether a sample may be stored; when not, it is counted as rejected under its label.
    mutating func accepts(_ item: IngestBatch.Sample) -> Bool {
        do throws(HealthError) {
            try check(item)
            return true
        } catch {
            reject(item.label, error.message)
            return false
        }
    }

    /// Whether a workout may be stored: dates, duration, its totals (energy, distance) and statistics (heart rate)
    /// within their types' bounds.
    mutating func accepts(_ batched: IngestBatch.Workout) -> Bool {
        let workout = batched.workout
        do throws(HealthError) {
            try SampleDates.check(start: workout.start, end: workout.end, now: now,
                                  aheadAllowed: HealthService.ingestSampleAhead)
            let span = workout.end.timeIntervalSince1970 - workout.start.timeIntervalSince1970
            guard workout.duration.isFinite, workout.duration >= 0, workout.duration <= span + 1 else {
                throw HealthError(.invalidArgument, "a workout whose duration is not within its start and end")
            }
            if let energy = workout.totalEnergyBurned { try check(energy.value, energy.unit, as: "activeEnergyBurned") }
            if let distance = workout.totalDistance { try check(distance.value, distance.unit, as: "distanceCycling") }
            for statistic in workout.statistics {
                for value in [statistic.minimum, statistic.average, statistic.maximum, statistic.sum].compactMap({ $0 }) {
                    try check(value, statistic.unit, as: statistic.type)
                }
            }
            return true
        } catch {
            reject("workouts", error.message)
            return false
        }
    }

    /// The item's metadata without a bucket minimum or maximum that its type could not hold.
    mutating func checkedMetadata(_ item: IngestBatch.Sample) -> [String: String] {
        var metadata = item.metadata
        guard metadata["HealthBridgeMinimum"] != nil || metadata["HealthBridgeMaximum"] != nil,
              let type = try? type(item.type) else { return metadata }
        for key in ["HealthBridgeMinimum", "HealthBridgeMaximum"] {
            guard let text = metadata[key] else { continue }
            guard let value = Double(text), (try? type.checkValue(value)) != nil else {
                metadata[key] = nil
                continue
            }
        }
        return metadata
    }

    private mutating func check(_ item: IngestBatch.Sample) throws(HealthError) {
        guard item.start.timeIntervalSince1970.isFinite, item.end.timeIntervalSince1970.isFinite else {
            throw HealthError(.invalidRange, "a date must be a finite instant")
        }
        try SampleDates.check(start: item.start, end: item.end, now: now,
                              aheadAllowed: item.attribution == .writerTotals ? SampleDates.bucketAhead
                                  : HealthService.ingestSampleAhead)
        if let night = item.nightStart?.timeIntervalSince1970 {
            let start = item.start.timeIntervalSince1970
            guard night.isFinite, night <= start, start - night <= SampleDates.longestSpan else {
                throw HealthError(.invalidRange, "a sleep stage outside its night")
            }
        }
        switch item.value {
        case .quantity(let value):
            try type(item.type).checkValue(value)
        case .category(let value):
            try type(item.type).checkCategory(value)
        case .bloodPressure(let systolic, let diastolic):
            try type("bloodPressureSystolic").checkValue(systolic)
            try type("bloodPressureDiastolic").checkValue(diastolic)
        }
    }

    /// A value in `unit` (nil: the type's own) within the bounds of `identifier`, checked in the type's canonical unit.
    private mutating func check(_ value: Double, _ unit: String?, as identifier: String) throws(HealthError) {
        let type = try type(identifier)
        guard let unit, let canonical = type.canonicalUnit, canonical != unit else { return try type.checkValue(value) }
        try type.checkValue(HealthUnit.parse(unit).convert(value, to: HealthUnit.parse(canonical)))
    }

    private mutating func type(_ identifier: String) throws(HealthError) -> SampleType {
        if let lastType, lastType.identifier == identifier { return lastType.type }
        let resolved: SampleType
        if let known = types[identifier] { resolved = known } else {
            resolved = try SampleTypeRegistry.resolve(identifier)
            types[identifier] = resolved
        }
        lastType = (identifier, resolved)
        return resolved
    }

    private mutating func reject(_ metric: String, _ reason: String) {
        rejected[metric, default: 0] += 1
        if reasons[metric] == nil { reasons[metric] = reason }
    }
}
