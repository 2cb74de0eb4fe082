/// A workout's activity, as `HKWorkoutActivityType`: HealthKit's raw value and a short name.
///
/// ```swift
/// let run = WorkoutActivityType.named("HKWorkoutActivityTypeRunning")
/// run?.rawValue     // 37
/// run?.name         // "running"
/// run?.exportName   // "HKWorkoutActivityTypeRunning"
/// ```
public struct WorkoutActivityType: Sendable, Hashable, Codable, CustomStringConvertible {
    /// HealthKit's raw value, e.g. 37 for running, 3000 for other.
    public var rawValue: Int
    /// The short name used by HealthBridge's wire formats, e.g. `running`.
    public var name: String

    /// An activity type. Prefer ``named(_:)`` or ``all`` for HealthKit's own types.
    ///
    /// ```swift
    /// WorkoutActivityType(rawValue: 37, name: "running")
    /// ```
    public init(rawValue: Int, name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// The name in Apple's exports, e.g. `HKWorkoutActivityTypeRunning`.
    ///
    /// ```swift
    /// WorkoutActivityType.named("yoga")?.exportName   // "HKWorkoutActivityTypeYoga"
    /// ```
    public var exportName: String { "HKWorkoutActivityType" + name.capitalizingFirst }

    public var description: String { name }

    /// The activity type for any accepted spelling: short (`running`), capitalized (`Running`), export
    /// (`HKWorkoutActivityTypeRunning`) or raw value (`37`). Case-insensitive; surrounding spaces ignored.
    /// Nil for an unknown name or raw value.
    ///
    /// ```swift
    /// WorkoutActivityType.named("37")?.name                       // "running"
    /// WorkoutActivityType.named("HKWorkoutActivityTypeYoga")?.rawValue   // 57
    /// WorkoutActivityType.named("hiit")?.name                     // "highIntensityIntervalTraining"
    /// ```
    public static func named(_ s: String) -> WorkoutActivityType? {
        let trimmed = s.trimmingSpaces
        if let raw = Int(trimmed) { return byRawValue[raw] }
        return byFoldedName[trimmed.lowercased()]
    }

    /// Every HealthKit activity type, in raw value order.
    ///
    /// ```swift
    /// WorkoutActivityType.all.first?.name   // "americanFootball"
    /// ```
    public static let all: [WorkoutActivityType] = [
        (1, "americanFootball"), (2, "archery"), (3, "australianFootball"), (4, "badminton"), (5, "baseball"),
        (6, "basketball"), (7, "bowling"), (8, "boxing"), (9, "climbing"), (10, "cricket"), (11, "crossTraining"),
        (12, "curling"), (13, "cycling"), (14, "dance"), (15, "danceInspiredTraining"), (16, "elliptical"),
        (17, "equestrianSports"), (18, "fencing"), (19, "fishing"), (20, "functionalStrengthTraining"), (21, "golf"),
        (22, "gymnastics"), (23, "handball"), (24, "hiking"), (25, "hockey"), (26, "hunting"), (27, "lacrosse"),
        (28, "martialArts"), (29, "mindAndBody"), (30, "mixedMetabolicCardioTraining"), (31, "paddleSports"),
        (32, "play"), (33, "preparationAndRecovery"), (34, "racquetball"), (35, "rowing"), (36, "rugby"),
        (37, "running"), (38, "sailing"), (39, "skatingSports"), (40, "snowSports"), (41, "soccer"), (42, "softball"),
        (43, "squash"), (44, "stairClimbing"), (45, "surfingSports"), (46, "swimming"), (47, "tableTennis"),
        (48, "tennis"), (49, "trackAndField"), (50, "traditionalStrengthTraining"), (51, "volleyball"),
        (52, "walking"), (53, "waterFitness"), (54, "waterPolo"), (55, "waterSports"), (56, "wrestling"),
        (57, "yoga"), (58, "barre"), (59, "coreTraining"), (60, "crossCountrySkiing"), (61, "downhillSkiing"),
        (62, "flexibility"), (63, "highIntensityIntervalTraining"), (64, "jumpRope"), (65, "kickboxing"),
        (66, "pilates"), (67, "snowboarding"), (68, "stairs"), (69, "stepTraining"), (70, "wheelchairWalkPace"),
        (71, "wheelchairRunPace"), (72, "taiChi"), (73, "mixedCardio"), (74, "handCycling"), (75, "discSports"),
        (76, "fitnessGaming"), (77, "cardioDance"), (78, "socialDance"), (79, "pickleball"), (80, "cooldown"),
        (82, "swimBikeRun"), (83, "transition"), (84, "underwaterDiving"), (3000, "other"),
    ].map { WorkoutActivityType(rawValue: $0.0, name: $0.1) }

    // MARK: Lookup tables

    private static let byRawValue: [Int: WorkoutActivityType] = {
        var table: [Int: WorkoutActivityType] = [:]
        for type in all where table[type.rawValue] == nil { table[type.rawValue] = type }
        return table
    }()

    /// Lowercased short and export names, plus a few common abbreviations.
    private static let byFoldedName: [String: WorkoutActivityType] = {
        var table: [String: WorkoutActivityType] = [:]
        for type in all {
            for key in [type.name.lowercased(), type.exportName.lowercased()] where table[key] == nil {
                table[key] = type
            }
        }
        // Short names people and agents use (the agent bridge plan's run, walk, cycle among them).
        let abbreviations = ["hiit": 63, "hkworkoutactivitytypehiit": 63, "run": 37, "walk": 52, "cycle": 13, "bike": 13,
                             "ride": 13, "jog": 37, "jogging": 37, "swim": 46, "hike": 24, "row": 35, "strength": 50, "weights": 50, "lifting": 50]
        for (key, raw) in abbreviations where table[key] == nil {
            table[key] = byRawValue[raw]
        }
        return table
    }()
}

private extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
