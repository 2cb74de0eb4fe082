import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit crash-load --count N`: writes meals `load-0` … `load-(N-1)` through the seed's writeNutrition, one
/// at a time, as a careful app does when it may be killed at any moment: its journal (fsync'd) says which meals are
/// done; a meal tried but not done, or whose write failed, is looked up in HealthKit by its `DietAppLogId` (an
/// HKSampleQuery with a metadata predicate) before being written again, so each meal is written exactly once
/// across kills of the app and of the server. Prints progress, then `crash-load: N of N done (…)`.
struct CrashLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "crash-load",
                                                    abstract: "Write N meals exactly once, whatever is killed meanwhile.")
    @OptionGroup var app: AppDirectory
    @Option(help: "How many meals (1…100000).") var count: Int
    @Option(help: "Give up after this many seconds without progress.") var patience: Double = 60

    func validate() throws {
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be 1…100000") }
        guard patience.isFinite, patience > 0 else { throw ValidationError("--patience must be above 0 seconds") }
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let journal = try CrashLoadJournal(url: app.url.appendingPathComponent("crash-load.journal"))
            let healthKit = HealthKitManager()
            let healthStore = HKHealthStore()
            let base = wholeSecondNow()
            var written = 0, found = 0, failures = 0
            for index in 0..<count {
                let id = "load-\(index)"
                if journal.done.contains(id) { continue }
                var mustAsk = journal.tried.contains(id)
                let started = Date()
                var attempt = 0
                while true {
                    do {
                        if mustAsk, try await Self.mealIsStored(id, in: healthStore) {
                            found += 1
                            break
                        }
                        try journal.record(.tried, id)
                        mustAsk = true
                        let meal = FoodLogRecord(id: id, calories: Double(100 + index % 50), protein: 5, carbs: 12, fat: 3,
                                                 fiber: nil, notes: "load meal \(index)",
                                                 loggedAt: base.addingTimeInterval(-Double(index)))
                        try await healthKit.writeNutrition(from: meal)
                        written += 1
                        break
                    } catch let error as AppFailure {
                        throw error
                    } catch {
                        // The server is away or the answer was lost: ask again before writing again.
                        failures += 1
                        attempt += 1
                        if Date().timeIntervalSince(started) > patience {
                            throw AppFailure("no progress on \(id) for \(whole(patience)) s: \(error)")
                        }
                        try await Task.sleep(nanoseconds: UInt64(min(50 * attempt, 400)) * 1_000_000)
                    }
                }
                try journal.record(.done, id)
                if index % 50 == 49 { say("crash-load: \(index + 1) of \(count)") }
            }
            say("crash-load: \(count) of \(count) done (\(written) written now, \(found) found already in HealthKit, \(failures) failed attempts)")
        }
    }

    /// Whether HealthKit holds the meal's calories sample, found by the app's own metadata key.
    static func mealIsStored(_ id: String, in healthStore: HKHealthStore) async throws -> Bool {
        let predicate = HKQuery.predicateForObjects(withMetadataKey: "DietAppLogId", allowedValues: [id])
        return try await withCheckedThrowingContinuation { continuation in
            let query = HKSampleQuery(sampleType: HKQuantityType(.dietaryEnergyConsumed), predicate: predicate,
                                      limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, samples, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: !(samples ?? []).isEmpty)
                }
            }
            healthStore.execute(query)
        }
    }
}
