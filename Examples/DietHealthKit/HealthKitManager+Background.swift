// The diet app's HealthKit code, seed diet-app-healthkit-spec.md §5 (background delivery, observer queries), verbatim except where noted
// (scripts/seed-verbatim.py counts the lines kept).
import Foundation
import HealthKitBridge

extension HealthKitManager {
    // MARK: - Background Delivery

    func enableBackgroundDelivery() {
        let typesToObserve: [HKQuantityType] = [
            HKQuantityType(.bodyMass),
            HKQuantityType(.activeEnergyBurned)
        ]

        for type in typesToObserve {
            healthStore.enableBackgroundDelivery(
                for: type,
                frequency: .immediate
            ) { success, error in
                if let error {
                    print("Background delivery error for \(type): \(error)")
                }
            }
        }
    }

    func setupObserverQueries() {
        // Weight observer
        let weightType = HKQuantityType(.bodyMass)
        let weightQuery = HKObserverQuery(sampleType: weightType, predicate: nil) { [weak self] _, completionHandler, error in
            if error == nil {
                Task {
                    await self?.handleWeightUpdate()
                }
            }
            completionHandler()
        }
        healthStore.execute(weightQuery)

        // Active energy observer
        let energyType = HKQuantityType(.activeEnergyBurned)
        let energyQuery = HKObserverQuery(sampleType: energyType, predicate: nil) { [weak self] _, completionHandler, error in
            if error == nil {
                Task {
                    await self?.handleEnergyUpdate()
                }
            }
            completionHandler()
        }
        healthStore.execute(energyQuery)
    }

    @MainActor
    private func handleWeightUpdate() async {
        // Notify app of weight change
        NotificationCenter.default.post(name: .healthKitWeightUpdated, object: nil)
    }

    @MainActor
    private func handleEnergyUpdate() async {
        // Recalculate calorie budget
        NotificationCenter.default.post(name: .healthKitEnergyUpdated, object: nil)
    }
}

// MARK: - Notification Names
extension Notification.Name {
    static let healthKitWeightUpdated = Notification.Name("healthKitWeightUpdated")
    static let healthKitEnergyUpdated = Notification.Name("healthKitEnergyUpdated")
}
