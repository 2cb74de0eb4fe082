import ArgumentParser
import Foundation
import HealthEngine
import HealthModel

struct SleepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sleep",
        abstract: "Sleep per night (attributed to the wake-up day): in bed, asleep, core, deep, REM, awake.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var range: RangeOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let service = try await store.openService(timeZone: range.tz)
        let (start, end) = try range.resolve(service, defaultFrom: "7d")
        let nights = try await service.engine.sleepNights(from: start, to: end, timeZone: service.homeTimeZone)
        if json {
            try Output.json(["timeZone": AnyEncodable(service.homeTimeZone.identifier), "nights": AnyEncodable(nights)])
            return
        }
        if nights.isEmpty {
            print("No sleep recorded in that range.")
            return
        }
        Output.table(["night of", "bedtime", "wake", "in bed", "asleep", "core", "deep", "REM", "awake", "sources"],
                     nights.map { night in
            [night.date, Output.date(night.bedtime, service.homeTimeZone).suffix(5).description,
             Output.date(night.wakeTime, service.homeTimeZone).suffix(5).description,
             Output.minutes(night.inBedMinutes), Output.minutes(night.asleepMinutes), Output.minutes(night.coreMinutes),
             Output.minutes(night.deepMinutes), Output.minutes(night.remMinutes), Output.minutes(night.awakeMinutes),
             night.sources.joined(separator: ", ")]
        })
    }
}
