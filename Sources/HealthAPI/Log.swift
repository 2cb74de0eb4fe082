import Foundation
import HealthModel

// The diet app's and agents' logs: a meal, a workout.

/// A meal, as the diet app logs it (`HealthBridgeMeal`): one sample per nutrient given and a food correlation linking
/// them, written together.
///
/// ```swift
/// try await service.logFood(FoodLog(logId: "meal-42", name: "Porridge", calories: 320, protein: 11, carbs: 54, fat: 6))
/// ```
public struct FoodLog: Codable, Sendable, Hashable {
    public var logId: String
    /// A date expression; default now.
    public var loggedAt: String?
    public var name: String
    /// breakfast, lunch, dinner, snack… (kept as metadata).
    public var meal: String?
    /// kcal.
    public var calories: Double
    /// Grams.
    public var protein: Double
    public var carbs: Double
    public var fat: Double
    public var fiber: Double?
    public var sugar: Double?
    /// Milligrams, as on food labels.
    public var sodium: Double?
    /// Milligrams.
    public var cholesterol: Double?
    /// Grams.
    public var saturatedFat: Double?
    /// Greater than the stored version to replace a logged meal; default 1.
    public var syncVersion: Int?

    public init(logId: String, loggedAt: String? = nil, name: String, meal: String? = nil, calories: Double,
                protein: Double, carbs: Double, fat: Double, fiber: Double? = nil, sugar: Double? = nil,
                sodium: Double? = nil, cholesterol: Double? = nil, saturatedFat: Double? = nil, syncVersion: Int? = nil) {
        self.logId = logId; self.loggedAt = loggedAt; self.name = name; self.meal = meal; self.calories = calories
        self.protein = protein; self.carbs = carbs; self.fat = fat; self.fiber = fiber; self.sugar = sugar
        self.sodium = sodium; self.cholesterol = cholesterol; self.saturatedFat = saturatedFat
        self.syncVersion = syncVersion
    }

    enum CodingKeys: String, CodingKey {
        case logId = "log_id", loggedAt = "logged_at", name, meal, calories, protein, carbs, fat, fiber, sugar, sodium
        case cholesterol, saturatedFat = "saturated_fat", syncVersion = "sync_version"
    }

    /// The nutrients given, as samples of their types (sodium and cholesterol in mg).
    package var nutrients: [(type: String, value: Double, unit: String)] {
        var list: [(String, Double, String)] = [("dietaryEnergyConsumed", calories, "kcal"), ("dietaryProtein", protein, "g"),
                                               ("dietaryCarbohydrates", carbs, "g"), ("dietaryFatTotal", fat, "g")]
        if let fiber { list.append(("dietaryFiber", fiber, "g")) }
        if let sugar { list.append(("dietarySugar", sugar, "g")) }
        if let sodium { list.append(("dietarySodium", sodium, "mg")) }
        if let cholesterol { list.append(("dietaryCholesterol", cholesterol, "mg")) }
        if let saturatedFat { list.append(("dietaryFatSaturated", saturatedFat, "g")) }
        return list
    }
}

/// A workout, as an agent logs one: activity by name, start, end, energy, distance.
public struct WorkoutLog: Codable, Sendable, Hashable {
    /// Any HealthKit activity name, any case, or a short one (run, walk, cycle, swim, hike, strength…).
    public var activity: String
    public var start: String
    public var end: String
    /// kcal.
    public var energy: Double?
    /// A distance with its unit (`5km`, `3.1 mi`, `800m`).
    public var distance: String?
    public var logId: String?
    public var syncVersion: Int?

    public init(activity: String, start: String, end: String, energy: Double? = nil, distance: String? = nil,
                logId: String? = nil, syncVersion: Int? = nil) {
        self.activity = activity; self.start = start; self.end = end; self.energy = energy; self.distance = distance
        self.logId = logId; self.syncVersion = syncVersion
    }

    enum CodingKeys: String, CodingKey {
        case activity, start, end, energy, distance, logId = "log_id", syncVersion = "sync_version"
    }
}


extension FoodLog: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "log_id": .string("Your id for the meal: logging it again changes nothing."),
        "logged_at": .string("When: a date expression; default now."),
        "name": .string("What was eaten."), "meal": .string("breakfast, lunch, dinner or snack."),
        "calories": .number("kcal."), "protein": .number("g."), "carbs": .number("g."), "fat": .number("g."),
        "fiber": .number("g."), "sugar": .number("g."), "sodium": .number("mg."), "cholesterol": .number("mg."),
        "saturated_fat": .number("g."),
        "sync_version": .integer("Greater than the stored version to replace a logged meal; default 1.", minimum: 0),
    ], required: ["log_id", "name", "calories", "protein", "carbs", "fat"])
}

extension WorkoutLog: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "activity": .string("A HealthKit activity name, any case, or a short one (run, walk, cycle, swim, hike, strength…)."),
        "start": .string("A date expression."), "end": .string("A date expression."),
        "energy": .number("Active energy, kcal."), "distance": .string("Distance with its unit: 5km, 3.1 mi, 800m."),
        "log_id": WriteIdentifiers.properties["log_id"] ?? .string(),
        "sync_version": WriteIdentifiers.properties["sync_version"] ?? .integer(),
    ], required: ["activity", "start", "end"])
}
