import Foundation
import HealthDemo
import HealthModel
import HealthService
import HealthStore

/// A demo world for tests: `days` of demo data (iPhone + Apple Watch + apps, as `healthbridge demo` makes it) from a
/// given seed, ending at `end`, laid out in `zone`. Every test target builds its world from here, so that the same
/// days, seed and zone give the same samples everywhere.
public struct DemoWorld: Sendable {
    public var days: Int
    public var seed: UInt64
    public var end: Date
    public var zone: TimeZone

    public init(days: Int, seed: UInt64 = 42, end: Date = Date(), zone: TimeZone = .current) {
        self.days = days
        self.seed = seed
        self.end = end
        self.zone = zone
    }

    /// The generator behind this world (its sources, its days).
    public var generator: DemoGenerator { DemoGenerator(days: days, seed: seed, end: end, timeZone: zone) }

    /// Fills `store` with the world's samples.
    @discardableResult
    public func populate(_ store: any HealthStore) async throws -> DemoReport {
        try await generator.populate(store)
    }

    /// A SQLite store (in memory unless `location` says otherwise) filled with the world.
    public func store(_ location: StoreLocation = .inMemory) async throws
        -> (store: SQLiteHealthStore, report: DemoReport)
    {
        let store = try SQLiteHealthStore(location: location)
        let report = try await populate(store)
        return (store, report)
    }

    /// A service over a fresh store of the world, home zone `zone`; `fixedClock` pins "now" to `end`.
    public func service(_ location: StoreLocation = .inMemory, fixedClock: Bool = true) async throws
        -> HealthService
    {
        let (store, _) = try await store(location)
        let end = self.end
        return fixedClock ? HealthService(store: store, homeTimeZone: zone, clock: { end })
                          : HealthService(store: store, homeTimeZone: zone)
    }

    /// Fills `store` (any kind: SQLite, PostgreSQL, a test double) with the world and returns a service over it, home
    /// zone `zone`; `fixedClock` pins "now" to `end`.
    ///
    /// ```swift
    /// try await TestStores.withStore(.postgres) { store in
    ///     let service = try await DemoWorld(days: 10).service(over: store)
    /// }
    /// ```
    public func service(over store: any HealthStore, fixedClock: Bool = true) async throws -> HealthService {
        try await populate(store)
        let end = self.end
        return fixedClock ? HealthService(store: store, homeTimeZone: zone, clock: { end })
                          : HealthService(store: store, homeTimeZone: zone)
    }

    /// A data directory holding the world in its store file, with the home zone saved as a setting, the way
    /// `healthbridge demo --home` leaves one (the CLI and `serve` open it with `--home`).
    public func home(_ home: TemporaryHome) async throws -> HealthService {
        let store = try SQLiteHealthStore(location: .file(home.url.appendingPathComponent("health.sqlite")))
        try await populate(store)
        try await store.setSetting(HealthService.homeTimeZoneSetting, zone.identifier)
        return try await HealthService.open(store: store)
    }
}

extension TimeZone {
    public static let utcZone = TimeZone(identifier: "UTC")!
    public static let parisZone = TimeZone(identifier: "Europe/Paris")!
}
