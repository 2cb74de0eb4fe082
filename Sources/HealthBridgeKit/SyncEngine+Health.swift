import Foundation
import GRDB
import HealthModel

/// Today's energy: what the body burned at rest and by activity, each merged across sources by the server's
/// priority order; TDEE is their sum.
///
/// ```swift
/// let budget = try await engine.refreshEnergy()
/// let remaining = budget.tdee - eatenToday
/// ```
public struct EnergyBudget: Codable, Sendable, Hashable {
    /// kcal.
    public var active: Double
    /// kcal.
    public var basal: Double
    public var updatedAt: Date
    /// Total daily energy expenditure so far today: basal + active, kcal.
    public var tdee: Double { basal + active }

    public init(active: Double, basal: Double, updatedAt: Date) {
        self.active = active; self.basal = basal; self.updatedAt = updatedAt
    }
}

/// A weight as the change feed brings it.
///
/// ```swift
/// try await engine.followWeights { reading in print(reading.kilograms, reading.date) }
/// ```
public struct WeightReading: Sendable, Hashable {
    public var kilograms: Double
    public var date: Date
    /// The sample's sync id: the app's own writes carry the sync id it gave them.
    public var syncId: String?
    public var source: String
    public var uuid: String
}

extension SyncEngine {
    static let energyKey = "energy.today"
    static let weightAnchorKey = "anchor.bodyMass"

    // MARK: Active energy (hourly and on demand)

    /// Reads today's active and basal energy now (merged by priority on the server) and keeps them as
    /// ``lastEnergy``.
    ///
    /// ```swift
    /// let budget = try await engine.refreshEnergy()
    /// print("TDEE so far: \(budget.tdee) kcal")
    /// ```
    @discardableResult
    public func refreshEnergy() async throws -> EnergyBudget {
        async let active = manager.fetchTodayActiveEnergy()
        async let basal = manager.fetchTodayBasalEnergy()
        let budget = EnergyBudget(active: try await active, basal: try await basal, updatedAt: Date())
        try setState(Self.energyKey, String(decoding: try JSONEncoder().encode(budget), as: UTF8.self))
        return budget
    }

    /// The last energy read (kept across restarts), nil before the first.
    ///
    /// ```swift
    /// let shown = engine.lastEnergy?.tdee ?? 0
    /// ```
    public var lastEnergy: EnergyBudget? {
        (try? state(Self.energyKey)).flatMap { try? JSONDecoder().decode(EnergyBudget.self, from: Data($0.utf8)) }
    }

    /// Today's energy now and then every `interval` (hourly by default, the seed's table); a failed refresh is
    /// skipped until the next one.
    ///
    /// ```swift
    /// for await budget in engine.energyUpdates() { updateCalorieGoal(budget.tdee) }
    /// ```
    public func energyUpdates(every interval: Duration = .seconds(3_600)) -> AsyncStream<EnergyBudget> {
        let (stream, continuation) = AsyncStream<EnergyBudget>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            while !Task.isCancelled {
                if let budget = try? await refreshEnergy() { continuation.yield(budget) }
                try? await Task.sleep(for: interval)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: Weight (both ways)

    /// Follows weights written anywhere (another app, `healthbridge log weight`, this app) from where the last run
    /// stopped: `handle` gets each new weight, and the position is saved after it returns, so a weight is handed
    /// over again after a crash rather than lost — dedup by date in `handle`, as the seed's
    /// `syncWeightFromHealthKit` does. Runs until cancelled or the feed fails for good.
    ///
    /// ```swift
    /// try await engine.followWeights { reading in
    ///     if try weights.fetchByDate(reading.date) == nil { try weights.save(reading) }
    /// }
    /// ```
    public func followWeights(wait: Double = 20,
                              _ handle: @Sendable (WeightReading) async throws -> Void) async throws {
        let anchor = try state(Self.weightAnchorKey)
        for try await batch in manager.observe([.bodyMass], from: anchor, wait: wait) {
            for added in batch.added where added.type == HealthDataType.bodyMass.rawValue {
                guard let sample = added.sample, let value = sample.value, let date = sample.startDate else { continue }
                try await handle(WeightReading(kilograms: value, date: date, syncId: sample.syncId, source: sample.source,
                                               uuid: sample.uuid))
            }
            try setState(Self.weightAnchorKey, batch.anchor)
        }
    }

    /// The server's latest weight when the app does not have a weight at that date yet (seed
    /// `syncWeightFromHealthKit`); nil when there is none or the app has it.
    ///
    /// ```swift
    /// if let (kg, date) = try await engine.newLatestWeight(known: { try weights.fetchByDate($0) != nil }) { … }
    /// ```
    public func newLatestWeight(known: (Date) throws -> Bool) async throws -> (weight: Double, date: Date)? {
        guard let latest = try await manager.fetchLatestWeight(), try !known(latest.date) else { return nil }
        return latest
    }
}
