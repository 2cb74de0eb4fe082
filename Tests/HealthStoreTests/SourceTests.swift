import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
@testable import HealthStore

@Suite struct SourceTests {
    static let device1 = "<<HKDevice: 0x282e3a260>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.1>"
    static let device2 = "<<HKDevice: 0x283f11111>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.2>"

    @Test(arguments: TestStores.kinds)
    func theHKDeviceAddressAndSoftwareVersionDoNotMakeANewSource(kind: TestStoreKind) async throws {
        let s1 = HealthSource(name: "Alex’s Apple Watch", version: "10.1", deviceDescription: Self.device1)
        let s2 = HealthSource(name: "Alex’s Apple Watch", version: "10.2", deviceDescription: Self.device2)
        #expect(s1.device == HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch",
                                          hardware: "Watch6,2", software: "10.1"))
        #expect(s2.device?.software == "10.2")
        #expect(s1.key == s2.key)
        #expect(!s1.key.contains("0x"))

        try await TestStores.withStore(kind) { store in
            let a = HealthSample(type: "heartRate", start: at(0), end: at(0), value: .quantity(60, unit: "count/min"), source: s1)
            let b = HealthSample(type: "heartRate", start: at(60), end: at(60), value: .quantity(61, unit: "count/min"), source: s2)
            #expect(try await store.save([a, b]).inserted == 2)

            let sources = try await store.sources(type: "heartRate")
            #expect(sources.count == 1)
            let only = try #require(sources.first)
            #expect(only.source.name == "Alex’s Apple Watch")
            #expect(only.source.device?.hardware == "Watch6,2")
            #expect(only.category == .appleWatch)
            #expect(only.count == 2)
            #expect(only.rank == 0)
            #expect(try await store.sources(type: nil).count == 1)

            // Each sample keeps its own source version.
            #expect(try await all(store, "heartRate").map(\.source.version) == ["10.1", "10.2"])
            // Both are found by the source's name.
            #expect(try await store.samples(SampleQuery(type: "heartRate", sources: ["Alex’s Apple Watch"])).samples.count == 2)
        }
    }

    @Test func categories() {
        #expect(healthAppSource.category == .userEntered)
        #expect(HealthSource(name: "Health").category == .userEntered)
        #expect(watchSource.category == .appleWatch)
        #expect(phoneSource.category == .iPhone)
        #expect(scaleSource.category == .otherDevice)
        #expect(appSource.category == .app)
    }

    static let strava = HealthSource(name: "Strava", bundleIdentifier: "com.strava.stravaride")

    /// stepCount from six sources (the watch twice), saved in a scrambled order; heartRate from the watch only.
    static func priorityStore(_ store: some HealthStore) async throws {
        _ = try await store.save([
            qty(0, 60, 1, source: strava), qty(60, 120, 2, source: scaleSource), qty(120, 180, 3, source: appSource),
            qty(180, 240, 4, source: phoneSource), qty(240, 300, 5, source: watchSource),
            qty(300, 360, 6, source: healthAppSource), qty(360, 420, 7, source: watchSource),
            qty("heartRate", 0, 0, 60, unit: "count/min", source: watchSource),
        ])
    }

    /// Source number → rank for `type`: SQLite's own interned-id table (`sourceRanks`); on another store, the ranks
    /// of ``HealthStore/priority(type:counts:)`` without counts, which must name the same numbers.
    static func ranks(_ store: any HealthStore, type: String) async throws -> [Int64: Int] {
        if let sqlite = store as? SQLiteHealthStore { return try await sqlite.sourceRanks(type: type) }
        var ranks: [Int64: Int] = [:]
        for entry in try await store.priority(type: type, counts: false) { ranks[entry.id] = entry.rank }
        return ranks
    }

    static let defaultOrder = ["Health", "Alex’s Apple Watch", "Alex’s iPhone", "Withings", "MyFitnessPal", "Strava"]

    @Test(arguments: TestStores.kinds)
    func theDefaultPriorityOrderFollowsCategoriesThenNames(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            try await Self.priorityStore(store)
            let priority = try await store.priority(type: "stepCount")
            #expect(priority.map(\.source.name) == Self.defaultOrder)
            #expect(priority.map(\.category) == [.userEntered, .appleWatch, .iPhone, .otherDevice, .app, .app])
            #expect(priority.map(\.rank) == [0, 1, 2, 3, 4, 5])
            #expect(priority.map(\.count) == [1, 2, 1, 1, 1, 1])
            #expect(priority.allSatisfy { !$0.userOrdered })
            #expect(try await store.sources(type: "stepCount") == priority)

            let heart = try await store.priority(type: "heartRate")
            #expect(heart.map(\.source.name) == ["Alex’s Apple Watch"])
            #expect(try await store.priority(type: "vo2Max").isEmpty)

            // All sources, counts over all types.
            let everything = try await store.sources(type: nil)
            #expect(everything.map(\.source.name) == Self.defaultOrder)
            #expect(everything.first { $0.source.name == "Alex’s Apple Watch" }?.count == 3)
            #expect(everything.allSatisfy { $0.rank == nil })

            let ranks = try await Self.ranks(store, type: "stepCount")
            #expect(ranks.count == 6)
            for entry in priority { #expect(ranks[entry.id] == entry.rank) }
            #expect(try await Self.ranks(store, type: "vo2Max").isEmpty)
        }
    }

    @Test(arguments: TestStores.kinds)
    func setPriorityReordersAndResetRestoresTheDefault(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            try await Self.priorityStore(store)
            let ids = Dictionary(uniqueKeysWithValues: try await store.priority(type: "stepCount").map { ($0.source.name, $0.id) })

            // By name (case-insensitive) and by key; unnamed sources keep the default order after them.
            try await store.setPriority(type: "stepCount", sources: ["strava", appSource.key, "Alex’s iPhone"])
            let reordered = try await store.priority(type: "stepCount")
            #expect(reordered.map(\.source.name)
                    == ["Strava", "MyFitnessPal", "Alex’s iPhone", "Health", "Alex’s Apple Watch", "Withings"])
            #expect(reordered.map(\.userOrdered) == [true, true, true, false, false, false])
            #expect(reordered.map(\.rank) == [0, 1, 2, 3, 4, 5])
            let ranks = try await Self.ranks(store, type: "stepCount")
            #expect(ranks[ids["Strava"]!] == 0)
            #expect(ranks[ids["Health"]!] == 3)
            #expect(ranks[ids["Withings"]!] == 5)
            // Another type is untouched.
            #expect(try await store.priority(type: "heartRate").allSatisfy { !$0.userOrdered })

            // Setting again replaces the whole stored order.
            try await store.setPriority(type: "stepCount", sources: ["Withings"])
            #expect(try await store.priority(type: "stepCount").map(\.source.name)
                    == ["Withings", "Health", "Alex’s Apple Watch", "Alex’s iPhone", "MyFitnessPal", "Strava"])

            try await store.resetPriority(type: "stepCount")
            let reset = try await store.priority(type: "stepCount")
            #expect(reset.map(\.source.name) == Self.defaultOrder)
            #expect(reset.allSatisfy { !$0.userOrdered })
            try await store.resetPriority(type: "vo2Max")  // no samples: nothing to reset, no error
        }
    }

    @Test(arguments: TestStores.kinds) func setPriorityRejectsUnknownSourcesAndTypes(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            try await Self.priorityStore(store)
            try await store.setPriority(type: "stepCount", sources: ["Strava"])

            let unknownSource = await #expect(throws: HealthError.self) {
                try await store.setPriority(type: "stepCount", sources: ["Alex’s iPhone", "Garmin Connect"])
            }
            #expect(unknownSource?.code == .invalidArgument)
            // A source of another type only is unknown for this type.
            let wrongType = await #expect(throws: HealthError.self) {
                try await store.setPriority(type: "heartRate", sources: ["Strava"])
            }
            #expect(wrongType?.code == .invalidArgument)
            // The stored order is untouched by the failed calls.
            #expect(try await store.priority(type: "stepCount").first?.source.name == "Strava")

            let unknownType = await #expect(throws: HealthError.self) {
                try await store.setPriority(type: "vo2Max", sources: ["Strava"])
            }
            #expect(unknownType?.code == .invalidType)
        }
    }

    /// SQLite: a file store reopened; PostgreSQL: a new store on the same schema.
    @Test(arguments: TestStores.kinds)
    func priorityPersistsAcrossReopening(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            do {
                let store = try await place.open()
                try await Self.priorityStore(store)
                try await store.setPriority(type: "stepCount", sources: ["MyFitnessPal", "Withings"])
            }
            let reopened = try await place.open()
            let priority = try await reopened.priority(type: "stepCount")
            #expect(priority.map(\.source.name)
                    == ["MyFitnessPal", "Withings", "Health", "Alex’s Apple Watch", "Alex’s iPhone", "Strava"])
            #expect(priority.map(\.userOrdered) == [true, true, false, false, false, false])
            #expect(priority.first?.category == .app)
            #expect(priority.map(\.count) == [1, 1, 1, 2, 1, 1])
        }
    }
}
