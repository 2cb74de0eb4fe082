import Foundation

// The diet app's own types that the seed's HealthKit code assumes (§4's FoodLogRecord, §6's WeightLogRecord, the
// repositories and CurrentUser), with file-backed repositories: one JSON file each in the app's directory, written
// atomically (a new file renamed over the old one).

/// A logged meal, as the app keeps it.
///
/// ```swift
/// let meal = FoodLogRecord(id: "m1", calories: 320, protein: 11, carbs: 54, fat: 6, fiber: nil, notes: "Porridge", loggedAt: Date())
/// ```
struct FoodLogRecord: Codable, Equatable {
    var id: String
    /// kcal.
    var calories: Double
    /// Grams.
    var protein: Double
    var carbs: Double
    var fat: Double
    var fiber: Double?
    var notes: String?
    var loggedAt: Date
}

/// Where a weight entry came from.
enum WeightSource: String, Codable {
    case manual
    case healthkit
}

/// A weight entry, as the app keeps it (the fields §6 fills in).
///
/// ```swift
/// let entry = WeightLogRecord(id: UUID().uuidString, userId: CurrentUser.id, weight: 71.8, bodyFatPercent: nil,
///                             date: Date(), source: .manual, notes: nil, createdAt: Date(), synced: false)
/// ```
struct WeightLogRecord: Codable, Equatable {
    var id: String
    var userId: String
    /// Kilograms.
    var weight: Double
    var bodyFatPercent: Double?
    var date: Date
    var source: WeightSource
    var notes: String?
    var createdAt: Date
    var synced: Bool
}

/// The signed-in user of the app (one local user here).
enum CurrentUser {
    static let id = "local-user"
}

/// The app's weight entries.
protocol WeightRepository {
    /// The entry recorded at exactly `date`, if any.
    func fetchByDate(_ date: Date) async throws -> WeightLogRecord?
    func save(_ record: WeightLogRecord) async throws
    func all() async throws -> [WeightLogRecord]
}

/// The app's meals.
protocol FoodLogRepository {
    func fetch(id: String) async throws -> FoodLogRecord?
    func save(_ record: FoodLogRecord) async throws
    func delete(id: String) async throws
    func all() async throws -> [FoodLogRecord]
}

/// Reads and writes one JSON array file atomically.
struct JSONFile<Element: Codable> {
    let url: URL

    func load() throws -> [Element] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            // Dates as Foundation keeps them (seconds since 2001 as a Double): read back to the same instant, so
            // `fetchByDate` finds an entry by equality.
            return try JSONDecoder().decode([Element].self, from: Data(contentsOf: url))
        } catch {
            throw AppFileError(path: url.path, reason: "unreadable (\(error))")
        }
    }

    func store(_ elements: [Element]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(elements).write(to: url, options: .atomic)
    }
}

/// A file of the app's directory that cannot be read.
struct AppFileError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "\(path): \(reason)" }
}

/// Weight entries in `weights.json`; `didSave` sees each entry saved (the `launch` command prints them).
///
/// ```swift
/// let repo = FileWeightRepository(directory: appDir)
/// try await repo.save(entry)
/// ```
actor FileWeightRepository: WeightRepository {
    private let file: JSONFile<WeightLogRecord>
    private let didSave: (@Sendable (WeightLogRecord) -> Void)?

    init(directory: URL, didSave: (@Sendable (WeightLogRecord) -> Void)? = nil) {
        file = JSONFile(url: directory.appendingPathComponent("weights.json"))
        self.didSave = didSave
    }

    func fetchByDate(_ date: Date) async throws -> WeightLogRecord? {
        try file.load().first { $0.date == date }
    }

    func save(_ record: WeightLogRecord) async throws {
        var records = try file.load()
        records.removeAll { $0.id == record.id }
        records.append(record)
        try file.store(records)
        didSave?(record)
    }

    func all() async throws -> [WeightLogRecord] {
        try file.load()
    }
}

/// Meals in `meals.json`.
///
/// ```swift
/// let meals = FileFoodLogRepository(directory: appDir)
/// try await meals.save(meal)
/// ```
actor FileFoodLogRepository: FoodLogRepository {
    private let file: JSONFile<FoodLogRecord>

    init(directory: URL) {
        file = JSONFile(url: directory.appendingPathComponent("meals.json"))
    }

    func fetch(id: String) async throws -> FoodLogRecord? {
        try file.load().first { $0.id == id }
    }

    func save(_ record: FoodLogRecord) async throws {
        var records = try file.load()
        records.removeAll { $0.id == record.id }
        records.append(record)
        try file.store(records)
    }

    func delete(id: String) async throws {
        var records = try file.load()
        records.removeAll { $0.id == id }
        try file.store(records)
    }

    func all() async throws -> [FoodLogRecord] {
        try file.load()
    }
}
