import Foundation

// Background delivery (HealthKit's `enableBackgroundDelivery(for:frequency:withCompletion:)`). Nothing can wake a
// closed process here, so the kit does what background delivery promises the app: observers catch up at the next
// launch from the point the app acknowledged, and while the app runs they are told at the frequency asked.
extension HKHealthStore {
    /// Asks for changes of `type` to reach its observers at `frequency` (`.immediate`: within a second of the commit),
    /// and at the next launch for changes made while the app was closed. Kept in the app's container.
    ///
    /// ```swift
    /// store.enableBackgroundDelivery(for: HKQuantityType(.bodyMass), frequency: .immediate) { success, error in … }
    /// ```
    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency,
                                         withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        do {
            try setBackgroundDelivery(type, frequency)
            completion(true, nil)
        } catch {
            completion(false, error)
        }
    }

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {
        try setBackgroundDelivery(type, frequency)
    }

    /// Stops background delivery of `type`: observers are then told immediately while the app runs.
    public func disableBackgroundDelivery(for type: HKObjectType,
                                          withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        do {
            try setBackgroundDelivery(type, nil)
            completion(true, nil)
        } catch {
            completion(false, error)
        }
    }

    public func disableAllBackgroundDelivery(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        do {
            let connection = try connection()
            let snapshot = connection.background.withLock { $0.removeAll(); return [String: Int]() }
            connection.write(snapshot, "background-delivery.json")
            completion(true, nil)
        } catch {
            completion(false, error)
        }
    }

    private func setBackgroundDelivery(_ type: HKObjectType, _ frequency: HKUpdateFrequency?) throws(HKError) {
        let connection = try connection()
        guard type is HKSampleType else {
            throw HKError(.errorInvalidArgument, "\(type.identifier) is not a sample type")
        }
        let snapshot = connection.background.withLock { delivery in
            delivery[type.serverName] = frequency
            return delivery.mapValues(\.rawValue)
        }
        connection.write(snapshot, "background-delivery.json")
    }
}
