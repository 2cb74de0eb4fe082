// PeopleBench: statistics for one person among many on one PostgreSQL database (issue 27), in a release build.
//
//   scripts/people-bench.sh, or:
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench PeopleBench \
//       --url postgres://healthbridge@127.0.0.1:5432/healthbridge [--people 1000] [--days 365] [--queries 400]
//
// Loads `--people` people, each a store of their own (the schema `<prefix>_<n>`, as `--person` makes it), each with
// `--days` of the demo generator's iPhone + Apple Watch stepCount samples (two overlapping
// sources, a different seed per person; `--types` to change), through the bulk path (COPY). A load that stopped is
// resumed: a person whose store already holds samples is kept. Then opens `--open` people's stores at random (an app
// server serves the people whose requests arrive) and asks `--queries` times, each time for a random one of them, for
// a year of daily merged steps (the source-priority merge, as `healthbridge summary stepCount --days 365`): p50, p99
// and max. `--people 1 --prefix people_bench_alone` gives the same figure for a database holding one person.
import BenchSupport
import Foundation
import HealthDemo
import HealthEngine
import HealthModel
import HealthStore
import HealthStorePostgres
import Logging


guard let url = CommandLine.arguments.firstIndex(of: "--url").map({ _ in argument("--url", default: "") }),
      !url.isEmpty else {
    FileHandle.standardError.write(Data("PeopleBench: --url postgres://… is required\n".utf8))
    exit(2)
}
let people = max(1, Int(argument("--people", default: "1000")) ?? 1000)
let days = max(30, Int(argument("--days", default: "365")) ?? 365)
let queries = max(10, Int(argument("--queries", default: "400")) ?? 400)
let openCount = min(people, max(1, Int(argument("--open", default: "20")) ?? 20))
let prefix = argument("--prefix", default: "people_bench")
let types = Set(argument("--types", default: "stepCount").split(separator: ",").map(String.init))
let zone = TimeZone(identifier: "Europe/Paris") ?? .current
var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = zone
let end = calendar.startOfDay(for: Date())
let logger = Logger(label: "people-bench", factory: { _ in SwiftLogNoOpLogHandler() })

func configuration(_ person: Int) throws -> PostgresStoreConfiguration {
    var configuration = try PostgresStoreConfiguration(url: url)
    configuration.schema = "\(prefix)_\(person)"
    configuration.maximumConnections = 2
    return configuration
}

// 1. Load, resumable: a person whose store holds samples already is kept.
print("PeopleBench — \(people) people × \(days) days of \(types.sorted().joined(separator: ", ")) (iPhone + Apple Watch), PostgreSQL, release build")
/// Set once a person's whole year is saved: a run stopped halfway loads that person again (the same UUIDs: nothing doubles).
let loadedMarker = "people_bench_loaded"
var loadedSamples = 0
var loadedPeople = 0
var loadSeconds = 0.0
let loadStart = milliseconds()
for person in 0..<people {
    let store = try await PostgresHealthStore(configuration: try configuration(person), logger: logger)
    if try await store.setting(loadedMarker) != nil {
        await store.close()
        continue
    }
    let generator = DemoGenerator(days: days, seed: UInt64(person + 1), end: end, timeZone: zone)
    var pending: [HealthSample] = []
    let started = milliseconds()
    for day in 0..<days {
        pending += generator.generate(dayIndex: day).samples.filter { types.contains($0.type) }
        if pending.count >= 20_000 || day == days - 1 {
            try await store.save(SampleBatch(pending))
            loadedSamples += pending.count
            pending = []
        }
    }
    loadSeconds += (milliseconds() - started) / 1_000
    try await store.setSetting(loadedMarker, "\(days)")
    loadedPeople += 1
    await store.close()
    if loadedPeople % 50 == 0 {
        print(String(format: "  loaded %5d people, %10d samples, %7.0f samples/s (%.0f s so far)", loadedPeople,
                     loadedSamples, Double(loadedSamples) / max(loadSeconds, 0.001), (milliseconds() - loadStart) / 1_000))
    }
}
if loadedPeople > 0 {
    print(String(format: "load            %d people, %d samples in %.1f s of saves = %.0f samples/s (COPY; %.1f s with store set-up)",
                 loadedPeople, loadedSamples, loadSeconds, Double(loadedSamples) / loadSeconds, (milliseconds() - loadStart) / 1_000))
} else {
    print("load            every person was loaded by an earlier run (kept)")
}

// 2. A year of daily merged steps for one person among many.
let yearStart = calendar.date(byAdding: .day, value: -365, to: end) ?? end
let request = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: yearStart, end: end,
                                interval: StatisticsInterval(1, .day), timeZone: zone)
var generator = SystemRandomNumberGenerator()
let chosen = Array((0..<people).shuffled(using: &generator).prefix(openCount))
var engines: [(person: Int, store: PostgresHealthStore, engine: HealthEngine)] = []
for person in chosen {
    let store = try await PostgresHealthStore(configuration: try configuration(person), logger: logger)
    engines.append((person, store, HealthEngine(store: store)))
}
// Warm each pool's connection and the catalog once: an app server answers its people's many requests.
var days365 = 0
for entry in engines { days365 = try await entry.engine.statistics(request).buckets.count }
var latencies: [Double] = []
var stepsSeen = 0.0
for _ in 0..<queries {
    let entry = engines[Int.random(in: 0..<engines.count, using: &generator)]
    let t0 = milliseconds()
    let result = try await entry.engine.statistics(request)
    latencies.append(milliseconds() - t0)
    stepsSeen += result.buckets.reduce(0) { $0 + ($1.sum ?? 0) }
}
print(String(format: "statistics      a year of daily merged steps (%d days) for one of %d people, %d queries over %d people's stores: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%.0f steps a day on average)",
             days365, people, queries, engines.count, percentile(latencies, 0.5), percentile(latencies, 0.99),
             latencies.max() ?? .nan, stepsSeen / Double(queries) / Double(max(days365, 1))))
for entry in engines { await entry.store.close() }
