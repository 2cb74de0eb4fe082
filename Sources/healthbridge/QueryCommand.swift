import ArgumentParser
import Foundation
import HealthModel
import HealthService
import HealthStore

struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Samples of one type, newest first.",
        discussion: "Example: healthbridge query --type heartRate --from 2d --limit 20")

    @OptionGroup var store: StoreOptions
    @Option(help: "The type, e.g. stepCount, heartRate, sleepAnalysis (with or without the HK prefix).") var type: String
    @OptionGroup var range: RangeOptions
    @Option(help: "How many samples at most (1…10000).") var limit = 100
    @Option(help: "Only samples from this source (repeatable).") var source: [String] = []
    @Option(help: "Report quantities in this unit, e.g. km, lb, kcal (default: the type's canonical unit).") var unit: String?
    @Flag(help: "Oldest first.") var ascending = false
    @Flag(help: "Print the OpenClaw health.query payload as JSON.") var json = false

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000") }
    }

    func run() async throws {
        let service = try await store.openService(timeZone: range.tz)
        let type = try await service.engine.resolveType(self.type)
        let (start, end) = try range.resolve(service, defaultFrom: "today")
        let page = try await service.engine.samples(SampleQuery(
            type: type.identifier, start: start, end: end, matching: .strictStartDate,
            sources: source.isEmpty ? nil : source, limit: limit, ascending: ascending))
        var samples = try page.samples.map { try service.wireSample($0, type: type) }
        if let unit {
            let target = try HealthUnit.parse(unit)
            for index in samples.indices {
                guard let value = samples[index].value, let canonical = type.canonicalUnit else { continue }
                samples[index].value = try HealthUnit.parse(canonical).convert(value, to: target)
                samples[index].unit = target.description
            }
        }
        if json {
            try Output.json(OpenClawHealthQueryPayload(
                type: type.identifier, startISO: ISO8601.string(start, timeZone: service.homeTimeZone),
                endISO: ISO8601.string(end, timeZone: service.homeTimeZone), samples: samples,
                hasMore: page.nextCursor != nil ? true : nil))
            return
        }
        if samples.isEmpty {
            print("No \(type.identifier) samples between \(Output.date(start, service.homeTimeZone)) and \(Output.date(end, service.homeTimeZone)).")
            return
        }
        Output.table(["start", "end", "value", "source"], zip(page.samples, samples).map { sample, wire in
            let value = wire.value.map { Output.number($0, decimals: nil) + " " + (wire.unit ?? "") }
                ?? wire.category ?? ""
            return [Output.date(sample.start, service.homeTimeZone), Output.date(sample.end, service.homeTimeZone),
                    value, wire.source ?? ""]
        })
        if page.nextCursor != nil { print("… more samples match: raise --limit or narrow the range.") }
    }
}
