import ArgumentParser
import Foundation
import HealthEngine
import HealthModel
import HealthService

struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Statistics per interval, merged across sources by priority the way HealthKit does.",
        discussion: "Example: healthbridge summary --type stepCount --interval day --from 30d --json")

    @OptionGroup var store: StoreOptions
    @Option(help: "A quantity type, e.g. stepCount, heartRate, bodyMass.") var type: String
    @OptionGroup var range: RangeOptions
    @Option(help: "minute, hour, day, week, month or year, optionally with a count (15minute).") var interval = "day"
    @Option(help: "Only these sources (repeatable).") var source: [String] = []
    @Option(help: "Report in this unit, e.g. km, lb, kcal (default: the type's canonical unit).") var unit: String?
    @Flag(help: "Add one unmerged series per source.") var bySource = false
    @Flag(help: "Hide buckets without data.") var skipEmpty = false
    @Flag(help: "Print the OpenClaw health.summary payload as JSON.") var json = false

    func run() async throws {
        let service = try await store.openService(timeZone: range.tz)
        let interval = try StatisticsInterval(parsing: self.interval)
        let (start, end) = try range.resolve(service, defaultFrom: "7d")
        let payload = try await service.summary(type: type, start: start, end: end, interval: interval,
                                                bySource: bySource, sources: source.isEmpty ? nil : source,
                                                includeEmpty: !skipEmpty, unit: unit)
        if json {
            try Output.json(payload)
            return
        }
        let cumulative = payload.merged ?? false
        let unit = payload.statistics.first?.unit ?? ""
        let header = cumulative ? ["start", "sum (\(unit))", "sources"]
            : ["start", "average (\(unit))", "min", "max", "sources"]
        let series = payload.bySource ?? []
        let rows = payload.statistics.enumerated().map { index, stat -> [String] in
            let start = String(stat.startISO.prefix(16)).replacingOccurrences(of: "T", with: " ")
            var row = cumulative
                ? [start, Output.number(stat.sum, decimals: nil)]
                : [start, Output.number(stat.average, decimals: 1), Output.number(stat.min, decimals: 1),
                   Output.number(stat.max, decimals: 1)]
            for entry in series where index < entry.statistics.count {
                let s = entry.statistics[index]
                row.append(Output.number(cumulative ? s.sum : s.average, decimals: cumulative ? nil : 1))
            }
            row.append((stat.sources ?? []).joined(separator: ", "))
            return row
        }
        var fullHeader = Array(header.dropLast())
        fullHeader += series.map { $0.source }
        fullHeader.append("sources")
        Output.table(fullHeader, rows)
        if cumulative {
            print("\nMerged by source priority (\((payload.sourcePriority ?? []).joined(separator: " → "))), as the Health app does.")
        }
    }
}
