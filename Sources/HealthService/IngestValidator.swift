import Foundation
import HealthAutoExport
import HealthModel

/// The checks every pushed object passes before the service keys, stores or audits it — the same ones a write
/// through the API passes (``SampleType/checkValue(_:)``, ``SampleType/checkCategory(_:)``, ``SampleDates``): a value
/// finite and within its type's bounds, dates from 1900 to a little after now, a span no longer than a year bucket.
/// What fails is counted per metric with its first reason, as the reader counts what it cannot map.
///
/// ```swift
/// var validator = IngestValidator(now: Date())
/// if validator.accepts(item) { entries.append(item) }
/// validator.rejected   // ["step_count": 1]
/// validator.reasons    // ["step_count": "1e+19 count is outside what stepCount can be (0…300000 count)"]
/// ```
struct IngestValidator {
    let now: Date
    private(set) var rejected: [String: Int] = [:]
    private(set) var reasons: [String: String] = [:]
    /// Types by identifier, resolved once per payload.
    private var types: [String: SampleType] = [:]

    init(now: Date) { self.now = now }

    /// Whether an item may be stored; when not, it is counted as rejected under its metric.
    mutating func accepts(_ item: HAEItem) -> Bool {
        do throws(HealthError) {
            try check(item)
            return true
        } catch {
            reject(item.metric, error.message)
            return false
        }
    }

    /// Whether a workout may be stored: dates, duration, energy, distance and heart rate within bounds.
    mutating func accepts(_ workout: HAEWorkout) -> Bool {
        do throws(HealthError) {
            let start = workout.start.seconds, end = workout.end
            try SampleDates.check(start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end),
                                  now: now, aheadAllowed: HealthService.ingestSampleAhead)
            guard workout.duration.isFinite, workout.duration >= 0, workout.duration <= end - start + 1 else {
                throw HealthError(.invalidArgument, "a workout whose duration is not within its start and end")
            }
            if let energy = workout.activeEnergy { try type("activeEnergyBurned").checkValue(energy) }
            if let distance = workout.distance { try type("distanceCycling").checkValue(distance) }
            if let rate = workout.heartRate {
                let heartRate = try type("heartRate")
                for value in [rate.minimum, rate.average, rate.maximum] { try heartRate.checkValue(value) }
            }
            return true
        } catch {
            reject("workouts", error.message)
            return false
        }
    }

    /// The item's metadata without a bucket minimum or maximum that its type could not hold.
    mutating func checkedMetadata(_ item: HAEItem) -> [String: String] {
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

    private mutating func check(_ item: HAEItem) throws(HealthError) {
        guard item.start.isFinite, item.end.isFinite else {
            throw HealthError(.invalidRange, "a date must be a finite instant")
        }
        let start = Date(timeIntervalSince1970: item.start), end = Date(timeIntervalSince1970: item.end)
        try SampleDates.check(start: start, end: end, now: now,
                              aheadAllowed: item.aggregated ? SampleDates.bucketAhead : HealthService.ingestSampleAhead)
        if let night = item.night {
            guard night.isFinite, night <= item.start, item.start - night <= SampleDates.longestSpan else {
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

    private mutating func type(_ identifier: String) throws(HealthError) -> SampleType {
        if let known = types[identifier] { return known }
        let resolved = try SampleTypeRegistry.resolve(identifier)
        types[identifier] = resolved
        return resolved
    }

    private mutating func reject(_ metric: String, _ reason: String) {
        rejected[metric, default: 0] += 1
        if reasons[metric] == nil { reasons[metric] = reason }
    }
}
