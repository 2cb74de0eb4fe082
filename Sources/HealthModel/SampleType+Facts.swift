/// A unit a person may log a type in: the name they type and the HKUnit string it stands for.
///
/// ```swift
/// let bpm = EntryUnit("bpm", unit: "count/min")   // a name people type for an HKUnit string
/// let mL = EntryUnit("mL")                        // the name is the HKUnit string
/// ```
public struct EntryUnit: Sendable, Hashable, Codable {
    /// As people write it: `mL`, `lb`, `bpm`.
    public var name: String
    /// The HKUnit string it stands for (`bpm` is `count/min`).
    public var unit: String

    public init(_ name: String, unit: String? = nil) {
        self.name = name
        self.unit = unit ?? name
    }
}

/// A metadata entry a write of a type may carry, by its wire name, with its allowed values (stored as HealthKit
/// stores them: the key, and the value's raw value).
///
/// ```swift
/// let fact = MetadataFact(key: "HKMetadataKeyExample", name: "example",
///                         values: [CategoryValue(1, "first", exportName: "HKExampleFirst")])
/// fact.value(named: "first")?.rawValue   // 1
/// ```
public struct MetadataFact: Sendable, Hashable, Codable {
    /// HealthKit's key, as stored (`HKMetadataKey…`).
    public var key: String
    /// The name writes give it, snake case.
    public var name: String
    /// The allowed values (stored as their raw value); empty for free text.
    public var values: [CategoryValue]

    public init(key: String, name: String, values: [CategoryValue] = []) {
        self.key = key
        self.name = name
        self.values = values
    }

    /// The value named `text` in any accepted spelling: short name, HealthKit's name or raw value.
    public func value(named text: String) -> CategoryValue? {
        if let raw = Int(text) { return values.first { $0.rawValue == raw } }
        let lowered = text.lowercased()
        return values.first { $0.name.lowercased() == lowered || $0.exportName.lowercased() == lowered }
    }
}

/// How summaries and `latest` show a type.
public enum SummaryStyle: String, Sendable, Hashable, Codable {
    /// Cumulative quantities: a sum per bucket, merged across sources (steps, water).
    case total
    /// Discrete quantities: average, minimum, maximum, most recent (weight, heart rate, glucose).
    case levels
    /// Category types: time spent per value (stand hours, mindful minutes).
    case duration
    /// Sleep: per night (bedtime, wake time, stages), never as plain statistics.
    case nights
    /// Correlations and workouts: no statistics; read their samples.
    case none

    /// The statistics this style offers, by their wire names.
    public var statistics: [String] {
        switch self {
        case .total: ["sum"]
        case .levels: ["average", "min", "max", "most_recent"]
        case .duration: ["duration"]
        case .nights, .none: []
        }
    }
}

/// How the engine merges a category type's samples.
public enum CategoryHandling: String, Sendable, Hashable, Codable {
    /// Time per value, merged across sources by priority in one layer.
    case duration
    /// Sleep: nights 18:00 → 18:00, merged in two layers ("in bed" and the stages) so that a phone's in-bed interval
    /// and a watch's stages are both kept, never two devices' stages added together.
    case sleepStages
}

/// Facts about a type beyond its identity: what a person may log it in, how it is summarized, how its categories are
/// merged, which metadata a write may carry. The data lives in `SampleTypeRegistry+Writes.swift`.
///
/// ```swift
/// let weight = try SampleTypeRegistry.resolve("bodyMass")
/// weight.entryUnits.map(\.name)   // ["kg", "lb", "st", "g"]
/// weight.summaryStyle             // .levels
/// try SampleTypeRegistry.resolve("sleepAnalysis").categoryHandling   // .sleepStages
/// ```
extension SampleType {
    /// The units a person may log this type in, the default first; empty when the type is not writable through the
    /// generic quantity log.
    public var entryUnits: [EntryUnit] {
        guard isRegistered, kind == .quantity else { return [] }
        return SampleTypeRegistry.entryUnits[identifier] ?? []
    }

    /// Whether the generic quantity log takes this type.
    public var isWritable: Bool { !entryUnits.isEmpty }

    /// The metadata a write of this type may carry by name.
    public var writeMetadata: [MetadataFact] {
        guard isRegistered else { return [] }
        return SampleTypeRegistry.writeMetadata[identifier] ?? []
    }

    /// How summaries and `latest` show this type.
    public var summaryStyle: SummaryStyle {
        switch kind {
        case .quantity: isCumulative ? .total : .levels
        case .category: categoryHandling == .sleepStages ? .nights : .duration
        case .correlation, .workout: .none
        }
    }

    /// How the engine merges this category type; nil for other kinds.
    public var categoryHandling: CategoryHandling? {
        guard kind == .category else { return nil }
        return isRegistered ? SampleTypeRegistry.categoryHandling[identifier] ?? .duration : .duration
    }

    /// The entry unit named `name` (exact, then case-insensitive), or the default one when `name` is nil or empty.
    /// - Throws: ``HealthError`` `.invalidUnit` listing the entry units, `.invalidType` when the type is not writable.
    ///
    /// ```swift
    /// try SampleTypeRegistry.resolve("heartRate").entryUnit("bpm").unit   // "count/min"
    /// ```
    public func entryUnit(_ name: String?) throws(HealthError) -> EntryUnit {
        let units = entryUnits
        guard let first = units.first else {
            throw HealthError(.invalidType, "\(identifier) is not a type the quantity log writes; writable: \(SampleTypeRegistry.writableTypes.map(\.identifier).joined(separator: ", "))")
        }
        guard let name = name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return first }
        if let unit = units.first(where: { $0.name == name || $0.unit == name }) { return unit }
        if let unit = units.first(where: { $0.name.lowercased() == name.lowercased() }) { return unit }
        // Any other HKUnit string of the same dimension (`pt_us` of water, `oz` of weight) converts as before.
        if let canonical = canonicalUnit, let parsed = try? HealthUnit(name), let target = try? HealthUnit(canonical),
           parsed.isCompatible(with: target) {
            return EntryUnit(name, unit: name)
        }
        throw HealthError(.invalidUnit, "'\(name.prefix(40))' is not a unit \(identifier) is logged in; use \(units.map(\.name).joined(separator: ", "))")
    }

    /// Metadata given by wire name or HealthKit key, with values by name or raw value, as stored
    /// (HealthKit key → raw value). With `strict`, a key the registry does not declare for this type is refused;
    /// without, it is kept as given (a sample write's free HealthKit metadata).
    /// - Throws: ``HealthError`` `.invalidArgument` naming the key and its allowed values.
    ///
    /// ```swift
    /// try weight.normalizedMetadata(["HKMetadataKeyExternalUUID": "x"], strict: false)   // kept as given
    /// try weight.normalizedMetadata(["note": "x"], strict: true)   // throws: bodyMass takes no metadata 'note'
    /// ```
    public func normalizedMetadata(_ given: [String: String], strict: Bool) throws(HealthError) -> [String: String] {
        let facts = writeMetadata
        var result: [String: String] = [:]
        for (key, text) in given {
            let lowered = key.lowercased()
            guard let fact = facts.first(where: { $0.name.lowercased() == lowered || $0.key.lowercased() == lowered }) else {
                guard !strict else {
                    let accepted = facts.map(\.name)
                    throw HealthError(.invalidArgument, "\(identifier) takes no metadata '\(key.prefix(64))'\(accepted.isEmpty ? "" : "; accepted: " + accepted.joined(separator: ", "))")
                }
                result[key] = text
                continue
            }
            if fact.values.isEmpty {
                result[fact.key] = text
            } else if let value = fact.value(named: text.trimmingCharacters(in: .whitespaces)) {
                result[fact.key] = String(value.rawValue)
            } else {
                throw HealthError(.invalidArgument, "'\(text.prefix(64))' is not a \(fact.name) of \(identifier); use \(fact.values.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", "))")
            }
        }
        return result
    }
}

extension SampleType {
    /// The member types of a correlation type, by short identifier: what HealthKit authorizes a correlation through
    /// (an app never asks for `HKCorrelationTypeIdentifierFood`; it asks for the nutrients). Food: the dietary
    /// nutrient types; blood pressure: systolic and diastolic. Empty for any other type.
    ///
    /// ```swift
    /// try SampleTypeRegistry.resolve("bloodPressure").correlationMemberTypes
    /// // ["bloodPressureSystolic", "bloodPressureDiastolic"]
    /// try SampleTypeRegistry.resolve("food").correlationMemberTypes.contains("dietaryFiber")   // true
    /// ```
    public var correlationMemberTypes: [String] {
        SampleTypeRegistry.correlationMembers(of: self).map(\.identifier)
    }

    /// The member types every entry of a correlation holds: blood pressure is always a systolic and a diastolic value;
    /// a meal holds whichever nutrients it has (none is required). Empty for any other type.
    ///
    /// ```swift
    /// try SampleTypeRegistry.resolve("bloodPressure").correlationRequiredMemberTypes.count   // 2
    /// try SampleTypeRegistry.resolve("food").correlationRequiredMemberTypes                  // []
    /// ```
    public var correlationRequiredMemberTypes: [String] {
        identifier == "bloodPressure" ? correlationMemberTypes : []
    }
}
