import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct SampleQueryTests {
    /// Samples around the range [1000, 2000) (seconds after t0), named by where they sit.
    static let edgeSamples: [String: (Double, Double)] = [
        "endsBefore": (900, 999),
        "endsAtStart": (900, 1000),
        "straddlesStart": (950, 1050),
        "startsAtStart": (1000, 1100),
        "inside": (1500, 1600),
        "straddlesEnd": (1900, 2100),
        "endsAtEnd": (1950, 2000),
        "startsAtEnd": (2000, 2050),
        "instantAtEnd": (2000, 2000),
        "spansRange": (500, 2500),
        "early": (0, 10),
        "late": (3000, 3100),
    ]

    /// Saves the edge samples into `store`; returns their names by UUID.
    static func fillEdges(_ store: some HealthStore) async throws -> [UUID: String] {
        var names: [UUID: String] = [:]
        var samples: [HealthSample] = []
        for (index, (name, span)) in edgeSamples.sorted(by: { $0.key < $1.key }).enumerated() {
            let sample = qty(span.0, span.1, Double(index + 1))
            names[sample.uuid] = name
            samples.append(sample)
        }
        _ = try await store.save(samples)
        return names
    }

    static func names(_ store: some HealthStore, _ names: [UUID: String], start: Double?, end: Double?,
                      _ matching: DateMatching) async throws -> [String] {
        let page = try await store.samples(SampleQuery(type: "stepCount", start: start.map(at), end: end.map(at),
                                                       matching: matching))
        return page.samples.map { names[$0.uuid] ?? "?" }
    }

    @Test(arguments: TestStores.kinds)
    func overlapMatchesSamplesEndingAtOrAfterStartAndStartingBeforeEnd(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let names = try await Self.fillEdges(store)
            // Ascending by start: spansRange 500, endsAtStart 900, straddlesStart 950, startsAtStart 1000, inside 1500,
            // straddlesEnd 1900, endsAtEnd 1950.
            #expect(try await Self.names(store, names, start: 1000, end: 2000, .overlap)
                    == ["spansRange", "endsAtStart", "straddlesStart", "startsAtStart", "inside", "straddlesEnd", "endsAtEnd"])
            // Open-ended ranges.
            #expect(try await Self.names(store, names, start: 2050, end: nil, .overlap)
                    == ["spansRange", "straddlesEnd", "startsAtEnd", "late"])
            #expect(try await Self.names(store, names, start: nil, end: 900, .overlap) == ["early", "spansRange"])
        }
    }

    @Test(arguments: TestStores.kinds)
    func strictStartDateMatchesSamplesStartingInsideTheRange(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let names = try await Self.fillEdges(store)
            #expect(try await Self.names(store, names, start: 1000, end: 2000, .strictStartDate)
                    == ["startsAtStart", "inside", "straddlesEnd", "endsAtEnd"])
        }
    }

    @Test(arguments: TestStores.kinds)
    func strictEndDateMatchesSamplesEndingInsideTheRange(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let names = try await Self.fillEdges(store)
            // start < sample.end <= end: endsAtStart (end 1000) is out, endsAtEnd and instantAtEnd (end 2000) are in.
            let matched = try await Self.names(store, names, start: 1000, end: 2000, .strictEndDate)
            #expect(matched == ["straddlesStart", "startsAtStart", "inside", "endsAtEnd", "instantAtEnd"])
        }
    }

    @Test(arguments: TestStores.kinds) func limitAndOrder(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let samples = (0..<5).map { qty(Double($0) * 10, Double($0) * 10 + 5, Double($0)) }
            _ = try await store.save(samples.shuffled())
            let ascending = try await store.samples(SampleQuery(type: "stepCount", limit: 3))
            #expect(ascending.samples.map(\.uuid) == samples[0..<3].map(\.uuid))
            #expect(ascending.nextCursor != nil)
            let descending = try await store.samples(SampleQuery(type: "stepCount", limit: 3, ascending: false))
            #expect(descending.samples.map(\.uuid) == [samples[4], samples[3], samples[2]].map(\.uuid))
            let everything = try await store.samples(SampleQuery(type: "stepCount", limit: 5))
            #expect(everything.samples.count == 5)
            #expect(everything.nextCursor == nil)  // nothing more: no cursor
            let unlimited = try await store.samples(SampleQuery(type: "stepCount", ascending: false))
            #expect(unlimited.samples.map(\.uuid) == samples.reversed().map(\.uuid))
            #expect(unlimited.nextCursor == nil)
            let zero = try await store.samples(SampleQuery(type: "stepCount", limit: 0))
            #expect(zero.samples.isEmpty)
        }
    }

    /// Ten samples, several sharing a start date, saved in this order.
    static let sharedStarts: [Double] = [0, 0, 0, 10, 10, 20, 20, 20, 20, 30]

    static func walk(_ store: some HealthStore, _ query: SampleQuery) async throws -> [[HealthSample]] {
        var pages: [[HealthSample]] = []
        var query = query
        for _ in 0..<1000 {
            let page = try await store.samples(query)
            pages.append(page.samples)
            guard let next = page.nextCursor else { return pages }
            query.cursor = next
        }
        Issue.record("cursor paging never ended")
        return pages
    }

    @Test(arguments: TestStores.kinds, [1, 2, 3, 4, 5, 9, 10, 11])
    func cursorPagingVisitsEverySampleOnceIncludingIdenticalStarts(kind: TestStoreKind, limit: Int) async throws {
        try await TestStores.withStore(kind) { store in
            let samples = Self.sharedStarts.enumerated().map { index, start in qty(start, start + 5, Double(index)) }
            _ = try await store.save(samples)
            // Expected order: by start, then by insertion (the saved order).
            let expected = samples.map(\.uuid)

            let ascendingPages = try await Self.walk(store, SampleQuery(type: "stepCount", limit: limit))
            #expect(ascendingPages.flatMap { $0 }.map(\.uuid) == expected)
            #expect(ascendingPages.count == max(1, (samples.count + limit - 1) / limit))
            #expect(ascendingPages.dropLast().allSatisfy { $0.count == limit })

            let descendingPages = try await Self.walk(store, SampleQuery(type: "stepCount", limit: limit, ascending: false))
            #expect(descendingPages.flatMap { $0 }.map(\.uuid) == expected.reversed())
        }
    }

    @Test(arguments: TestStores.kinds)
    func cursorPagingWithFractionalTimestampsAndARange(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            // Millisecond and sub-millisecond starts, some repeated.
            let base = 1_714_521_600.0
            let offsets: [Double] = [0.1, 0.1, 0.2, 0.3, 0.3, 0.3, 1.7, 2.123456, 2.123456, 3.9, 1e-3, 7.77]
            let samples = offsets.enumerated().map { index, offset in
                HealthSample(type: "stepCount", start: Date(timeIntervalSince1970: base + offset),
                             end: Date(timeIntervalSince1970: base + offset + 0.5), value: .quantity(Double(index), unit: "count"),
                             source: phoneSource)
            }
            _ = try await store.save(samples)
            for limit in [1, 2, 3] {
                let pages = try await Self.walk(store, SampleQuery(type: "stepCount", limit: limit))
                let uuids = pages.flatMap { $0 }.map(\.uuid)
                #expect(uuids.count == samples.count, "limit \(limit)")
                #expect(Set(uuids).count == samples.count, "limit \(limit): duplicates")
                let descending = try await Self.walk(store, SampleQuery(type: "stepCount", limit: limit, ascending: false))
                #expect(descending.flatMap { $0 }.map(\.uuid) == uuids.reversed(), "limit \(limit)")
            }
            // A range cut with a cursor: starts in [base+0.2, base+3) strictly → 0.2, 0.3×3, 1.7, 2.123456×2.
            let ranged = try await Self.walk(store, SampleQuery(
                type: "stepCount", start: Date(timeIntervalSince1970: base + 0.2), end: Date(timeIntervalSince1970: base + 3),
                matching: .strictStartDate, limit: 2))
            #expect(ranged.map(\.count) == [2, 2, 2, 1])
            #expect(ranged.flatMap { $0 }.map { $0.value.quantity } == [2, 3, 4, 5, 6, 7, 8])
        }
    }

    @Test(arguments: TestStores.kinds, ["not a cursor", "", "Zm9vOmJhcg==", "MTIz", "%%%"])
    func aBadCursorIsAnInvalidArgument(kind: TestStoreKind, cursor: String) async throws {
        try await TestStores.withStore(kind) { store in
            _ = try await store.save([qty(0, 1, 1)])
            let error = await #expect(throws: HealthError.self) {
                try await store.samples(SampleQuery(type: "stepCount", limit: 1, cursor: cursor))
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test(arguments: TestStores.kinds) func aReversedRangeIsAnInvalidRange(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            _ = try await store.save([qty(0, 1, 1)])
            for matching in DateMatching.allCases {
                let error = await #expect(throws: HealthError.self) {
                    try await store.samples(SampleQuery(type: "stepCount", start: at(100), end: at(50), matching: matching))
                }
                #expect(error?.code == .invalidRange)
            }
            let deleteError = await #expect(throws: HealthError.self) {
                _ = try await store.delete(matching: SampleQuery(type: "stepCount", start: at(100), end: at(50)))
            }
            #expect(deleteError?.code == .invalidRange)
            #expect(try await all(store).count == 1)
        }
    }

    @Test(arguments: TestStores.kinds) func sourcesFilterByNameOrKey(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let w = qty(0, 60, 1, source: watchSource), p = qty(10, 70, 2, source: phoneSource), a = qty(20, 80, 3, source: appSource)
            _ = try await store.save([w, p, a])
            func uuids(_ sources: [String]?) async throws -> [UUID] {
                try await store.samples(SampleQuery(type: "stepCount", sources: sources)).samples.map(\.uuid)
            }
            #expect(try await uuids(["Alex’s Apple Watch"]) == [w.uuid])
            #expect(try await uuids(["ALEX’S IPHONE", "MyFitnessPal"]) == [p.uuid, a.uuid])
            #expect(try await uuids([appSource.key]) == [a.uuid])
            #expect(try await uuids(["Nobody"]).isEmpty)
            #expect(try await uuids([]).isEmpty)
            #expect(try await uuids(nil) == [w.uuid, p.uuid, a.uuid])
        }
    }

    @Test(arguments: TestStores.kinds) func anUnknownTypeIsAnEmptyPage(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            _ = try await store.save([qty(0, 1, 1)])
            let page = try await store.samples(SampleQuery(type: "HKQuantityTypeIdentifierNeverSaved", limit: 10))
            #expect(page.samples.isEmpty)
            #expect(page.nextCursor == nil)
        }
    }
}
