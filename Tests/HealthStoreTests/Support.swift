import Foundation
import Testing
import HealthModel
import HealthStore

// MARK: - Fixtures shared by the store tests

/// 2024-05-01T00:00:00Z. Tests place samples at whole seconds after it so expectations are exact.
let t0 = Date(timeIntervalSince1970: 1_714_521_600)

/// `t0` plus `seconds`.
func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_714_521_600 + seconds) }

let watchSource = HealthSource(
    name: "Alex’s Apple Watch",
    device: HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardware: "Watch6,2"))
let phoneSource = HealthSource(
    name: "Alex’s iPhone",
    device: HealthDevice(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardware: "iPhone15,2"))
let healthAppSource = HealthSource(name: "Health", bundleIdentifier: "com.apple.Health")
let scaleSource = HealthSource(
    name: "Withings", bundleIdentifier: "com.withings.wiScaleNG",
    device: HealthDevice(name: "Body+", manufacturer: "Withings", model: "WBS05"))
let appSource = HealthSource(name: "MyFitnessPal", bundleIdentifier: "com.myfitnesspal.mfp")

/// A quantity sample from `start` to `end` seconds after `t0`.
func qty(_ type: String, _ start: Double, _ end: Double, _ value: Double, unit: String = "count",
         source: HealthSource = phoneSource, metadata: [String: String] = [:]) -> HealthSample {
    HealthSample(type: type, start: at(start), end: at(end), value: .quantity(value, unit: unit), source: source,
                 metadata: metadata)
}

/// A stepCount sample from `start` to `end` seconds after `t0`.
func qty(_ start: Double, _ end: Double, _ value: Double, unit: String = "count",
         source: HealthSource = phoneSource, metadata: [String: String] = [:]) -> HealthSample {
    qty("stepCount", start, end, value, unit: unit, source: source, metadata: metadata)
}

/// A sample carrying a sync identifier and version.
func synced(_ syncID: String, version: Int, value: Double, start: Double = 0, end: Double = 60,
            source: HealthSource = appSource, type: String = "bodyMass", unit: String = "kg") -> HealthSample {
    qty(type, start, end, value, unit: unit, source: source,
        metadata: [MetadataKey.syncIdentifier: syncID, MetadataKey.syncVersion: String(version)])
}

/// All samples of `type` (ascending), no paging.
func all(_ store: some HealthStore, _ type: String = "stepCount") async throws -> [HealthSample] {
    try await store.samples(SampleQuery(type: type)).samples
}

/// Every change since `anchor`, walked page by page with `limit`; returns the pages.
func allChangePages(_ store: some HealthStore, since anchor: Int64?, types: [String]? = nil,
                    limit: Int) async throws -> [ChangeSet] {
    var pages: [ChangeSet] = []
    var from = anchor
    for _ in 0..<10_000 {
        let page = try await store.changes(since: from, types: types, limit: limit)
        pages.append(page)
        from = page.anchor
        if !page.hasMore { return pages }
    }
    Issue.record("the change feed never reported hasMore == false")
    return pages
}

// MARK: - Temporary directories

/// Runs `body` with a fresh temporary directory that is removed afterwards (also when `body` throws).
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("healthstore-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    do {
        let result = try await body(dir)
        try? FileManager.default.removeItem(at: dir)
        return result
    } catch {
        try? FileManager.default.removeItem(at: dir)
        throw error
    }
}

// MARK: - Bounded waits

/// The first non-nil result of `operation`, or nil when `seconds` pass first. The operation is cancelled either way,
/// so a missing event fails the test instead of hanging it.
func firstResult<T: Sendable>(within seconds: Double,
                              _ operation: @Sendable @escaping () async -> T?) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Waits (at most `seconds`) for a notification on `stream` whose types contain `type`.
func notification(on stream: AsyncStream<ChangeNotification>, containing type: String,
                  within seconds: Double) async -> ChangeNotification? {
    await firstResult(within: seconds) {
        for await note in stream where note.types.contains(type) { return note }
        return nil
    }
}

/// POSIX permission bits of a file.
func permissions(_ url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// True when both arrays have the same length and each pair is within `tolerance`.
func approximately(_ a: [Double], _ b: [Double], _ tolerance: Double) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}
