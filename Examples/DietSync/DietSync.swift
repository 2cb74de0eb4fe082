import ArgumentParser
import Foundation
import GRDB
import HealthBridgeKit
import Logging
import Synchronization

/// A small diet log that keeps meals and weights in its own SQLite file and syncs them with HealthBridge through
/// HealthBridgeKit: pair, ask for access, log meals, water and weight, delete a meal, see today's calories in against
/// TDEE, and pick up weights written elsewhere.
@main
struct DietSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diet-sync",
        abstract: "A small diet log that syncs with HealthBridge (an example of HealthBridgeKit).",
        subcommands: [Pair.self, Authorize.self, Meal.self, DeleteMeal.self, Weight.self, Water.self, Today.self,
                      Watch.self, Sync.self])
}

struct AppOptions: ParsableArguments {
    @Option(help: "The app's data directory (default: $DIETSYNC_HOME, else ~/.diet-sync).") var dir: String?

    var directory: URL {
        if let dir { return URL(fileURLWithPath: dir) }
        if let env = ProcessInfo.processInfo.environment["DIETSYNC_HOME"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".diet-sync")
    }

    static let appId = "org.example.dietsync"

    func open() throws -> (DietStore, HealthBridgeManager, SyncEngine) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var logger = Logger(label: "diet-sync")
        logger.logLevel = .critical
        let store = try DietStore(path: directory.appendingPathComponent("diet.sqlite").path)
        let manager = try HealthBridgeManager(appId: Self.appId,
                                              credentialsFile: directory.appendingPathComponent("healthbridge.json"),
                                              timeout: .seconds(10), logger: logger)
        let engine = try SyncEngine(manager: manager, database: store.db, logger: logger)
        return (store, manager, engine)
    }
}

/// Prints a line at once (unbuffered): `watch` is read by other programs while it runs.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func describe(_ entry: OutboxEntry) -> String {
    switch entry.status {
    case .synced: "synced with HealthBridge"
    case .pending: "saved; queued for HealthBridge (\(entry.lastError ?? "will retry"))"
    case .denied: "saved; HealthBridge refused it: not authorized (`diet-sync authorize`, then the owner approves)"
    case .invalid, .conflict: "saved; HealthBridge refused it (\(entry.status.rawValue)): \(entry.lastError ?? "")"
    }
}

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair with `healthbridge serve` (get a code for this app with `healthbridge pair-code --json --app org.example.dietsync`).")
    @OptionGroup var app: AppOptions
    @Option(help: "The QR payload (JSON from `healthbridge pair-code --json --app org.example.dietsync`).") var qr: String?
    @Option var host: String?
    @Option var port: Int?
    @Option var code: String?
    @Option var fingerprint: String?

    func run() async throws {
        let (_, manager, _) = try app.open()
        if let qr {
            try await manager.pair(qrPayload: qr, clientName: "DietSync")
        } else if let host, let port, let code, let fingerprint {
            try await manager.pair(host: host, port: port, code: code, fingerprint: fingerprint, clientName: "DietSync")
        } else {
            throw ValidationError("give --qr '<json>', or --host, --port, --code and --fingerprint")
        }
        let server = manager.server
        print("paired with \(server?.host ?? "?"):\(server?.port ?? 0) as app \(AppOptions.appId)")
    }
}

struct Authorize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask the owner for access (they approve with `healthbridge access approve ID`); shows the write status.")
    @OptionGroup var app: AppOptions
    @Flag(help: "Only the onboarding subset (weight, active energy, workouts; calories and macros).") var onboarding = false

    func run() async throws {
        let (_, manager, engine) = try app.open()
        let filed = onboarding ? try await manager.requestOnboardingAuthorization() : try await manager.requestFullAuthorization()
        if let request = filed.request {
            print("access request \(request.id) is \(request.status.rawValue); the owner runs: healthbridge access approve \(request.id)")
        }
        let status = try await manager.authorizationStatus(for: .dietaryEnergyConsumed)
        print("writing meals: \(status.rawValue)")
        if status == .sharingAuthorized, try engine.retry(status: .denied) > 0 {
            let report = await engine.flush()
            print("\(report.synced) queued entries synced")
        }
    }
}

struct Meal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log a meal (kept here, and written to HealthBridge).")
    @OptionGroup var app: AppOptions
    @Option(help: "The meal's id (default: a new one).") var id: String?
    @Option var name: String
    @Option(help: "kcal.") var calories: Double
    @Option(help: "Grams.") var protein: Double = 0
    @Option(help: "Grams.") var carbs: Double = 0
    @Option(help: "Grams.") var fat: Double = 0
    @Option(help: "Grams.") var fiber: Double?

    func run() async throws {
        let (store, _, engine) = try app.open()
        let meal = HealthBridgeMeal(id: id ?? "meal-" + UUID().uuidString.prefix(8).lowercased(), name: name,
                                 calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber,
                                 loggedAt: Date().addingTimeInterval(-1))
        try await store.db.write { db in
            try store.insertMeal(meal, in: db)
            try engine.enqueue(.food(meal), syncId: SyncEngine.foodSyncId(meal), in: db)
        }
        await engine.flush()
        guard let entry = try engine.entry(syncId: SyncEngine.foodSyncId(meal)) else { return }
        print("meal \(meal.id): \(name), \(Int(calories)) kcal — \(describe(entry))")
    }
}

struct DeleteMeal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete-meal", abstract: "Delete a meal here and in HealthBridge.")
    @OptionGroup var app: AppOptions
    @Argument var id: String

    func run() async throws {
        let (store, _, engine) = try app.open()
        let removed = try await store.db.write { db in
            try db.execute(sql: "DELETE FROM meal WHERE id = ?", arguments: [id])
            return db.changesCount
        }
        guard removed > 0 else { throw ValidationError("no meal \(id)") }
        let entry = try await engine.deleteFood(logId: id)
        print("meal \(id) deleted — \(describe(entry))")
    }
}

struct Weight: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log a weight in kg (kept here, and written to HealthBridge).")
    @OptionGroup var app: AppOptions
    @Argument var kilograms: Double

    func run() async throws {
        let (store, _, engine) = try app.open()
        let date = HealthBridgeDates.wholeSecond(Date().addingTimeInterval(-1))
        try await store.db.write { db in
            _ = try store.saveWeight(kilograms, at: date, source: "DietSync", in: db)
        }
        let entry = try await engine.logWeight(kilograms, date: date)
        print("weight \(kilograms) kg — \(describe(entry))")
    }
}

struct Water: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log water drunk in mL.")
    @OptionGroup var app: AppOptions
    @Argument var milliliters: Double

    func run() async throws {
        let (_, _, engine) = try app.open()
        let entry = try await engine.logWater(milliliters, date: Date().addingTimeInterval(-1))
        print("water \(Int(milliliters)) mL — \(describe(entry))")
    }
}

struct Today: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Today's calories in (meals) against TDEE (basal + active energy).")
    @OptionGroup var app: AppOptions

    func run() async throws {
        let (store, manager, engine) = try app.open()
        await engine.flush()
        let meals = try store.meals(since: Calendar.current.startOfDay(for: Date()))
        let eaten = meals.reduce(0) { $0 + $1.calories }
        for meal in meals { print("  \(meal.id)  \(meal.name)  \(Int(meal.calories.rounded())) kcal") }
        let budget: EnergyBudget?
        do {
            budget = try await engine.refreshEnergy()
        } catch {
            budget = engine.lastEnergy
            print("(HealthBridge not reachable: \(error); showing the last energy read)")
        }
        print("calories in: \(Int(eaten.rounded())) kcal")
        if let budget {
            print("TDEE so far: \(Int(budget.tdee.rounded())) kcal (basal \(Int(budget.basal.rounded())) + active \(Int(budget.active.rounded())))")
            print("balance: \(Int((eaten - budget.tdee).rounded())) kcal")
        }
        if let workouts = try? await manager.fetchTodayWorkouts(), !workouts.isEmpty {
            print("workouts: " + workouts.map { "\($0.displayName) \(Int($0.duration / 60)) min" }.joined(separator: ", "))
        }
        if let weight = try store.latestWeight() {
            print("weight: \(weight.kg) kg (\(weight.source))")
        }
        let counts = try engine.counts()
        if let pending = counts[.pending], pending > 0 { print("\(pending) entries waiting to sync") }
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow weights written elsewhere (another app, `healthbridge log weight`) and keep them here.")
    @OptionGroup var app: AppOptions
    @Option(help: "Stop after this many seconds (default: run until interrupted).") var seconds: Double?
    @Option(help: "Stop after this many new weights (default: run until interrupted).") var exitAfter: Int?

    func run() async throws {
        let (store, _, engine) = try app.open()
        say("watching HealthBridge for weights…")
        let received = Counter()
        let limit = exitAfter
        let follow = Task {
            try await engine.followWeights(wait: 20) { reading in
                let saved = try await store.db.write { db in
                    try store.saveWeight(reading.kilograms, at: reading.date, source: reading.source, in: db)
                }
                if saved {
                    say("new weight: \(reading.kilograms) kg at \(HealthBridgeDates.string(reading.date)) from \(reading.source)")
                    if let limit, received.increment() >= limit { throw CancellationError() }
                }
            }
        }
        let retries = Task { await engine.run() }
        let timer = seconds.map { seconds in
            Task {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
                follow.cancel()
            }
        }
        defer { timer?.cancel() }
        do {
            try await follow.value
        } catch is CancellationError {
        } catch {
            FileHandle.standardError.write(Data("watch stopped: \(error)\n".utf8))
        }
        retries.cancel()
    }
}

/// Counts from concurrent callbacks.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send queued entries now and show the outbox.")
    @OptionGroup var app: AppOptions

    func run() async throws {
        let (_, _, engine) = try app.open()
        _ = try engine.retry(status: .denied)
        let report = await engine.flush()
        print("\(report.synced) synced now")
        for (status, count) in try engine.counts().sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            print("  \(status.rawValue): \(count)")
        }
        for entry in try engine.outbox() where entry.status != .synced {
            print("  \(entry.syncId)  \(entry.status.rawValue)  \(entry.lastCode ?? "")  \(entry.lastError ?? "")")
        }
    }
}
