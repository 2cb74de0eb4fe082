// The diet app's HealthKit code, seed diet-app-healthkit-spec.md §4 (writes, delete by log id), verbatim except where noted
// (scripts/seed-verbatim.py counts the lines kept).
import Foundation
import HealthKitBridge

extension HealthKitManager {
    // MARK: - Write Nutrition

    func writeNutrition(from foodLog: FoodLogRecord) async throws {
        let samples = buildNutritionSamples(from: foodLog)

        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            healthStore.save(samples) { success, error in
                if let error {
                    continuation.resume(throwing: HealthKitError.saveFailed(error))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    private func buildNutritionSamples(from log: FoodLogRecord) -> [HKQuantitySample] {
        var samples: [HKQuantitySample] = []

        let metadata: [String: Any] = [
            HKMetadataKeyFoodType: log.notes ?? "Logged meal",
            "DietAppLogId": log.id
        ]

        // Calories
        let calorieQuantity = HKQuantity(unit: .kilocalorie(), doubleValue: log.calories)
        samples.append(HKQuantitySample(
            type: HKQuantityType(.dietaryEnergyConsumed),
            quantity: calorieQuantity,
            start: log.loggedAt,
            end: log.loggedAt,
            metadata: metadata
        ))

        // Protein
        let proteinQuantity = HKQuantity(unit: .gram(), doubleValue: log.protein)
        samples.append(HKQuantitySample(
            type: HKQuantityType(.dietaryProtein),
            quantity: proteinQuantity,
            start: log.loggedAt,
            end: log.loggedAt,
            metadata: metadata
        ))

        // Carbs
        let carbsQuantity = HKQuantity(unit: .gram(), doubleValue: log.carbs)
        samples.append(HKQuantitySample(
            type: HKQuantityType(.dietaryCarbohydrates),
            quantity: carbsQuantity,
            start: log.loggedAt,
            end: log.loggedAt,
            metadata: metadata
        ))

        // Fat
        let fatQuantity = HKQuantity(unit: .gram(), doubleValue: log.fat)
        samples.append(HKQuantitySample(
            type: HKQuantityType(.dietaryFatTotal),
            quantity: fatQuantity,
            start: log.loggedAt,
            end: log.loggedAt,
            metadata: metadata
        ))

        // Fiber (optional)
        if let fiber = log.fiber {
            let fiberQuantity = HKQuantity(unit: .gram(), doubleValue: fiber)
            samples.append(HKQuantitySample(
                type: HKQuantityType(.dietaryFiber),
                quantity: fiberQuantity,
                start: log.loggedAt,
                end: log.loggedAt,
                metadata: metadata
            ))
        }

        return samples
    }

    // MARK: - Write Weight

    func writeWeight(_ weightKg: Double, date: Date = Date()) async throws {
        let weightType = HKQuantityType(.bodyMass)
        let quantity = HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: weightKg)

        let sample = HKQuantitySample(
            type: weightType,
            quantity: quantity,
            start: date,
            end: date,
            metadata: ["Source": "DietApp"]
        )

        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            healthStore.save(sample) { success, error in
                if let error {
                    continuation.resume(throwing: HealthKitError.saveFailed(error))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    // MARK: - Write Water

    func writeWater(_ milliliters: Double, date: Date = Date()) async throws {
        let waterType = HKQuantityType(.dietaryWater)
        let quantity = HKQuantity(unit: .literUnit(with: .milli), doubleValue: milliliters)

        let sample = HKQuantitySample(
            type: waterType,
            quantity: quantity,
            start: date,
            end: date
        )

        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            healthStore.save(sample) { success, error in
                if let error {
                    continuation.resume(throwing: HealthKitError.saveFailed(error))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    // MARK: - Delete Sample

    func deleteNutrition(logId: String) async throws {
        // Find samples with our log ID
        let types: [HKQuantityType] = [
            HKQuantityType(.dietaryEnergyConsumed),
            HKQuantityType(.dietaryProtein),
            HKQuantityType(.dietaryCarbohydrates),
            HKQuantityType(.dietaryFatTotal),
            HKQuantityType(.dietaryFiber)
        ]

        for type in types {
            let predicate = HKQuery.predicateForObjects(
                withMetadataKey: "DietAppLogId",
                allowedValues: [logId]
            )

            let samples = try await querySamples(type: type, predicate: predicate)

            if !samples.isEmpty {
                try await deleteSamples(samples)
            }
        }
    }

    private func querySamples(type: HKSampleType, predicate: NSPredicate) async throws -> [HKSample] {
        try await withCheckedThrowingContinuation { continuation in
            let query = HKSampleQuery(
                sampleType: type,
                predicate: predicate,
                limit: HKObjectQueryNoLimit,
                sortDescriptors: nil
            ) { _, samples, error in
                if let error {
                    continuation.resume(throwing: HealthKitError.queryFailed(error))
                } else {
                    continuation.resume(returning: samples ?? [])
                }
            }

            healthStore.execute(query)
        }
    }

    private func deleteSamples(_ samples: [HKSample]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            healthStore.delete(samples) { success, error in
                if let error {
                    continuation.resume(throwing: HealthKitError.saveFailed(error))
                } else {
                    continuation.resume()
                }
            }
        }
    }
}
