import Foundation
import GRDB
import HealthBridgeKit

/// The diet app's own data: meals and weights, in the same SQLite file as the sync engine's outbox (so a meal and
/// its outbox entry are saved in one transaction).
struct DietStore {
    let db: DatabaseQueue

    init(path: String) throws {
        db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS meal (
                    id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, calories REAL NOT NULL, protein REAL NOT NULL,
                    carbs REAL NOT NULL, fat REAL NOT NULL, logged_at REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS weight (
                    id TEXT PRIMARY KEY NOT NULL, kg REAL NOT NULL, date REAL NOT NULL UNIQUE, source TEXT NOT NULL);
                """)
        }
    }

    func insertMeal(_ meal: HealthBridgeMeal, in db: Database) throws {
        try db.execute(sql: "INSERT INTO meal (id, name, calories, protein, carbs, fat, logged_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       arguments: [meal.id, meal.name ?? "Meal", meal.calories, meal.protein, meal.carbs, meal.fat,
                                   meal.loggedAt.timeIntervalSince1970])
    }

    /// Meals since `start`, oldest first.
    func meals(since start: Date) throws -> [(id: String, name: String, calories: Double, at: Date)] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM meal WHERE logged_at >= ? ORDER BY logged_at", arguments: [start.timeIntervalSince1970])
                .map { ($0["id"], $0["name"], $0["calories"], Date(timeIntervalSince1970: $0["logged_at"])) }
        }
    }

    /// The seed's `WeightRepository.fetchByDate`: dedup by date.
    func weight(at date: Date, in db: Database) throws -> Double? {
        try Double.fetchOne(db, sql: "SELECT kg FROM weight WHERE date = ?", arguments: [date.timeIntervalSince1970])
    }

    /// Saves a weight unless one exists at that date; true when saved.
    @discardableResult
    func saveWeight(_ kg: Double, at date: Date, source: String, in db: Database) throws -> Bool {
        guard try weight(at: date, in: db) == nil else { return false }
        try db.execute(sql: "INSERT INTO weight (id, kg, date, source) VALUES (?, ?, ?, ?)",
                       arguments: [UUID().uuidString.lowercased(), kg, date.timeIntervalSince1970, source])
        return true
    }

    func latestWeight() throws -> (kg: Double, date: Date, source: String)? {
        try db.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM weight ORDER BY date DESC LIMIT 1")
                .map { ($0["kg"], Date(timeIntervalSince1970: $0["date"]), $0["source"]) }
        }
    }
}
