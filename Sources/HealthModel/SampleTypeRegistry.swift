/// The registry of HealthKit sample types HealthBridge knows: lookup by any accepted spelling, unknown-type handling
/// and "did you mean" suggestions. The data lives in `SampleTypeRegistry+Catalog.swift`.
///
/// ```swift
/// SampleTypeRegistry.registered("HKQuantityTypeIdentifierStepCount")?.identifier   // "stepCount"
/// SampleTypeRegistry.registered("heartrate")?.aggregation                        // .discrete
/// try SampleTypeRegistry.resolve("HKQuantityTypeIdentifierFutureThing").isRegistered  // false
/// try SampleTypeRegistry.resolve("stepcont")  // throws "unknown type 'stepcont'; did you mean stepCount?"
/// ```
public enum SampleTypeRegistry {
    /// Every registered type: quantity types, then category, correlation and workout types.
    ///
    /// ```swift
    /// SampleTypeRegistry.all.filter { $0.kind == .quantity }.count   // ≥ 60
    /// ```
    public static let all: [SampleType] = quantityCatalog + categoryCatalog + correlationCatalog + workoutCatalog

    /// The registered type for a short (`stepCount`) or prefixed (`HKQuantityTypeIdentifierStepCount`,
    /// `HKCategoryTypeIdentifierSleepAnalysis`, `HKCorrelationTypeIdentifierBloodPressure`, `HKWorkoutTypeIdentifier`,
    /// `HKDataTypeSleepDurationGoal`…) identifier. Exact match first, then a case-insensitive match; O(1), a dictionary
    /// lookup.
    ///
    /// ```swift
    /// SampleTypeRegistry.registered("HKQuantityTypeIdentifierVO2Max")?.identifier   // "vo2Max"
    /// SampleTypeRegistry.registered("SLEEPANALYSIS")?.kind                          // .category
    /// SampleTypeRegistry.registered("stepcont")                                     // nil
    /// ```
    public static func registered(_ identifier: String) -> SampleType? {
        if let type = index.exact[identifier] { return type }
        return index.folded[identifier.lowercased()]
    }

    /// A well-formed but unknown prefixed identifier (a type from a future iOS) as an unregistered `SampleType`, so
    /// that it can be stored and queried: ``SampleType/isRegistered`` false, the identifier kept exactly as given, the
    /// kind inferred from the prefix, no aggregation, unit or values. Nil for a registered identifier and for anything
    /// that is not `HKQuantityTypeIdentifier…`, `HKCategoryTypeIdentifier…` or `HKCorrelationTypeIdentifier…` followed
    /// by an ASCII name starting with a capital letter.
    ///
    /// ```swift
    /// let future = SampleTypeRegistry.unregistered("HKQuantityTypeIdentifierFutureThing")
    /// future?.identifier   // "HKQuantityTypeIdentifierFutureThing"
    /// future?.kind         // .quantity
    /// SampleTypeRegistry.unregistered("futureThing")   // nil
    /// ```
    public static func unregistered(_ identifier: String) -> SampleType? {
        guard registered(identifier) == nil else { return nil }
        for (prefix, kind) in inferablePrefixes where identifier.hasPrefix(prefix) {
            let name = identifier.dropFirst(prefix.count)
            guard isWellFormedTypeName(name) else { return nil }
            return SampleType(
                identifier: identifier,
                kind: kind,
                displayName: displayName(forShortIdentifier: lowerCamel(String(name))),
                isRegistered: false
            )
        }
        return nil
    }

    /// ``registered(_:)``, else ``unregistered(_:)``, else a `.invalidType` error naming up to three close matches
    /// (see ``suggestions(for:limit:)``), with the hint ``HealthError/Hint/listTypes``.
    ///
    /// ```swift
    /// try SampleTypeRegistry.resolve("HKCategoryTypeIdentifierSleepAnalysis").identifier   // "sleepAnalysis"
    /// try SampleTypeRegistry.resolve("stepcont")
    /// // HEALTH_INVALID_TYPE: unknown type 'stepcont'; did you mean stepCount?
    /// ```
    public static func resolve(_ identifier: String) throws(HealthError) -> SampleType {
        if let type = registered(identifier) ?? unregistered(identifier) { return type }
        throw HealthError(.invalidType, unknownTypeMessage(identifier), hint: .listTypes)
    }

    /// Up to `limit` registered short identifiers close to `identifier`, best first: common words (`steps`, `weight`,
    /// `hrv`), then small edit distances on lowercased short names, then names starting with it, then names
    /// containing it (or contained in it). Prefixes, case, `_`, `-` and spaces are ignored.
    ///
    /// ```swift
    /// SampleTypeRegistry.suggestions(for: "stepcont")        // ["stepCount", …]
    /// SampleTypeRegistry.suggestions(for: "heart", limit: 2) // ["heartRate", "heartRateRecoveryOneMinute"]
    /// ```
    public static func suggestions(for identifier: String, limit: Int = 3) -> [String] {
        guard limit > 0 else { return [] }
        let query = normalizedQuery(identifier)
        guard !query.isEmpty else { return [] }
        let queryScalars = Array(query.unicodeScalars)
        let threshold = queryScalars.count <= 4 ? 1 : (queryScalars.count <= 8 ? 2 : 3)

        var ranked: [(tier: Int, score: Int, name: String)] = []
        if let alias = suggestionAliases[query] { ranked.append((0, 0, alias)) }
        for (name, folded) in foldedNames {
            if folded == query {
                ranked.append((0, 1, name))
            } else if let distance = editDistance(queryScalars, Array(folded.unicodeScalars), limit: threshold) {
                ranked.append((1, distance * 1000 + folded.count, name))
            } else if query.count >= 3, folded.hasPrefix(query) {
                ranked.append((2, folded.count, name))
            } else if query.count >= 3, folded.contains(query) {
                ranked.append((3, folded.count, name))
            } else if folded.count >= 4, query.contains(folded) {
                ranked.append((4, -folded.count, name))
            }
        }
        ranked.sort { ($0.tier, $0.score, $0.name) < ($1.tier, $1.score, $1.name) }

        var seen = Set<String>()
        var result: [String] = []
        for entry in ranked where seen.insert(entry.name).inserted {
            result.append(entry.name)
            if result.count == limit { break }
        }
        return result
    }

    /// Strips HealthKit's prefixes: the short identifier of a registered type, else the prefix removed and the rest
    /// in lower camel case; anything else unchanged.
    ///
    /// ```swift
    /// SampleTypeRegistry.shortIdentifier("HKQuantityTypeIdentifierStepCount")    // "stepCount"
    /// SampleTypeRegistry.shortIdentifier("HKQuantityTypeIdentifierUVExposure")   // "uvExposure"
    /// SampleTypeRegistry.shortIdentifier("HKWorkoutTypeIdentifier")              // "workout"
    /// SampleTypeRegistry.shortIdentifier("HKQuantityTypeIdentifierFutureThing")  // "futureThing"
    /// ```
    public static func shortIdentifier(_ identifier: String) -> String {
        if let type = registered(identifier) { return type.identifier }
        for prefix in strippablePrefixes where identifier.hasPrefix(prefix) {
            let rest = identifier.dropFirst(prefix.count)
            if rest.isEmpty { return prefix == "HKWorkoutTypeIdentifier" ? "workout" : identifier }
            return lowerCamel(String(rest))
        }
        return identifier
    }

    /// The category value of `type` written as `exportValue` in an export or a request: any spelling
    /// ``SampleType/categoryValue(named:)`` accepts, plus the older export names HealthKit has since renamed
    /// (`HKCategoryValueSleepAnalysisAsleep` is asleepUnspecified, `HKCategoryValueOvulationTestResultPositive` is
    /// luteinizingHormoneSurge). For a category type that declares no values (mindfulSession, or an unregistered
    /// type), `HKCategoryValueNotApplicable`, `notApplicable` and `0` give the not-applicable value.
    ///
    /// ```swift
    /// let sleep = try SampleTypeRegistry.resolve("sleepAnalysis")
    /// SampleTypeRegistry.categoryValue(for: sleep, exportValue: "HKCategoryValueSleepAnalysisAsleep")?.name
    /// // "asleepUnspecified"
    /// ```
    public static func categoryValue(for type: SampleType, exportValue: String) -> CategoryValue? {
        if let value = type.categoryValue(named: exportValue) { return value }
        let lowered = exportValue.lowercased()
        if let raw = categoryValueAliases[type.identifier]?[lowered], type.isRegistered {
            return type.categoryValue(raw: raw)
        }
        if type.kind == .category, type.categoryValues.isEmpty,
           lowered == "hkcategoryvaluenotapplicable" || lowered == "notapplicable" || exportValue == "0" {
            return notApplicableValue
        }
        return nil
    }

    /// The quantity types a correlation may contain; empty for any other type.
    ///
    /// ```swift
    /// let bp = try SampleTypeRegistry.resolve("bloodPressure")
    /// SampleTypeRegistry.correlationMembers(of: bp).map(\.identifier)
    /// // ["bloodPressureSystolic", "bloodPressureDiastolic"]
    /// ```
    public static func correlationMembers(of type: SampleType) -> [SampleType] {
        guard type.kind == .correlation, type.isRegistered else { return [] }
        return (correlationMemberIdentifiers[type.identifier] ?? []).compactMap { registered($0) }
    }

    /// The registered types of one kind, in registry order.
    ///
    /// ```swift
    /// SampleTypeRegistry.types(of: .correlation).map(\.identifier)   // ["bloodPressure", "food"]
    /// ```
    public static func types(of kind: SampleKind) -> [SampleType] {
        all.filter { $0.kind == kind }
    }
}

extension SampleType {
    /// The identifier exactly as HealthKit spells it, for HealthKit APIs and exports. Unlike ``hkIdentifier`` it
    /// keeps HealthKit's irregular spellings: `HKQuantityTypeIdentifierUVExposure`, `HKQuantityTypeIdentifierVO2Max`,
    /// `HKDataTypeSleepDurationGoal`. An unregistered type keeps its identifier.
    ///
    /// ```swift
    /// try SampleTypeRegistry.resolve("uvExposure").healthKitIdentifier   // "HKQuantityTypeIdentifierUVExposure"
    /// ```
    public var healthKitIdentifier: String {
        guard isRegistered else { return identifier }
        return SampleTypeRegistry.healthKitIdentifierOverrides[identifier] ?? hkIdentifier
    }
}

// MARK: - Internals

extension SampleTypeRegistry {
    private struct Index: Sendable {
        var exact: [String: SampleType] = [:]
        var folded: [String: SampleType] = [:]
    }

    /// Every accepted spelling of every registered type. The first type to claim a spelling keeps it.
    private static let index: Index = {
        var index = Index()
        for type in all {
            for key in [type.identifier, type.healthKitIdentifier, type.hkIdentifier] {
                if index.exact[key] == nil { index.exact[key] = type }
            }
        }
        for type in all {
            for key in [type.identifier, type.healthKitIdentifier, type.hkIdentifier] {
                let folded = key.lowercased()
                if index.folded[folded] == nil { index.folded[folded] = type }
            }
        }
        return index
    }()

    /// Registered short identifiers with their lowercased forms, for suggestions.
    private static let foldedNames: [(name: String, folded: String)] = all.map {
        ($0.identifier, $0.identifier.lowercased())
    }

    private static let inferablePrefixes: [(String, SampleKind)] = [
        ("HKQuantityTypeIdentifier", .quantity),
        ("HKCategoryTypeIdentifier", .category),
        ("HKCorrelationTypeIdentifier", .correlation),
    ]

    /// Longest first where one prefix starts another.
    private static let strippablePrefixes = [
        "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier",
        "HKCharacteristicTypeIdentifier", "HKWorkoutTypeIdentifier", "HKDataTypeIdentifier", "HKDataType",
    ]

    private static let notApplicableValue = CategoryValue(
        0, "notApplicable", exportName: "HKCategoryValueNotApplicable"
    )

    /// The longest identifier quoted back in an error message.
    private static let maxQuotedLength = 80

    static func unknownTypeMessage(_ identifier: String) -> String {
        let quoted = identifier.count > maxQuotedLength
            ? String(identifier.prefix(maxQuotedLength)) + "…"
            : identifier
        let close = suggestions(for: identifier)
        guard let last = close.last else {
            return "unknown type '\(quoted)'"
        }
        let list = close.count == 1 ? last : close.dropLast().joined(separator: ", ") + " or " + last
        return "unknown type '\(quoted)'; did you mean \(list)?"
    }

    /// The short name of `identifier`, lowercased, without `_`, `-` or whitespace.
    private static func normalizedQuery(_ identifier: String) -> String {
        let short = shortIdentifier(identifier).lowercased()
        return String(short.unicodeScalars.filter { $0 != "_" && $0 != "-" && !$0.properties.isWhitespace })
    }

    /// A name after a type prefix: ASCII letters and digits, starting with a capital letter, at most 128 characters.
    private static func isWellFormedTypeName(_ name: Substring) -> Bool {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, scalars.count <= 128, ("A"..."Z").contains(first) else { return false }
        return scalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    /// `StepCount` → `stepCount`, `UVExposure` → `uvExposure`, `VO2Max` → `vo2Max`, `SDNN` → `sdnn`.
    static func lowerCamel(_ name: String) -> String {
        let chars = Array(name)
        var leadingUppercase = 0
        while leadingUppercase < chars.count, chars[leadingUppercase].isUppercase { leadingUppercase += 1 }
        guard leadingUppercase > 0 else { return name }
        // In "UVExposure" the last capital of the run starts the next word.
        var lowered = leadingUppercase
        if leadingUppercase > 1, leadingUppercase < chars.count, chars[leadingUppercase].isLowercase { lowered -= 1 }
        return chars[..<lowered].map { $0.lowercased() }.joined() + String(chars[lowered...])
    }

    /// A human name from a short identifier: `stepCount` → `Step Count`, `heartRateVariabilitySDNN` →
    /// `Heart Rate Variability SDNN`, `dietaryVitaminB12` → `Dietary Vitamin B12`.
    static func displayName(forShortIdentifier identifier: String) -> String {
        let chars = Array(identifier)
        var words: [String] = []
        var current = ""
        for (i, char) in chars.enumerated() {
            if i > 0, char.isUppercase {
                let previous = chars[i - 1]
                let nextIsLowercase = i + 1 < chars.count && chars[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(char)
        }
        if !current.isEmpty { words.append(current) }
        return words.map(\.capitalizingFirst).joined(separator: " ")
    }

    /// Optimal-string-alignment distance (insertions, deletions, substitutions, adjacent transpositions), or nil
    /// when it exceeds `limit`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
        guard abs(a.count - b.count) <= limit else { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return nil }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        let distance = previous[b.count]
        return distance <= limit ? distance : nil
    }
}
