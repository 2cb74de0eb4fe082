import ArgumentParser
import Foundation
import HealthDemo
import HealthEngine
import HealthModel
import HealthService
import HealthStore

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Fill the store with a realistic, deterministic stretch of life from an iPhone and an Apple Watch.",
        discussion: """
            The data runs up to now. Running it again adds only what is new. Afterwards it prints the last two weeks:
            steps merged by source priority next to steps summed over every source, sleep and resting heart rate.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "How many days of history.") var days = 60
    @Option(help: "Random seed: the same seed gives the same data.") var seed: UInt64 = 42
    @Option(help: "IANA time zone the person lives in (default: this machine's).") var tz: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (1...36_500).contains(days) else { throw ValidationError("--days must be between 1 and 36500") }
    }

    func run() async throws {
        let zone = try tz.map { name throws(HealthError) in try DateExpression.timeZone(name) } ?? TimeZone.current
        let sqlite = try store.openStore()
        let generator = DemoGenerator(days: days, seed: seed, end: Date(), timeZone: zone)
        let started = Date()
        let interactive = isatty(STDERR_FILENO) == 1 && !json
        let report = try await generator.populate(sqlite) { done, total in
            if interactive { Output.stderr("\u{1B}[1A\u{1B}[2Kgenerating: day \(done) of \(total)") }
        }
        let elapsed = Date().timeIntervalSince(started)
        let service = HealthService(store: sqlite, homeTimeZone: zone)
        let rows = try await DemoCommand.lastTwoWeeks(service)
        if json {
            try Output.json(DemoJSON(samples: report.samples, workouts: report.workouts, days: rows))
            return
        }
        print("Generated \(Output.number(Double(report.samples))) samples, \(report.workouts) workouts and \(report.correlations) meals over \(days) days in \(String(format: "%.1f", elapsed)) s (time zone \(zone.identifier)).\n")
        Output.table(["day", "steps merged", "steps summed", "over-count", "asleep", "resting HR"], rows.map { row in
            [row.day, Output.number(row.stepsMerged), Output.number(row.stepsSummed),
             row.stepsMerged.map { $0 > 0 ? "+" + Output.number((row.stepsSummed / $0 - 1) * 100) + "%" : "—" } ?? "—",
             row.asleepMinutes.map(Output.minutes) ?? "—", Output.number(row.restingHeartRate)]
        })
        print("\n“steps summed” is what tools that add up iPhone and Apple Watch report; “steps merged” is what the Health app shows.")
    }

    struct DayRow: Encodable {
        var day: String
        var stepsMerged: Double?
        var stepsSummed: Double
        var asleepMinutes: Double?
        var restingHeartRate: Double?
    }

    struct DemoJSON: Encodable {
        var samples: Int
        var workouts: Int
        var days: [DayRow]
    }

    static func lastTwoWeeks(_ service: HealthService) async throws -> [DayRow] {
        let zone = service.homeTimeZone
        let now = service.clock()
        let start = try DateExpression.parse("14d", now: now, timeZone: zone)
        let day = StatisticsInterval(1, .day)
        let merged = try await service.engine.statistics(StatisticsRequest(
            type: "stepCount", start: start, end: now, interval: day, timeZone: zone, includeEmpty: true))
        let summed = try await service.engine.unmergedSums(type: "stepCount", start: start, end: now, interval: day,
                                                           timeZone: zone)
        let resting = try await service.engine.statistics(StatisticsRequest(
            type: "restingHeartRate", start: start, end: now, interval: day, timeZone: zone, options: [.mostRecent],
            includeEmpty: true))
        let nights = try await service.engine.sleepNights(from: start, to: now, timeZone: zone)
        let sleepByDay = Dictionary(nights.map { ($0.date, $0.asleepMinutes) }, uniquingKeysWith: { a, _ in a })
        return merged.buckets.enumerated().map { index, bucket in
            let date = ISO8601.dateString(bucket.start, timeZone: zone)
            return DayRow(day: date, stepsMerged: bucket.sum, stepsSummed: index < summed.count ? summed[index] : 0,
                          asleepMinutes: sleepByDay[date],
                          restingHeartRate: index < resting.buckets.count ? resting.buckets[index].mostRecent : nil)
        }
    }
}
