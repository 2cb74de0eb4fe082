import Foundation
import HealthBridgeKit
import Synchronization
import Testing

// MARK: - The seed's §6 HealthKitSyncService, ported
//
// Copied from shared/seeds/diet-app-healthkit-spec.md §6 with only these changes:
// - type names: HealthKitManager → HealthBridgeManager, HealthKitSyncService → HealthBridgeSyncService,
//   .healthKitWeightUpdated → .healthBridgeWeightUpdated, UIApplication → AppLifecycle (no UIKit on Linux);
// - the two `#selector` observers are block observers: Linux has no Objective-C runtime for `@objc`;
// - `@unchecked Sendable` for Swift 6 (see the comment at the class).
// The method bodies are the seed's, untouched.

/// Safe to share: every stored property is a `let` of a Sendable type, except `syncTimer`, which the seed
/// declares and never assigns (it is only ever nil).
final class HealthBridgeSyncService: @unchecked Sendable {
    private let healthKit: HealthBridgeManager
    private let weightRepo: WeightRepository
    private let foodLogRepo: FoodLogRepository

    private var syncTimer: Timer?

    init(healthKit: HealthBridgeManager, weightRepo: WeightRepository, foodLogRepo: FoodLogRepository) {
        self.healthKit = healthKit
        self.weightRepo = weightRepo
        self.foodLogRepo = foodLogRepo

        setupObservers()
    }

    // MARK: - Setup

    private func setupObservers() {
        _ = NotificationCenter.default.addObserver(
            forName: .healthBridgeWeightUpdated,
            object: nil,
            queue: nil
        ) { [weak self] _ in self?.handleWeightUpdate() }

        _ = NotificationCenter.default.addObserver(
            forName: AppLifecycle.willEnterForegroundNotification,
            object: nil,
            queue: nil
        ) { [weak self] _ in self?.handleAppForeground() }
    }

    // MARK: - Weight Sync

    private func handleWeightUpdate() {
        Task {
            await syncWeightFromHealthKit()
        }
    }

    func syncWeightFromHealthKit() async {
        do {
            guard let (weight, date) = try await healthKit.fetchLatestWeight() else { return }

            // Check if we already have this entry
            let existing = try await weightRepo.fetchByDate(date)
            if existing == nil {
                let record = WeightLogRecord(
                    id: UUID().uuidString,
                    userId: CurrentUser.id,
                    weight: weight,
                    bodyFatPercent: nil,
                    date: date,
                    source: .healthkit,
                    notes: nil,
                    createdAt: Date(),
                    synced: true
                )
                try await weightRepo.save(record)
            }
        } catch {
            print("Weight sync error: \(error)")
        }
    }

    // MARK: - Energy Sync

    private func handleAppForeground() {
        Task {
            await refreshActiveEnergy()
        }
    }

    func refreshActiveEnergy() async {
        do {
            let activeEnergy = try await healthKit.fetchTodayActiveEnergy()

            // Post update for calorie adjustment
            await MainActor.run {
                NotificationCenter.default.post(
                    name: .activeEnergyUpdated,
                    object: nil,
                    userInfo: ["activeEnergy": activeEnergy]
                )
            }
        } catch {
            print("Energy sync error: \(error)")
        }
    }

    // MARK: - Write to HealthKit

    func syncFoodLogToHealthKit(_ log: HealthBridgeMeal) async {
        do {
            try await healthKit.writeNutrition(from: log)
        } catch {
            print("Failed to write nutrition to HealthKit: \(error)")
            // Queue for retry
        }
    }

    func syncWeightToHealthKit(_ weight: Double, date: Date) async {
        do {
            try await healthKit.writeWeight(weight, date: date)
        } catch {
            print("Failed to write weight to HealthKit: \(error)")
        }
    }
}

extension Notification.Name {
    static let activeEnergyUpdated = Notification.Name("activeEnergyUpdated")
}

// MARK: - The app's types the seed refers to

enum AppLifecycle {
    static let willEnterForegroundNotification = Notification.Name("AppLifecycle.willEnterForeground")
}

enum CurrentUser {
    static let id = "user-1"
}

struct WeightLogRecord: Sendable, Equatable {
    enum Source: Sendable { case manual, healthkit }
    var id: String
    var userId: String
    var weight: Double
    var bodyFatPercent: Double?
    var date: Date
    var source: Source
    var notes: String?
    var createdAt: Date
    var synced: Bool
}

protocol WeightRepository: Sendable {
    func fetchByDate(_ date: Date) async throws -> WeightLogRecord?
    func save(_ record: WeightLogRecord) async throws
}

protocol FoodLogRepository: Sendable {}

actor InMemoryWeightRepository: WeightRepository {
    var records: [WeightLogRecord] = []
    func fetchByDate(_ date: Date) async throws -> WeightLogRecord? { records.first { $0.date == date } }
    func save(_ record: WeightLogRecord) async throws { records.append(record) }
}

struct InMemoryFoodLogRepository: FoodLogRepository {}

// MARK: - The test

extension KitTests {
    @Test func seedSyncServicePortedWithOnlyTypeNamesChanged() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, _) = try await server.pairedApp()
            let repo = InMemoryWeightRepository()
            let service = HealthBridgeSyncService(healthKit: manager, weightRepo: repo, foodLogRepo: InMemoryFoodLogRepository())

            // Weight from HealthBridge into the app, deduplicated by date.
            let owner = try await Binaries.healthbridge(["log", "weight", "75.2", "--at", "1h"], home: server.home)
            #expect(owner.status == 0)
            await service.syncWeightFromHealthKit()
            await service.syncWeightFromHealthKit()
            #expect(await repo.records.map(\.weight) == [75.2])

            // Active energy, posted for the calorie adjustment.
            let received = Mutex<Double?>(nil)
            let token = NotificationCenter.default.addObserver(forName: .activeEnergyUpdated, object: nil, queue: nil) { note in
                let value = note.userInfo?["activeEnergy"] as? Double
                received.withLock { $0 = value }
            }
            NotificationCenter.default.post(name: AppLifecycle.willEnterForegroundNotification, object: nil)
            let energyDeadline = ContinuousClock.now + .seconds(5)
            while received.withLock({ $0 }) == nil, ContinuousClock.now < energyDeadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            NotificationCenter.default.removeObserver(token)
            #expect(received.withLock { $0 } == (try await manager.fetchTodayActiveEnergy()))

            // Meals and weights to HealthBridge.
            await service.syncFoodLogToHealthKit(HealthBridgeMeal(id: "seed-meal", calories: 555, protein: 30, carbs: 60, fat: 20,
                                                               loggedAt: Date().addingTimeInterval(-120)))
            // The app writes meals but does not read them (HealthKit's rule): the owner sees the meal.
            let meals = try await Binaries.healthbridge(["query", "--type", "dietaryEnergyConsumed", "--from", "today", "--json"],
                                                        home: server.home)
            #expect(meals.stdout.contains("555"), "\(meals.stdout) \(meals.stderr)")
            let now = HealthBridgeDates.wholeSecond(Date().addingTimeInterval(-10))
            await service.syncWeightToHealthKit(74.0, date: now)
            #expect(try await manager.fetchLatestWeight()?.weight == 74.0)

            // The observer query posts healthBridgeWeightUpdated; the service picks the new weight up.
            manager.setupObserverQueries()
            try await Task.sleep(for: .milliseconds(500))
            let other = try await Binaries.healthbridge(["log", "weight", "73.3"], home: server.home)
            #expect(other.status == 0)
            let deadline = ContinuousClock.now + .seconds(5)
            while await !repo.records.contains(where: { $0.weight == 73.3 }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            manager.stopObserverQueries()
            #expect(await repo.records.contains { $0.weight == 73.3 })
            // 74.0 was in between: picked up on the notification too, or by the next sync; never twice.
            #expect(Set(await repo.records.map(\.date)).count == (await repo.records.count))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
