import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit launch --seconds N [--exit-after-weights K]`: the app launched — HealthKitManager and
/// HealthKitSyncService over the app's file-backed repositories, background delivery enabled and the seed's observer
/// queries started — running for N seconds or until its weight repository gained K entries. Each weight the
/// repository gains is printed at once, one line each: `weight: 71.8 kg at <ISO date> (healthkit)`.
struct Launch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run as the app does after a launch: observers, background delivery, weights kept as they arrive.")
    @OptionGroup var app: AppDirectory
    @Option(help: "How long to run (seconds, 0.1…86400).") var seconds: Double = 10
    @Option(help: "Stop once the weight repository gained this many entries.") var exitAfterWeights: Int?

    func validate() throws {
        guard seconds.isFinite, (0.1...86_400).contains(seconds) else { throw ValidationError("--seconds must be 0.1…86400") }
        if let exitAfterWeights, exitAfterWeights < 1 { throw ValidationError("--exit-after-weights must be at least 1") }
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            let gained = LaunchCounter()
            let weights = FileWeightRepository(directory: app.url) { record in
                say("weight: \(record.weight) kg at \(isoString(record.date)) (\(record.source.rawValue))")
                gained.increment()
            }
            let energy = NotificationCenter.default.addObserver(forName: .activeEnergyUpdated, object: nil, queue: nil) { note in
                if let kcal = note.userInfo?["activeEnergy"] as? Double { say("active energy today: \(kcal) kcal") }
            }
            defer { NotificationCenter.default.removeObserver(energy) }
            let healthKit = HealthKitManager()
            let sync = HealthKitSyncService(healthKit: healthKit, weightRepo: weights,
                                            foodLogRepo: FileFoodLogRepository(directory: app.url))
            healthKit.enableBackgroundDelivery()
            healthKit.setupObserverQueries()
            NotificationCenter.default.post(name: UIApplication.willEnterForegroundNotification, object: nil)
            say("launched")
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let exitAfterWeights, gained.value >= exitAfterWeights { break }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            // A moment for the observers' completion handlers to be recorded, as an app is not stopped mid-handler.
            try await Task.sleep(nanoseconds: 300_000_000)
            withExtendedLifetime(sync) {}
            say("stopped: \(gained.value) weights kept")
        }
    }
}

/// Counts from the repository's callbacks (any thread).
final class LaunchCounter: @unchecked Sendable {
    // Safe: `count` is only read and written under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.lock(); defer { lock.unlock() }; return count }

    func increment() { lock.lock(); count += 1; lock.unlock() }
}
