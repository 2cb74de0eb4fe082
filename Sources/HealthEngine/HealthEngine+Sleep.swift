import Foundation
import HealthModel
import HealthStore

/// One night of sleep, attributed to the day the person woke up.
public struct SleepNight: Sendable, Hashable, Codable {
    /// The wake-up day, `yyyy-MM-dd` in the query's time zone.
    public var date: String
    /// The window the night was taken from: 18:00 the evening before to 18:00 on ``date``.
    public var windowStart: Date
    public var windowEnd: Date
    /// First and last moment covered by a sleep sample in the window.
    public var bedtime: Date?
    public var wakeTime: Date?
    public var inBedMinutes: Double
    /// core + deep + REM + unspecified asleep.
    public var asleepMinutes: Double
    public var coreMinutes: Double
    public var deepMinutes: Double
    public var remMinutes: Double
    public var unspecifiedMinutes: Double
    public var awakeMinutes: Double
    /// Sources whose samples were kept after the merge, highest priority first.
    public var sources: [String]
}

extension HealthEngine {
    /// Sleep per night between two dates, merged across sources by priority (a watch's stages and a phone's in-bed
    /// interval are kept side by side, never added together). Nights run from 18:00 to 18:00 and belong to the
    /// day they end on; nights without data are left out.
    ///
    /// ```swift
    /// let nights = try await engine.sleepNights(from: weekAgo, to: now, timeZone: zone)
    /// nights.last?.asleepMinutes   // e.g. 431
    /// ```
    public func sleepNights(from start: Date, to end: Date, timeZone: TimeZone) async throws -> [SleepNight] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Windows: 18:00 before the first day to 18:00 of the last day.
        let firstDay = calendar.startOfDay(for: start)
        let anchor = calendar.date(bySettingHour: 18, minute: 0, second: 0, of: firstDay) ?? firstDay
        let windowStart = calendar.date(byAdding: .day, value: -1, to: anchor) ?? anchor
        let lastDay = calendar.startOfDay(for: end)
        let windowEnd = calendar.date(bySettingHour: 18, minute: 0, second: 0, of: lastDay) ?? end
        let result = try await statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("sleepAnalysis"), start: windowStart, end: max(windowEnd, windowStart.addingTimeInterval(86_400)),
            interval: StatisticsInterval(1, .day), anchor: anchor, timeZone: timeZone, options: [.duration]))
        return result.buckets.compactMap { bucket -> SleepNight? in
            guard let durations = bucket.durations, bucket.count > 0 else { return nil }
            func minutes(_ name: String) -> Double { (durations[name] ?? 0) / 60 }
            let core = minutes("asleepCore"), deep = minutes("asleepDeep"), rem = minutes("asleepREM")
            let unspecified = minutes("asleepUnspecified")
            return SleepNight(
                date: ISO8601.dateString(bucket.end.addingTimeInterval(-1), timeZone: timeZone),
                windowStart: bucket.start, windowEnd: bucket.end, bedtime: bucket.dataStart, wakeTime: bucket.dataEnd,
                inBedMinutes: minutes("inBed"), asleepMinutes: core + deep + rem + unspecified,
                coreMinutes: core, deepMinutes: deep, remMinutes: rem, unspecifiedMinutes: unspecified,
                awakeMinutes: minutes("awake"), sources: bucket.sources)
        }
    }
}
