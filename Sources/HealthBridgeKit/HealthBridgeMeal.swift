import Foundation
import HealthAPI

/// A logged meal, the diet app's `HealthBridgeMeal` fields that go to HealthBridge (seed §4): the id that finds the
/// meal again (`deleteNutrition(logId:)`), when it was eaten, and its nutrients.
///
/// ```swift
/// let meal = HealthBridgeMeal(id: "meal-42", name: "Porridge", calories: 320, protein: 11, carbs: 54, fat: 6, loggedAt: Date())
/// try await manager.writeNutrition(from: meal)
/// ```
public struct HealthBridgeMeal: Codable, Sendable, Hashable, Identifiable {
    /// The app's id of the meal (`DietAppLogId`); writing the same id again changes nothing.
    public var id: String
    /// What it was (`HKMetadataKeyFoodType`); the seed's `notes`, or "Logged meal", when absent.
    public var name: String?
    /// breakfast, lunch, dinner, snack…
    public var mealType: String?
    /// kcal.
    public var calories: Double
    /// Grams.
    public var protein: Double
    public var carbs: Double
    public var fat: Double
    public var fiber: Double?
    public var sugar: Double?
    /// Milligrams.
    public var sodium: Double?
    /// Milligrams.
    public var cholesterol: Double?
    /// Grams.
    public var saturatedFat: Double?
    public var loggedAt: Date
    public var notes: String?
    /// Greater than the stored version to replace the meal on the server (an edited meal); default 1.
    public var version: Int

    public init(id: String, name: String? = nil, mealType: String? = nil, calories: Double, protein: Double,
                carbs: Double, fat: Double, fiber: Double? = nil, sugar: Double? = nil, sodium: Double? = nil,
                cholesterol: Double? = nil, saturatedFat: Double? = nil, loggedAt: Date = Date(), notes: String? = nil,
                version: Int = 1) {
        self.id = id; self.name = name; self.mealType = mealType; self.calories = calories; self.protein = protein
        self.carbs = carbs; self.fat = fat; self.fiber = fiber; self.sugar = sugar; self.sodium = sodium
        self.cholesterol = cholesterol; self.saturatedFat = saturatedFat; self.loggedAt = loggedAt; self.notes = notes
        self.version = version
    }

    /// The `POST /api/v1/log/food` body: the contract's ``FoodLog``.
    var body: FoodLog {
        FoodLog(logId: id, loggedAt: HealthBridgeDates.string(loggedAt), name: name ?? notes ?? "Logged meal",
                meal: mealType, calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber, sugar: sugar,
                sodium: sodium, cholesterol: cholesterol, saturatedFat: saturatedFat, syncVersion: version)
    }
}
