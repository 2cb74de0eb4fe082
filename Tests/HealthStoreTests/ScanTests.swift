import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct ScanTests {
    static func rows(_ store: some HealthStore, _ request: ScanRequest) async throws -> [ScanRow] {
        var rows: [ScanRow] = []
        try await store.scan(request) { rows.append($0) }
        return rows
    }

    static func secs(_ offset: Double) -> Double { at(offset).timeIntervalSince1970 }

    @Test(arguments: TestStores.kinds)
    func rowsComeInStartOrderConvertedAndOverlappingTheRange(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let type = "distanceWalkingRunning"
            let f = qty(type, 1800, 1900, 750, unit: "m", source: watchSource)
            let b = qty(type, 100, 200, 500, unit: "m")
            let c = qty(type, 100, 150, 0.25, unit: "km")
            let longBefore = qty(type, -600, 300, 1.2, unit: "km")   // starts before the range, ends inside
            let atEnd = qty(type, 3600, 3700, 1, unit: "km")          // starts when the range ends: out
            let before = qty(type, -1000, -500, 2, unit: "km")        // ends before the range: out
            let mile = qty(type, 2000, 2600, 1, unit: "mi")
            _ = try await store.save([f, b, c, longBefore, atEnd, before, mile])

            let request = ScanRequest(type: type, start: at(0), end: at(3600), unit: "m")
            let rows = try await Self.rows(store, request)
            // Ascending start; b and c share a start and keep their save order.
            #expect(rows.map(\.start) == [-600, 100, 100, 1800, 2000].map(Self.secs))
            #expect(rows.map(\.end) == [300, 200, 150, 1900, 2600].map(Self.secs))
            // The mile's length is the model's business (HealthUnit); the store must apply the model's converter.
            let mileInMeters = try HealthUnit.parse("mi").convert(1, to: .meter)
            let expectedMeters = [1200, 500, 250, 750, mileInMeters]
            #expect(approximately(rows.map(\.value), expectedMeters, 1e-9), "\(rows.map(\.value))")

            // In kilometres.
            let km = try await Self.rows(store, ScanRequest(type: type, start: at(0), end: at(3600), unit: "km"))
            #expect(approximately(km.map(\.value), [1.2, 0.5, 0.25, 0.75, mileInMeters / 1000], 1e-12), "\(km.map(\.value))")
            // No unit: the recorded values.
            let raw = try await Self.rows(store, ScanRequest(type: type, start: at(0), end: at(3600), unit: nil))
            #expect(raw.map(\.value) == [1.2, 500, 0.25, 750, 1])

            // Restricted to one source.
            let watchID = try #require(try await store.sources(type: type).first { $0.source.name == watchSource.name }?.id)
            let watchRows = try await Self.rows(store, ScanRequest(type: type, start: at(0), end: at(3600), unit: "m",
                                                                   sourceIDs: [watchID]))
            #expect(watchRows.map(\.start) == [Self.secs(1800)])
            #expect(watchRows.map(\.sourceID) == [watchID])
            #expect(rows.filter { $0.sourceID == watchID }.count == 1)
        }
    }

    @Test(arguments: TestStores.kinds)
    func incompatibleUnitsGiveNaNAndCategoriesKeepTheirRawValue(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            _ = try await store.save([qty(0, 60, 100), qty(60, 120, 5, unit: "m")])  // a bogus stepCount in metres
            let steps = try await Self.rows(store, ScanRequest(type: "stepCount", start: at(0), end: at(200), unit: "count"))
            #expect(steps.count == 2)
            #expect(steps.first?.value == 100)
            #expect(steps.last?.value.isNaN == true)

            _ = try await store.save([
                HealthSample(type: "sleepAnalysis", start: at(0), end: at(3600), value: .category(3), source: watchSource),
                HealthSample(type: "mindfulSession", start: at(0), end: at(600), value: .none, source: appSource),
            ])
            let sleep = try await Self.rows(store, ScanRequest(type: "sleepAnalysis", start: at(0), end: at(7200), unit: "count"))
            #expect(sleep.map(\.value) == [3])
            let mindful = try await Self.rows(store, ScanRequest(type: "mindfulSession", start: at(0), end: at(7200), unit: nil))
            #expect(mindful.count == 1)
            #expect(mindful.first?.value.isNaN == true)

            #expect(try await Self.rows(store, ScanRequest(type: "vo2Max", start: at(0), end: at(7200), unit: nil)).isEmpty)
            let error = await #expect(throws: HealthError.self) {
                try await Self.rows(store, ScanRequest(type: "stepCount", start: at(0), end: at(200), unit: "furlongs per fortnight"))
            }
            #expect(error?.code == .invalidUnit)
        }
    }
}
