import Foundation
import HealthModel

/// A HealthKit type identifier of quantity types, with HealthKit's raw value (`HKQuantityTypeIdentifierBodyMass`).
///
/// ```swift
/// let weight = HKQuantityType(.bodyMass)
/// ```
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A HealthKit type identifier of category types (`HKCategoryTypeIdentifierSleepAnalysis`).
///
/// ```swift
/// let sleep = HKCategoryType(.sleepAnalysis)
/// ```
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A HealthKit correlation type identifier (`HKCorrelationTypeIdentifierFood`).
///
/// ```swift
/// let meal = HKCorrelationType(.food)
/// ```
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// HealthKit's `HKWorkoutTypeIdentifier`.
public let HKWorkoutTypeIdentifier = "HKWorkoutTypeIdentifier"

/// Every HealthKit data type: HealthKit's `HKObjectType`. Two instances with the same identifier are equal, so sets
/// of types behave as in HealthKit.
///
/// ```swift
/// let read: Set<HKObjectType> = [HKQuantityType(.bodyMass), HKWorkoutType.workoutType()]
/// ```
///
/// Sendable: every stored property is a `let` of a Sendable type; subclasses add none (`@unchecked` only because a
/// non-final class cannot be checked).
open class HKObjectType: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// HealthKit's identifier (`HKQuantityTypeIdentifierBodyMass`).
    public let identifier: String

    init(identifier: String) { self.identifier = identifier }

    /// The server's name of the type (`bodyMass`, `workout`).
    var serverName: String { SampleTypeRegistry.shortIdentifier(identifier) }

    /// The registry's facts about the type, when it is registered.
    var registered: SampleType? { SampleTypeRegistry.registered(serverName) }

    public static func == (lhs: HKObjectType, rhs: HKObjectType) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier }

    /// HealthKit's factory: nil for an identifier that is not a quantity type.
    ///
    /// ```swift
    /// let steps = HKObjectType.quantityType(forIdentifier: .stepCount)
    /// ```
    public class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
        let type = HKQuantityType(identifier)
        return type.registered.map { $0.kind == .quantity } ?? identifier.rawValue.hasPrefix("HKQuantityTypeIdentifier") ? type : nil
    }

    /// HealthKit's factory for category types.
    public class func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        let type = HKCategoryType(identifier)
        return type.registered.map { $0.kind == .category } ?? identifier.rawValue.hasPrefix("HKCategoryTypeIdentifier") ? type : nil
    }

    /// HealthKit's factory for correlation types.
    public class func correlationType(forIdentifier identifier: HKCorrelationTypeIdentifier) -> HKCorrelationType? {
        let type = HKCorrelationType(identifier)
        return type.registered?.kind == .correlation ? type : nil
    }

    /// HealthKit's workout type.
    public class func workoutType() -> HKWorkoutType { HKWorkoutType(identifier: HKWorkoutTypeIdentifier) }

    /// The type of a server name (`bodyMass`), as the right subclass.
    static func of(serverName name: String) -> HKObjectType {
        let type = SampleTypeRegistry.registered(name)
        let identifier = type?.healthKitIdentifier ?? name
        switch type?.kind {
        case .quantity: return HKQuantityType(HKQuantityTypeIdentifier(rawValue: identifier))
        case .category: return HKCategoryType(HKCategoryTypeIdentifier(rawValue: identifier))
        case .correlation: return HKCorrelationType(HKCorrelationTypeIdentifier(rawValue: identifier))
        case .workout: return HKWorkoutType(identifier: HKWorkoutTypeIdentifier)
        default: return HKSampleType(identifier: identifier)
        }
    }
}

/// The types of samples (HealthKit's `HKSampleType`).
open class HKSampleType: HKObjectType, @unchecked Sendable {
    /// HealthKit's `isMinimumDurationRestricted` and friends are not modelled; every sample type allows any duration.
    public var allowsRecalibrationForEstimates: Bool { false }
}

/// How statistics combine a quantity type's samples (HealthKit's `HKQuantityAggregationStyle`).
public enum HKQuantityAggregationStyle: Int, Sendable {
    case cumulative = 0
    case discreteArithmetic = 1
    case discreteTemporallyWeighted = 2
    case discreteEquivalentContinuousLevel = 3

    /// HealthKit's older name for `discreteArithmetic`.
    public static let discrete = HKQuantityAggregationStyle.discreteArithmetic
}

/// A quantity type: `HKQuantityType(.bodyMass)`.
///
/// ```swift
/// let weight = HKQuantityType(.bodyMass)
/// weight.is(compatibleWith: .pound())   // true
/// ```
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    public convenience init(_ identifier: HKQuantityTypeIdentifier) { self.init(identifier: identifier.rawValue) }

    /// How statistics combine the type's samples.
    public var aggregationStyle: HKQuantityAggregationStyle {
        registered?.aggregation == .cumulative ? .cumulative : .discreteArithmetic
    }

    /// Whether `unit` measures what this type measures (`kg` and `lb` for body mass).
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        guard let canonical = registered?.canonicalUnit, let own = try? HealthUnit(canonical) else { return false }
        return own.isCompatible(with: unit.healthUnit)
    }
}

/// A category type: `HKCategoryType(.sleepAnalysis)`.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    public convenience init(_ identifier: HKCategoryTypeIdentifier) { self.init(identifier: identifier.rawValue) }
}

/// A correlation type: `HKCorrelationType(.food)`. As in HealthKit, an app never asks for a correlation type: a
/// meal is authorized through the types of its members.
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
    public convenience init(_ identifier: HKCorrelationTypeIdentifier) { self.init(identifier: identifier.rawValue) }
}

/// The workout type: `HKWorkoutType.workoutType()` (or `HKObjectType.workoutType()`).
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {}
