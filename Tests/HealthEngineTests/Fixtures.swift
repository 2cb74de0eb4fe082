import Foundation
import HealthModel
import HealthStore

let watch = HealthSource(name: "Alex’s Apple Watch",
                         device: HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardware: "Watch6,2"))
let phone = HealthSource(name: "Alex’s iPhone",
                         device: HealthDevice(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardware: "iPhone15,2"))
let app = HealthSource(name: "Pedometer++", bundleIdentifier: "com.example.pedometer")

let utc = TimeZone(identifier: "UTC")!
let paris = TimeZone(identifier: "Europe/Paris")!

/// `2024-05-01T13:57:00Z`-style instants, for readable tests.
func t(_ iso: String) -> Date {
    guard let date = ISO8601.date(iso) else { fatalError("bad test date \(iso)") }
    return date
}

func steps(_ start: String, _ end: String, _ value: Double, _ source: HealthSource) -> HealthSample {
    HealthSample(type: "stepCount", start: t(start), end: t(end), value: .quantity(value, unit: "count"), source: source)
}

func heart(_ at: String, _ bpm: Double, _ source: HealthSource = watch) -> HealthSample {
    HealthSample(type: "heartRate", start: t(at), end: t(at), value: .quantity(bpm, unit: "count/min"), source: source)
}

func sleep(_ start: String, _ end: String, _ value: Int, _ source: HealthSource) -> HealthSample {
    HealthSample(type: "sleepAnalysis", start: t(start), end: t(end), value: .category(value), source: source)
}

func makeStore(_ samples: [HealthSample]) async throws -> SQLiteHealthStore {
    let store = try SQLiteHealthStore.inMemory()
    try await store.save(samples)
    return store
}

/// True when `a` is within `tolerance` of `b`.
func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}
