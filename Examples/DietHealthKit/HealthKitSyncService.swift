// The diet app's HealthKit code, seed diet-app-healthkit-spec.md §6 (HealthKitSyncService), verbatim except where noted
// (scripts/seed-verbatim.py counts the lines kept).
import Foundation
import HealthKitBridge

final class HealthKitSyncService {
    private let healthKit: HealthKitManager
    private let weightRepo: WeightRepository
    private let foodLogRepo: FoodLogRepository

    private var syncTimer: Timer?

    init(healthKit: HealthKitManager, weightRepo: WeightRepository, foodLogRepo: FoodLogRepository) {
        self.healthKit = healthKit
        self.weightRepo = weightRepo
        self.foodLogRepo = foodLogRepo

        setupObservers()
    }

    // MARK: - Setup

    private func setupObservers() {
        NotificationCenter.default.addObserver(
            self,
            selector: { $0.handleWeightUpdate() },   // Linux: no #selector (no Objective-C runtime)
            name: .healthKitWeightUpdated,
            object: nil
        )

        NotificationCenter.default.addObserver(
            self,
            selector: { $0.handleAppForeground() },  // Linux: no #selector (no Objective-C runtime)
            name: UIApplication.willEnterForegroundNotification,
            object: nil
        )
    }

    // MARK: - Weight Sync

    private func handleWeightUpdate() {  // Linux: no @objc
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

    private func handleAppForeground() {  // Linux: no @objc
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

    func syncFoodLogToHealthKit(_ log: FoodLogRecord) async {
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
