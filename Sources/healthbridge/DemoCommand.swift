import ArgumentParser
import Foundation
import HealthAPI
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
        let sqlite = try await store.openStore()
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
        let devices = rows.first?.stepsBySource.map(\.source) ?? []
        Output.table(["day", "steps merged"] + devices.map { "\($0) (own)" } + ["asleep", "resting HR"], rows.map { row in
            [row.day, Output.number(row.stepsMerged)] + row.stepsBySource.map { Output.number($0.steps) }
                + [row.asleepMinutes.map(Output.minutes) ?? "—", Output.number(row.restingHeartRate)]
        })
        print("\n“steps merged” is what the Health app shows; tools that add up each device's own steps report the sum of the “own” columns.")
    }

    struct DayRow: Encodable {
        var day: String
        var stepsMerged: Double?
        /// What each device recorded on its own: adding these up is the over-count other tools make.
        var stepsBySource: [DeviceSteps]
        var asleepMinutes: Double?
        var restingHeartRate: Double?
    }

    struct DeviceSteps: Encodable {
        var source: String
        var steps: Double?
    }

    struct DemoJSON: Encodable {
        var samples: Int
        var workouts: Int
        var days: [DayRow]
    }

    /// The last two weeks from the service: merged steps, each device's own total beside them, last night, resting HR.
    static func lastTwoWeeks(_ service: HealthService) async throws -> [DayRow] {
        let steps = try await service.summaryPages(SummaryRequest(type: "stepCount", start: "14d", bySource: true))
        let resting = try await service.summaryPages(SummaryRequest(type: "restingHeartRate", start: "14d",
                                                                    statistics: ["most_recent"]))
        let nights = try await service.sleep(SleepRequest(start: "14d")).nights
        let sleepByDay = Dictionary(nights.map { ($0.date, $0.asleepMinutes) }, uniquingKeysWith: { a, _ in a })
        let restingByDay = Dictionary(resting.buckets.map { ($0.date ?? $0.start, $0.mostRecent) }, uniquingKeysWith: { a, _ in a })
        return steps.buckets.map { bucket in
            let day = bucket.date ?? String(bucket.start.prefix(10))
            let own = (steps.bySource ?? []).map { series in
                DeviceSteps(source: series.source, steps: series.buckets.first { $0.start == bucket.start }?.sum)
            }
            return DayRow(day: day, stepsMerged: bucket.sum, stepsBySource: own, asleepMinutes: sleepByDay[day],
                          restingHeartRate: restingByDay[day] ?? nil)
        }
    }
}
