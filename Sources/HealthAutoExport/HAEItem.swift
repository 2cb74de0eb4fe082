import Foundation
import HealthModel

/// One object of a Health Auto Export payload, mapped to HealthKit: a quantity or category sample, or a blood
/// pressure reading (a correlation of two samples). Values are in the type's canonical unit.
public struct HAEItem: Sendable {
    public enum Value: Sendable, Equatable {
        case quantity(Double)
        case category(Int)
        /// Systolic and diastolic, in mmHg.
        case bloodPressure(systolic: Double, diastolic: Double)
    }

    /// The metric's name in the payload (`step_count`).
    public var metric: String
    /// The HealthKit type (`stepCount`, `sleepAnalysis`, `bloodPressure`).
    public var type: String
    public var value: Value
    /// The canonical unit of a quantity (empty otherwise).
    public var unit: String
    /// Seconds since 1970.
    public var start: Double
    public var end: Double
    /// The UTC offset the date was written with.
    public var utcOffset: Int
    /// The source as sent: one device, or several joined by `|` for a merged total.
    public var source: String
    /// True for a bucket total or average computed by HealthKit over `start…end` (HAE's "aggregate data"), false for
    /// one sample as it was recorded.
    public var aggregated: Bool
    /// Extra facts: `HKBloodGlucoseMealTime`, a bucket's minimum and maximum heart rate…
    public var metadata: [String: String]
    /// For a stage of a night sent as totals: the night's start, which with the stage identifies it across sends
    /// (its end moves when the night's totals grow).
    public var night: Double? = nil
}

/// A workout of either version of HAE's workout format, mapped to HealthKit.
public struct HAEWorkout: Sendable {
    /// Version 2's id (HealthKit's UUID of the workout); nil in version 1.
    public var id: String?
    /// The name as sent (`Outdoor Run`) and HealthKit's activity type for it (`running`).
    public var name: String
    public var activityType: String
    public var start: HAEDate
    public var end: Double
    public var duration: Double
    /// kcal.
    public var activeEnergy: Double?
    /// Meters.
    public var distance: Double?
    /// Beats per minute over the workout, from its heart-rate data.
    public var heartRate: (minimum: Double, average: Double, maximum: Double)?
    public var route: RoutePointColumns
    public var metadata: [String: String]
}

/// What a payload held besides what was mapped: unknown metrics and sections, and items that could not be read.
public struct HAEReadSummary: Sendable, Equatable {
    /// Metric names (and other sections such as `stateOfMind`) HealthBridge does not know, with their item counts.
    public var unknown: [String: Int] = [:]
    /// Items of known metrics that were not stored, per metric.
    public var rejected: [String: Int] = [:]
    /// The first reason per metric with rejected items.
    public var reasons: [String: String] = [:]
    /// Items read per metric (mapped or not).
    public var items: [String: Int] = [:]

    mutating func reject(_ metric: String, _ reason: String) {
        rejected[metric, default: 0] += 1
        if reasons[metric] == nil { reasons[metric] = reason }
    }
}
