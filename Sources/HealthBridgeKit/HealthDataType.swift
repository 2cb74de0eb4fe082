import Foundation
import HealthModel

/// A HealthKit sample type by its identifier without the `HKQuantityTypeIdentifier` prefix (`bodyMass`,
/// `dietaryEnergyConsumed`, `workout`), as the HealthBridge server names it. HealthKit's `HKQuantityType(.bodyMass)`
/// is `HealthDataType.bodyMass` here.
///
/// ```swift
/// let types: Set<HealthDataType> = [.bodyMass, .activeEnergyBurned, .workout]
/// let custom = HealthDataType("heartRate")
/// ```
public struct HealthDataType: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ identifier: String) { self.rawValue = identifier }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: HealthDataType, b: HealthDataType) -> Bool { a.rawValue < b.rawValue }

    public static let bodyMass: HealthDataType = "bodyMass"
    public static let bodyFatPercentage: HealthDataType = "bodyFatPercentage"
    public static let leanBodyMass: HealthDataType = "leanBodyMass"
    public static let activeEnergyBurned: HealthDataType = "activeEnergyBurned"
    public static let basalEnergyBurned: HealthDataType = "basalEnergyBurned"
    public static let stepCount: HealthDataType = "stepCount"
    public static let workout: HealthDataType = "workout"
    /// Workout routes (HealthKit's `HKSeriesType.workoutRoute()`): their GPS points need this read grant of their own;
    /// with only `workout`, a workout looks as if it had no route.
    public static let workoutRoute: HealthDataType = "workoutRoute"
    public static let dietaryEnergyConsumed: HealthDataType = "dietaryEnergyConsumed"
    public static let dietaryProtein: HealthDataType = "dietaryProtein"
    public static let dietaryCarbohydrates: HealthDataType = "dietaryCarbohydrates"
    public static let dietaryFatTotal: HealthDataType = "dietaryFatTotal"
    public static let dietaryFiber: HealthDataType = "dietaryFiber"
    public static let dietarySugar: HealthDataType = "dietarySugar"
    public static let dietarySodium: HealthDataType = "dietarySodium"
    public static let dietaryCholesterol: HealthDataType = "dietaryCholesterol"
    public static let dietaryFatSaturated: HealthDataType = "dietaryFatSaturated"
    public static let dietaryWater: HealthDataType = "dietaryWater"
    /// The food correlation a meal's nutrients are linked by (written with every meal).
    public static let food: HealthDataType = "food"

    /// The registry's type, for any spelling (`bodyMass`, `HKQuantityTypeIdentifierBodyMass`); nil when the
    /// registry does not know it.
    ///
    /// ```swift
    /// HealthDataType("HKQuantityTypeIdentifierBodyMass").sampleType?.identifier   // "bodyMass"
    /// ```
    public var sampleType: SampleType? { SampleTypeRegistry.registered(rawValue) }

    /// The units this type is logged in, the default first (the registry's entry units); empty when the generic
    /// quantity log does not take it.
    ///
    /// ```swift
    /// HealthDataType.bodyMass.entryUnits.map(\.name)   // ["kg", "lb", "st", "g"]
    /// ```
    public var entryUnits: [EntryUnit] { sampleType?.entryUnits ?? [] }

    /// The registry's type by its short identifier.
    public init(_ type: SampleType) { self.rawValue = type.identifier }

    /// Every type the registry knows, in registry order.
    public static let all: [HealthDataType] = SampleTypeRegistry.all.map(HealthDataType.init)

    /// Every type ``HealthBridgeManager/save(quantity:value:unit:date:metadata:syncId:syncVersion:)`` and
    /// ``SyncEngine/log(quantity:value:unit:date:metadata:syncId:)`` take.
    public static let writable: [HealthDataType] = SampleTypeRegistry.writableTypes.map(HealthDataType.init)
}

/// The diet app's permission sets (seed §2), HealthKit's `HealthKitPermissions` with HealthBridge type names.
///
/// ```swift
/// try await manager.requestAuthorization(toShare: HealthBridgePermissions.onboardingWriteTypes,
///                                        read: HealthBridgePermissions.onboardingReadTypes)
/// ```
public enum HealthBridgePermissions {
    /// Types the diet app reads.
    public static let readTypes: Set<HealthDataType> = [
        .bodyMass, .bodyFatPercentage, .leanBodyMass, .activeEnergyBurned, .basalEnergyBurned, .stepCount,
        .dietaryWater, .workout,
    ]
    /// Types the diet app writes. A meal (a food correlation) needs no type of its own: as in HealthKit, it is
    /// authorized through the nutrient types it contains.
    public static let writeTypes: Set<HealthDataType> = [
        .dietaryEnergyConsumed, .dietaryProtein, .dietaryCarbohydrates, .dietaryFatTotal, .dietaryFiber, .dietarySugar,
        .dietarySodium, .dietaryCholesterol, .dietaryFatSaturated, .dietaryWater, .bodyMass,
    ]
    /// The minimal set for onboarding.
    public static let onboardingReadTypes: Set<HealthDataType> = [.bodyMass, .activeEnergyBurned, .workout]
    public static let onboardingWriteTypes: Set<HealthDataType> = [
        .dietaryEnergyConsumed, .dietaryProtein, .dietaryCarbohydrates, .dietaryFatTotal,
    ]
    /// What the owner sees next to each type (the app's usage descriptions: the seed's §1 purposes), for every type
    /// of the read and write sets.
    public static let reasons: [HealthDataType: String] = [
        .bodyMass: "Track weight trends and write weight entries",
        .bodyFatPercentage: "Body composition",
        .leanBodyMass: "Muscle tracking",
        .activeEnergyBurned: "Adjust calorie goals to activity",
        .basalEnergyBurned: "TDEE calculation",
        .stepCount: "Activity indicator",
        .workout: "Exercise adjustments",
        .dietaryWater: "Hydration sync",
        .dietaryEnergyConsumed: "Log calories of meals",
        .dietaryProtein: "Log protein",
        .dietaryCarbohydrates: "Log carbs",
        .dietaryFatTotal: "Log fat",
        .dietaryFiber: "Log fiber",
        .dietarySugar: "Log sugar",
        .dietarySodium: "Log sodium",
        .dietaryCholesterol: "Log cholesterol",
        .dietaryFatSaturated: "Log saturated fat",
    ]
}
