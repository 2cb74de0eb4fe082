/// What kind of object a sample type describes.
public enum SampleKind: String, Sendable, Hashable, Codable, CaseIterable {
    case quantity, category, correlation, workout
}

/// How quantities of a type combine over time, as `HKQuantityAggregationStyle`.
public enum AggregationStyle: String, Sendable, Hashable, Codable {
    /// Values add up over time (steps, energy, water). Statistics: sum.
    case cumulative
    /// Values are levels (heart rate, body mass). Statistics: average, min, max, most recent.
    case discrete
}

/// One allowed value of a category type, e.g. sleepAnalysis `asleepDeep` = 4.
public struct CategoryValue: Sendable, Hashable, Codable {
    /// HealthKit's raw value.
    public var rawValue: Int
    /// The short name used by HealthBridge's wire formats, e.g. `asleepDeep`.
    public var name: String
    /// The name in Apple's exports, e.g. `HKCategoryValueSleepAnalysisAsleepDeep`.
    public var exportName: String

    public init(_ rawValue: Int, _ name: String, exportName: String) {
        self.rawValue = rawValue
        self.name = name
        self.exportName = exportName
    }
}

/// A sample type: its identifier, kind, aggregation style, canonical unit and allowed category values.
///
/// Identifiers are the short HealthKit names (`stepCount`, `sleepAnalysis`); ``hkIdentifier`` gives the prefixed form
/// used in exports (`HKQuantityTypeIdentifierStepCount`). A type the registry does not know (from a future iOS) is
/// still a `SampleType`, with ``isRegistered`` false, so that it can be stored and queried, never dropped.
///
/// ```swift
/// let steps = try SampleTypeRegistry.resolve("HKQuantityTypeIdentifierStepCount")
/// steps.identifier      // "stepCount"
/// steps.aggregation     // .cumulative
/// steps.canonicalUnit   // "count"
/// ```
public struct SampleType: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The short identifier, e.g. `stepCount`. For unregistered types, the identifier as given.
    public var identifier: String
    public var kind: SampleKind
    /// Quantity types only.
    public var aggregation: AggregationStyle?
    /// Quantity types only: the unit statistics are reported in, as an HKUnit string.
    public var canonicalUnit: String?
    /// Category types only: the allowed values. Empty for types whose samples carry no value (mindfulSession).
    public var categoryValues: [CategoryValue]
    /// A human name, e.g. `Step Count`.
    public var displayName: String
    /// False for a type found in data but unknown to this version's registry.
    public var isRegistered: Bool

    public init(
        identifier: String,
        kind: SampleKind,
        aggregation: AggregationStyle? = nil,
        canonicalUnit: String? = nil,
        categoryValues: [CategoryValue] = [],
        displayName: String,
        isRegistered: Bool = true
    ) {
        self.identifier = identifier
        self.kind = kind
        self.aggregation = aggregation
        self.canonicalUnit = canonicalUnit
        self.categoryValues = categoryValues
        self.displayName = displayName
        self.isRegistered = isRegistered
    }

    public var description: String { identifier }

    /// The prefixed identifier used by HealthKit and in exports, e.g. `HKQuantityTypeIdentifierStepCount`.
    public var hkIdentifier: String {
        if !isRegistered { return identifier }
        if let spelled = SampleTypeRegistry.healthKitIdentifierOverrides[identifier] { return spelled }
        switch kind {
        case .workout: return "HKWorkoutTypeIdentifier"
        case .quantity: return "HKQuantityTypeIdentifier" + identifier.capitalizingFirst
        case .category:
            // HealthKit spells a few category identifiers with a data-type prefix of its own.
            return identifier == "audioExposureEvent"
                ? "HKCategoryTypeIdentifierAudioExposureEvent"
                : "HKCategoryTypeIdentifier" + identifier.capitalizingFirst
        case .correlation: return "HKCorrelationTypeIdentifier" + identifier.capitalizingFirst
        }
    }

    public var isCumulative: Bool { aggregation == .cumulative }

    /// The category value with this raw value, if the type declares it.
    public func categoryValue(raw: Int) -> CategoryValue? {
        categoryValues.first { $0.rawValue == raw }
    }

    /// The category value named `name` in any accepted spelling: short (`asleepDeep`), export
    /// (`HKCategoryValueSleepAnalysisAsleepDeep`) or its raw value as a string (`"4"`).
    public func categoryValue(named name: String) -> CategoryValue? {
        if let raw = Int(name) { return categoryValue(raw: raw) }
        let lowered = name.lowercased()
        return categoryValues.first {
            $0.name.lowercased() == lowered || $0.exportName.lowercased() == lowered
        }
    }
}

extension String {
    var capitalizingFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }

    var lowercasingFirst: String {
        guard let first else { return self }
        return first.lowercased() + dropFirst()
    }
}
