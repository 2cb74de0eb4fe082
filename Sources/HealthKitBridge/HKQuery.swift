import Foundation
import HealthModel
import Synchronization

/// `limit` for "no limit" (HealthKit's `HKObjectQueryNoLimit`).
public let HKObjectQueryNoLimit = 0
/// Sort keys of sample queries (HealthKit's `HKSampleSortIdentifierStartDate` / `…EndDate`).
public let HKSampleSortIdentifierStartDate = "startDate"
public let HKSampleSortIdentifierEndDate = "endDate"

/// Options of ``HKQuery/predicateForSamples(withStart:end:options:)`` (HealthKit's `HKQueryOptions`).
public struct HKQueryOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The sample's start must fall in the range.
    public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
    /// The sample's end must fall in the range.
    public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)
}

/// The base of every query (HealthKit's `HKQuery`): its type, its predicate, and the predicates' factories.
///
/// Sendable: its stored properties are `let`s of Sendable types and a `Mutex`; `predicate` is an `NSPredicate` made
/// by the factories below (an immutable ``HKPredicate``) or by the app, only ever read.
open class HKQuery: @unchecked Sendable {
    public let objectType: HKObjectType?
    public let predicate: NSPredicate?
    let task = Mutex<Task<Void, Never>?>(nil)
    let cancelled = Mutex(false)

    init(objectType: HKObjectType?, predicate: NSPredicate?) {
        self.objectType = objectType
        self.predicate = predicate
    }

    public var sampleType: HKSampleType? { objectType as? HKSampleType }

    /// Starts the query's work; `body` throwing reports the error through the query's handler.
    func start(_ body: @escaping @Sendable (HKQuery) async throws -> Void) {
        let started = Task { [self] in
            do {
                try await body(self)
            } catch {
                if !isCancelled { fail(HKError.from(error)) }
            }
        }
        task.withLock { $0 = started }
    }

    /// The query's work (subclasses).
    func run(on connection: HealthKitConnection) async throws {
        throw HKError(.errorInvalidArgument, "\(Self.self) cannot be executed")
    }

    /// Reports a failure through the query's handler (subclasses).
    func fail(_ error: HKError) {}

    func cancel() {
        cancelled.withLock { $0 = true }
        task.withLock { $0?.cancel() }
    }

    var isCancelled: Bool { cancelled.withLock { $0 } || Task.isCancelled }

    /// The query's predicate as the kit understands it.
    var filter: HKPredicateSpec { HKPredicateSpec(predicate) }

    // MARK: Predicates

    /// Samples in a time range: overlapping it by default, or starting / ending in it with the options.
    ///
    /// ```swift
    /// let today = HKQuery.predicateForSamples(withStart: Calendar.current.startOfDay(for: Date()), end: Date(), options: .strictStartDate)
    /// ```
    public class func predicateForSamples(withStart startDate: Date?, end endDate: Date?,
                                          options: HKQueryOptions = []) -> NSPredicate {
        HKPredicate(.dateRange(start: startDate, end: endDate, options: options))
    }

    /// Objects whose metadata `key` has one of `allowedValues` (an app's own keys too).
    ///
    /// ```swift
    /// let meal = HKQuery.predicateForObjects(withMetadataKey: "DietAppLogId", allowedValues: ["meal-42"])
    /// ```
    public class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        HKPredicate(.metadata(key: key, values: allowedValues.compactMap { HKMetadataValue($0)?.wire }))
    }

    /// Objects that have metadata `key`.
    public class func predicateForObjects(withMetadataKey key: String) -> NSPredicate {
        HKPredicate(.metadata(key: key, values: nil))
    }

    /// Objects with these UUIDs.
    public class func predicateForObjects(with UUIDs: Set<UUID>) -> NSPredicate { HKPredicate(.uuids(UUIDs)) }

    /// The object with this UUID.
    public class func predicateForObject(with UUID: UUID) -> NSPredicate { HKPredicate(.uuids([UUID])) }

    /// Workouts of one activity type.
    public class func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKPredicate(.activity(workoutActivityType))
    }
}

/// What a predicate says, in a form the kit can send to the server and check on each object.
indirect enum HKPredicateSpec: Sendable {
    case all
    case none
    case dateRange(start: Date?, end: Date?, options: HKQueryOptions)
    case metadata(key: String, values: [String]?)
    case uuids(Set<UUID>)
    case activity(HKWorkoutActivityType)
    case and([HKPredicateSpec])
    case or([HKPredicateSpec])
    case not(HKPredicateSpec)
    /// A predicate the kit did not make (`NSPredicate(block:)`): evaluated on each object.
    case evaluated(NSPredicateBox)

    init(_ predicate: NSPredicate?) {
        guard let predicate else { self = .all; return }
        if let made = predicate as? HKPredicate { self = made.spec; return }
        if let compound = predicate as? NSCompoundPredicate {
            let parts = compound.subpredicates.map(HKPredicateSpec.init)
            switch compound.compoundPredicateType {
            case .and: self = .and(parts)
            case .or: self = .or(parts)
            case .not: self = .not(parts.first ?? .all)
            @unknown default: self = .and(parts)
            }
            return
        }
        self = .evaluated(NSPredicateBox(predicate))
    }

    /// The time range to ask the server for: the widest the predicate allows.
    var range: (start: Date?, end: Date?, options: HKQueryOptions)? {
        switch self {
        case .dateRange(let start, let end, let options): return (start, end, options)
        case .and(let parts): return parts.lazy.compactMap(\.range).first
        default: return nil
        }
    }

    /// The metadata condition to ask the server for, when the predicate requires one with values.
    var metadataCondition: (key: String, values: [String])? {
        switch self {
        case .metadata(let key, let values?): return (key, values)
        case .and(let parts): return parts.lazy.compactMap(\.metadataCondition).first
        default: return nil
        }
    }

    /// Whether `sample` satisfies the predicate (HealthKit's semantics for every case).
    func matches(_ sample: HKSample) -> Bool {
        switch self {
        case .all: return true
        case .none: return false
        case .dateRange(let start, let end, let options):
            let lower = start ?? .distantPast, upper = end ?? .distantFuture
            if options.contains(.strictStartDate), !(sample.startDate >= lower && sample.startDate <= upper) { return false }
            if options.contains(.strictEndDate), !(sample.endDate >= lower && sample.endDate <= upper) { return false }
            // Overlap: a sample that ends before the range or starts after it is out.
            return sample.endDate >= lower && sample.startDate <= upper && !(sample.startDate == upper && sample.endDate > upper)
        case .metadata(let key, let values):
            guard let value = sample.metadataValues[key] else { return false }
            return values.map { $0.contains(value.wire) } ?? true
        case .uuids(let uuids):
            return uuids.contains(sample.uuid) || sample.serverUUID.map(uuids.contains) == true
        case .activity(let type):
            return (sample as? HKWorkout)?.workoutActivityType == type
        case .and(let parts): return parts.allSatisfy { $0.matches(sample) }
        case .or(let parts): return parts.contains { $0.matches(sample) }
        case .not(let part): return !part.matches(sample)
        case .evaluated(let box): return box.predicate.evaluate(with: sample)
        }
    }
}

/// An app's own `NSPredicate`, only ever read (evaluated).
///
/// Sendable: the predicate is never mutated after the query is made; evaluating it reads it.
struct NSPredicateBox: @unchecked Sendable {
    let predicate: NSPredicate
    init(_ predicate: NSPredicate) { self.predicate = predicate }
}

/// The predicates ``HKQuery``'s factories make: an `NSPredicate` that carries what it means, so the kit can send the
/// range and the metadata condition to the server, and that evaluates like HealthKit's on an object.
///
/// Never shared across tasks by the kit itself: queries read its `spec` (a Sendable value) once, when they are made.
final class HKPredicate: NSPredicate {
    let spec: HKPredicateSpec

    init(_ spec: HKPredicateSpec) {
        self.spec = spec
        super.init(value: true)
    }

    required init?(coder: NSCoder) { nil }

    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        guard let sample = object as? HKSample else { return false }
        return spec.matches(sample)
    }
}
