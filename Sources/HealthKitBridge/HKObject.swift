import Foundation
import HealthModel
import Synchronization

/// Who wrote an object: HealthKit's `HKSource` (the server knows a source by its name).
public final class HKSource: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let bundleIdentifier: String

    init(name: String, bundleIdentifier: String = "") {
        self.name = name
        self.bundleIdentifier = bundleIdentifier
    }

    /// The app itself (HealthKit's `HKSource.default()`).
    public static func `default`() -> HKSource { HKSource(name: HKHealthStore.defaultSourceName) }

    public static func == (lhs: HKSource, rhs: HKSource) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }
}

/// A source at a version: HealthKit's `HKSourceRevision`.
public final class HKSourceRevision: Sendable {
    public let source: HKSource
    public let version: String?

    public init(source: HKSource, version: String?) {
        self.source = source
        self.version = version
    }
}

/// Everything HealthKit stores: HealthKit's `HKObject`.
///
/// Sendable: every stored property is a `let` of a Sendable type, except `stored`, a `Mutex`; subclasses add only
/// `let`s of Sendable types (`@unchecked` only because a non-final class cannot be checked).
open class HKObject: Hashable, @unchecked Sendable {
    /// The object's UUID: the server's for an object read back; a new one for an object the app creates.
    public let uuid: UUID
    let metadataValues: [String: HKMetadataValue]
    public let sourceRevision: HKSourceRevision
    /// The server's UUID once a save of an object made by the app was acknowledged (deletes use it).
    let stored = Mutex<UUID?>(nil)

    init(uuid: UUID, metadata: [String: HKMetadataValue], source: HKSourceRevision) {
        self.uuid = uuid
        self.metadataValues = metadata
        self.sourceRevision = source
    }

    /// The metadata, as HealthKit gives it (strings, numbers, dates, quantities).
    public var metadata: [String: Any]? {
        metadataValues.isEmpty ? nil : metadataValues.mapValues(\.anyValue)
    }

    /// The object's UUID on the server: read objects carry it; saved ones learn it from the save's answer.
    var serverUUID: UUID? { stored.withLock { $0 } }

    public static func == (lhs: HKObject, rhs: HKObject) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

/// A sample: an object with a type and a time span (HealthKit's `HKSample`).
open class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date

    init(type: HKSampleType, start: Date, end: Date, uuid: UUID, metadata: [String: HKMetadataValue],
         source: HKSourceRevision) {
        self.sampleType = type
        self.startDate = start
        self.endDate = end
        super.init(uuid: uuid, metadata: metadata, source: source)
    }

    public var hasUndeterminedDuration: Bool { endDate == .distantFuture }
}

/// A quantity sample: HealthKit's `HKQuantitySample`.
///
/// ```swift
/// let weight = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 72.4),
///                               start: Date(), end: Date(), metadata: ["Source": "DietApp"])
/// ```
public final class HKQuantitySample: HKSample, @unchecked Sendable {
    public let quantity: HKQuantity
    /// HealthKit's sample count (1: the server keeps samples whole).
    public var count: Int { 1 }
    public var quantityType: HKQuantityType {
        sampleType as? HKQuantityType ?? HKQuantityType(identifier: sampleType.identifier)
    }

    public init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
                metadata: [String: Any]?) {
        self.quantity = quantity
        super.init(type: quantityType, start: startDate, end: endDate, uuid: UUID(),
                   metadata: HKMetadata.sendable(metadata), source: HKSourceRevision(source: .default(), version: nil))
    }

    public convenience init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date,
                            end endDate: Date) {
        self.init(type: quantityType, quantity: quantity, start: startDate, end: endDate, metadata: nil)
    }

    init(read type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date, uuid: UUID,
         metadata: [String: HKMetadataValue], source: HKSourceRevision) {
        self.quantity = quantity
        super.init(type: type, start: start, end: end, uuid: uuid, metadata: metadata, source: source)
        stored.withLock { $0 = uuid }
    }
}

/// A category sample: HealthKit's `HKCategorySample` (`value` is HealthKit's raw value of the category).
public final class HKCategorySample: HKSample, @unchecked Sendable {
    public let value: Int
    public var categoryType: HKCategoryType {
        sampleType as? HKCategoryType ?? HKCategoryType(identifier: sampleType.identifier)
    }

    public init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date, metadata: [String: Any]?) {
        self.value = value
        super.init(type: type, start: startDate, end: endDate, uuid: UUID(), metadata: HKMetadata.sendable(metadata),
                   source: HKSourceRevision(source: .default(), version: nil))
    }

    public convenience init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date) {
        self.init(type: type, value: value, start: startDate, end: endDate, metadata: nil)
    }

    init(read type: HKCategoryType, value: Int, start: Date, end: Date, uuid: UUID,
         metadata: [String: HKMetadataValue], source: HKSourceRevision) {
        self.value = value
        super.init(type: type, start: start, end: end, uuid: uuid, metadata: metadata, source: source)
        stored.withLock { $0 = uuid }
    }
}

/// A workout: HealthKit's `HKWorkout`.
public final class HKWorkout: HKSample, @unchecked Sendable {
    public let workoutActivityType: HKWorkoutActivityType
    /// Seconds.
    public let duration: TimeInterval
    public let totalEnergyBurned: HKQuantity?
    public let totalDistance: HKQuantity?

    public init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date, duration: TimeInterval,
                totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?) {
        self.workoutActivityType = activityType
        self.duration = duration
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        super.init(type: HKObjectType.workoutType(), start: startDate, end: endDate, uuid: UUID(),
                   metadata: HKMetadata.sendable(metadata), source: HKSourceRevision(source: .default(), version: nil))
    }

    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date) {
        self.init(activityType: activityType, start: startDate, end: endDate, duration: endDate.timeIntervalSince(startDate),
                  totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
    }

    init(read activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval,
         energy: HKQuantity?, distance: HKQuantity?, uuid: UUID, metadata: [String: HKMetadataValue],
         source: HKSourceRevision) {
        self.workoutActivityType = activityType
        self.duration = duration
        self.totalEnergyBurned = energy
        self.totalDistance = distance
        super.init(type: HKObjectType.workoutType(), start: start, end: end, uuid: uuid, metadata: metadata, source: source)
        stored.withLock { $0 = uuid }
    }
}

/// A deleted object as an anchored query reports it: HealthKit's `HKDeletedObject`.
public final class HKDeletedObject: Hashable, Sendable {
    public let uuid: UUID
    let metadataValues: [String: HKMetadataValue]

    init(uuid: UUID, metadata: [String: HKMetadataValue]) {
        self.uuid = uuid
        self.metadataValues = metadata
    }

    /// The sync identifier of the deleted object, when it had one (HealthKit keeps only that metadata).
    public var metadata: [String: Any]? { metadataValues.isEmpty ? nil : metadataValues.mapValues(\.anyValue) }

    public static func == (lhs: HKDeletedObject, rhs: HKDeletedObject) -> Bool { lhs.uuid == rhs.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}
