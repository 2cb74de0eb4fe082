import Foundation
import HealthAPI
import HealthModel
import HealthService
import HealthStore
import Synchronization

/// Runs `body` on the concurrency pool and waits for it: libFuzzer's callback is synchronous.
public func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// A service over a fresh in-memory store, and the owner acting on it.
public func freshService() throws -> HealthService {
    HealthService(store: try SQLiteHealthStore.inMemory(),
                  homeTimeZone: TimeZone(identifier: "Europe/Paris") ?? .current,
                  clock: { Date(timeIntervalSince1970: 1_717_200_000) })   // 2024-06-01
}

/// Every reader that formats stored values, over whatever the store holds now, as the owner: samples, summaries
/// (merged and by source), latest values, sleep, workouts with their details, today, the change feed, encoded as
/// every interface encodes them. Errors are fine; a trap is the bug being looked for.
public func readEverything(_ service: HealthService) async {
    let owner = service.acting(as: .owner)
    let encoder = JSONEncoder.wire
    let range = (start: "2023-01-01", end: "2024-07-01")
    guard let types = try? await owner.types(includingGranted: true).types.map(\.type) else { return }
    for type in types.prefix(16) {
        if let samples = try? await owner.samples(SamplesRequest(type: type, start: range.start, end: range.end, limit: 50)) {
            _ = try? encoder.encode(samples)
        }
        for interval in ["day", "total"] {
            let request = SummaryRequest(type: type, start: range.start, end: range.end, interval: interval)
            if let summary = try? await owner.summary(request) { _ = try? encoder.encode(summary) }
        }
        if let latest = try? await owner.latest(LatestRequest(type: type)) { _ = try? encoder.encode(latest) }
    }
    if let sleep = try? await owner.sleep(SleepRequest(start: range.start, end: range.end)) { _ = try? encoder.encode(sleep) }
    if let workouts = try? await owner.workouts(WorkoutsRequest(start: range.start, end: range.end, limit: 20)) {
        _ = try? encoder.encode(workouts)
        for workout in workouts.workouts.prefix(4) {
            if let detail = try? await owner.workout(WorkoutRequest(uuid: workout.uuid, routeLimit: 100)) {
                _ = try? encoder.encode(detail)
            }
        }
    }
    if let changes = try? await owner.changes(ChangesRequest(limit: 100)) { _ = try? encoder.encode(changes) }
}
