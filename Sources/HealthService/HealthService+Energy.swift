import Foundation
import HealthModel

/// Energy in and out, per day: what the person ate against what they burned (active and resting), the numbers a
/// diet app's calorie budget is made of.
extension HealthService {
    /// Each day of the range: energy eaten, active and resting (basal) energy burned, the total burned (TDEE =
    /// active + resting) and the balance (eaten − burned), in kilocalories. Each figure is that day's sum merged by
    /// source priority, as ``summary(_:)`` gives it; a total or balance is given only when the figures it is made of
    /// were recorded, never with a missing part counted as zero.
    ///
    /// ```swift
    /// let week = try await service.energy(EnergyRequest(start: "7d"))
    /// week.days.last?.balanceKcal   // today's eaten − burned so far
    /// ```
    public func energy(_ request: EnergyRequest) async throws -> EnergyResult {
        func daily(_ type: String) -> SummaryRequest {
            SummaryRequest(type: type, start: request.start, end: request.end, interval: "day", statistics: ["sum"],
                           timeZone: request.timeZone, unit: "kcal")
        }
        async let eaten = summaryPages(daily("dietaryEnergyConsumed"))
        async let active = summaryPages(daily("activeEnergyBurned"))
        async let basal = summaryPages(daily("basalEnergyBurned"))
        let (eatenResult, activeResult, basalResult) = try await (eaten, active, basal)
        let activeByStart = Dictionary(activeResult.buckets.map { ($0.start, $0.sum) }, uniquingKeysWith: { a, _ in a })
        let basalByStart = Dictionary(basalResult.buckets.map { ($0.start, $0.sum) }, uniquingKeysWith: { a, _ in a })
        let days = eatenResult.buckets.map { bucket in
            EnergyDay(date: bucket.date ?? String(bucket.start.prefix(10)), start: bucket.start, end: bucket.end,
                      eatenKcal: bucket.sum, activeKcal: activeByStart[bucket.start] ?? nil,
                      basalKcal: basalByStart[bucket.start] ?? nil)
        }
        return EnergyResult(timeZone: eatenResult.timeZone, start: eatenResult.start, end: eatenResult.end,
                            unit: "kcal", days: days)
    }
}

/// The days to add up: a range in the forms of ``DateRange`` (default: today).
public struct EnergyRequest: Codable, Sendable, Hashable {
    public var start: String?
    public var end: String?
    public var timeZone: String?

    public init(start: String? = nil, end: String? = nil, timeZone: String? = nil) {
        self.start = start; self.end = end; self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey { case start, end, timeZone = "time_zone" }
}

/// One day of ``HealthService/energy(_:)``.
public struct EnergyDay: Codable, Sendable, Hashable {
    /// The day, `yyyy-MM-dd` in the result's zone.
    public var date: String
    public var start: String
    public var end: String
    public var eatenKcal: Double?
    public var activeKcal: Double?
    /// Resting (basal) energy.
    public var basalKcal: Double?
    /// Total energy burned: active + basal, when both were recorded.
    public var burnedKcal: Double?
    /// Eaten − burned, when both are known.
    public var balanceKcal: Double?

    public init(date: String, start: String, end: String, eatenKcal: Double?, activeKcal: Double?, basalKcal: Double?) {
        self.date = date; self.start = start; self.end = end
        self.eatenKcal = eatenKcal; self.activeKcal = activeKcal; self.basalKcal = basalKcal
        if let activeKcal, let basalKcal { burnedKcal = activeKcal + basalKcal }
        if let eatenKcal, let burnedKcal { balanceKcal = eatenKcal - burnedKcal }
    }

    enum CodingKeys: String, CodingKey {
        case date, start, end, eatenKcal = "eaten_kcal", activeKcal = "active_kcal", basalKcal = "basal_kcal"
        case burnedKcal = "burned_kcal", balanceKcal = "balance_kcal"
    }
}

/// Energy in and out per day.
public struct EnergyResult: Codable, Sendable, Hashable {
    public var timeZone: String
    public var start: String
    public var end: String
    public var unit: String
    public var days: [EnergyDay]

    enum CodingKeys: String, CodingKey { case timeZone = "time_zone", start, end, unit, days }
}
