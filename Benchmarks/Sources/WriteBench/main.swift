// WriteBench: the figures of the writes issue, in a release build.
//
//   scripts/write-bench.sh, or: swift run -c release --package-path Benchmarks --scratch-path .build-bench WriteBench [--writes 10000] [--polls 200] [--dir /tmp/healthbridge-writebench]
//
// Prints: single-sample writes through HealthService on the SQLite file store (WAL), one after the other, as a diet
// app or an agent sends them — latency p50/p99 and writes/s, plain and with a log id (idempotent writes look up the
// stored version first); then the change feed's long-poll: how long after a commit a waiting `changes(wait:)` call
// returns, p50/p99. The HTTPS figures come from `scripts/write-bench.sh` (wrk with keep-alive against `serve`).
import BenchSupport
import Foundation
import HealthAPI
import HealthModel
import HealthService
import HealthStore


let writes = Int(argument("--writes", default: "10000")) ?? 10_000
let polls = Int(argument("--polls", default: "200")) ?? 200
let directory = URL(fileURLWithPath: argument("--dir", default: NSTemporaryDirectory() + "healthbridge-writebench"))
try? FileManager.default.removeItem(at: directory)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let store = try SQLiteHealthStore(location: .file(directory.appendingPathComponent("health.sqlite")))
let owner = try await HealthService.open(store: store)
try await owner.updateGrants(GrantsUpdate(principal: "app:bench", allowRead: ["dietaryWater"],
                                            allowWrite: ["dietaryWater", "bodyMass"]))
let app = owner.acting(as: Principal(kind: .app, name: "bench"))

func run(_ label: String, _ body: (Int) async throws -> Void) async throws {
    var latencies: [Double] = []
    latencies.reserveCapacity(writes)
    let started = milliseconds()
    for index in 0..<writes {
        let t0 = milliseconds()
        try await body(index)
        latencies.append(milliseconds() - t0)
    }
    let seconds = (milliseconds() - started) / 1_000
    print(String(format: "%@  %6d writes  %8.0f writes/s  p50 %.3f ms  p99 %.3f ms", label, writes,
                 Double(writes) / seconds, percentile(latencies, 0.5), percentile(latencies, 0.99)))
}

let base = Date().addingTimeInterval(-Double(writes) - 60)
print("HealthService writes, one sample each, SQLite WAL file store (\(directory.path))")
try await run("water, no id        ") { index in
    _ = try await app.save([SampleInput(type: "dietaryWater", value: 250, unit: "mL",
                                        start: ISO8601.string(base.addingTimeInterval(Double(index))))])
}
try await run("weight, with a log id") { index in
    _ = try await app.logWeight(70 + Double(index % 100) / 10, at: ISO8601.string(base.addingTimeInterval(Double(index))),
                                logId: "w-\(index)")
}

// Long-poll: a waiter asks for changes of dietaryWater from the current anchor, waiting up to 10 s; a write follows.
var delays: [Double] = []
for index in 0..<polls {
    let anchor = try await app.changes(ChangesRequest(types: ["dietaryWater"], limit: 1, timeZone: nil)).anchor
    let latest = try await owner.changes(ChangesRequest(types: ["dietaryWater"], anchor: anchor, limit: 1)).anchor
    let waiter = Task { () -> Double in
        _ = try await app.changes(ChangesRequest(types: ["dietaryWater"], anchor: latest, wait: 10, limit: 10))
        return milliseconds()
    }
    try await Task.sleep(for: .milliseconds(5))
    _ = try await app.save([SampleInput(type: "dietaryWater", value: 100, start: ISO8601.string(Date().addingTimeInterval(-Double(index))))])
    let committed = milliseconds()
    let woke = try await waiter.value
    delays.append(max(0, woke - committed))
}
print(String(format: "long-poll delivery after a commit  %d waits  p50 %.2f ms  p99 %.2f ms", polls,
             percentile(delays, 0.5), percentile(delays, 0.99)))
