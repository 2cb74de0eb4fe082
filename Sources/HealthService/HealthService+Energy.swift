import Foundation
import HealthAPI
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
