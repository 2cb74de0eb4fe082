import Foundation
import HealthAPI
import HealthBridgeTesting
import HealthModel
@testable import HealthService
import HealthStore
import Testing

/// Issue 27: the same demo world behind the service on each kind of store answers the same catalog, summaries,
/// samples, latest values, sources and change feed, value for value. The reference is a SQLite store; each kind of
/// ``TestStores/kinds`` is compared with it (SQLite against SQLite checks that the world and the service are
/// deterministic; PostgreSQL against SQLite is the conformance that matters).
@Suite("The service on both stores")
struct ServiceOnBothStoresTests {
    static let world = DemoWorld(days: 10, seed: 3, end: HealthServiceTests.now, zone: HealthServiceTests.utc)

    /// What a call gave: its value, or the error's code and message (errors must match too).
    enum Outcome<Value: Equatable>: Equatable {
        case value(Value)
        case failure(HealthError.Code, String)
    }

    static func outcome<Value: Equatable>(_ call: () async throws -> Value) async throws -> Outcome<Value> {
        do {
            return .value(try await call())
        } catch let error as HealthError {
            return .failure(error.code, error.message)
        }
    }

    /// Runs `body` with a service over a SQLite store of the world (the reference) and one over a store of `kind`.
    static func withServices(_ kind: TestStoreKind,
                             _ body: (_ reference: HealthService, _ other: HealthService) async throws -> Void)
        async throws
    {
        try await TestStores.withStore(.sqlite) { referenceStore in
            let reference = try await world.service(over: referenceStore)
            try await TestStores.withStore(kind) { store in
                try await body(reference, try await world.service(over: store))
            }
        }
    }

    /// Every page of a type's samples, walked with the service's own cursors.
    static func allSamples(_ service: HealthService, type: String, limit: Int) async throws -> [SampleRecord] {
        var records: [SampleRecord] = []
        var request = SamplesRequest(type: type, start: "2024-06-01", end: "2024-07-01", limit: limit)
        for _ in 0..<10_000 {
            let page = try await service.samples(request)
            records += page.samples
            guard let next = page.nextCursor else { return records }
            request = SamplesRequest(cursor: next)
        }
        Issue.record("sample paging never ended for \(type)")
        return records
    }

    /// The whole change feed from the start, page by page.
    static func allChanges(_ service: HealthService, since anchor: String?, limit: Int) async throws -> [ChangesResult] {
        var pages: [ChangesResult] = []
        var from = anchor
        for _ in 0..<10_000 {
            let page = try await service.changes(ChangesRequest(anchor: from, limit: limit))
            pages.append(page)
            from = page.anchor
            if !page.hasMore { return pages }
        }
        Issue.record("the change feed never reported hasMore == false")
        return pages
    }

    /// The pages with every tombstone's `deleted_at` (the wall clock of each deletion) left out.
    static func withoutDeletionTimes(_ pages: [ChangesResult]) -> [ChangesResult] {
        pages.map { page in
            var page = page
            page.deleted = page.deleted.map { var deleted = $0; deleted.deletedAt = ""; return deleted }
            return page
        }
    }

    @Test("the catalog: types, sources and priorities", arguments: TestStores.kinds)
    func catalog(kind: TestStoreKind) async throws {
        try await Self.withServices(kind) { reference, other in
            let types = try await reference.types()
            #expect(types.count > 5, "the demo world has several types")
            #expect(try await other.types() == types)
            #expect(try await other.sources(SourcesRequest()) == (try await reference.sources(SourcesRequest())))
            for type in types.types.map(\.type) {
                #expect(try await Self.outcome { try await other.sources(SourcesRequest(type: type)) }
                        == (try await Self.outcome { try await reference.sources(SourcesRequest(type: type)) }), "\(type)")
                #expect(try await Self.outcome { try await other.priority(PriorityRequest(type: type)) }
                        == (try await Self.outcome { try await reference.priority(PriorityRequest(type: type)) }),
                        "\(type)")
            }
        }
    }

    @Test("summaries of every type: daily, hourly, totals, by source and contributions", arguments: TestStores.kinds)
    func summaries(kind: TestStoreKind) async throws {
        try await Self.withServices(kind) { reference, other in
            let types = try await reference.types().types.map(\.type)
            #expect(types.contains("stepCount") && types.contains("heartRate"))
            var requests: [SummaryRequest] = []
            for type in types {
                requests.append(SummaryRequest(type: type, start: "2024-06-20", end: "2024-07-01"))
                requests.append(SummaryRequest(type: type, start: "2024-06-28", end: "2024-06-29", interval: "hour"))
                requests.append(SummaryRequest(type: type, start: "2024-06-20", end: "2024-07-01", interval: "total",
                                               bySource: true))
            }
            requests.append(SummaryRequest(type: "stepCount", start: "2024-06-20", end: "2024-07-01", contributions: true))
            requests.append(SummaryRequest(type: "stepCount", start: "2024-06-20", end: "2024-07-01", interval: "15minute",
                                           skipEmpty: true))
            requests.append(SummaryRequest(type: "heartRate", start: "2024-06-20", end: "2024-07-01", interval: "week",
                                           statistics: ["average", "min", "max"]))
            var compared = 0
            for request in requests {
                let expected = try await Self.outcome { try await reference.summary(request) }
                #expect(try await Self.outcome { try await other.summary(request) } == expected,
                        "\(request.type ?? "") \(request.interval ?? "day")")
                if case .value = expected { compared += 1 }
            }
            #expect(compared >= types.count, "most summaries answer with buckets")
        }
    }

    @Test("samples of every type, walked page by page, and the latest value of each", arguments: TestStores.kinds)
    func samplesAndLatest(kind: TestStoreKind) async throws {
        try await Self.withServices(kind) { reference, other in
            let types = try await reference.types().types.map(\.type)
            var total = 0
            for type in types {
                let expected = try await Self.outcome { try await Self.allSamples(reference, type: type, limit: 250) }
                #expect(try await Self.outcome { try await Self.allSamples(other, type: type, limit: 250) } == expected,
                        "\(type)")
                if case .value(let records) = expected { total += records.count }
                #expect(try await Self.outcome { try await other.latest(LatestRequest(type: type)) }
                        == (try await Self.outcome { try await reference.latest(LatestRequest(type: type)) }), "\(type)")
            }
            #expect(total > 1_000, "the demo world's samples were compared")
            // Newest first, one page, of one source.
            let watch = try #require(try await reference.sources(SourcesRequest(type: "heartRate")).sources.first?.name)
            let newest = SamplesRequest(type: "heartRate", limit: 20, ascending: false, sources: [watch])
            #expect(try await Self.outcome { try await other.samples(newest).samples }
                    == (try await Self.outcome { try await reference.samples(newest).samples }))
        }
    }

    @Test("the change feed: everything from the start, then a deletion", arguments: TestStores.kinds)
    func changes(kind: TestStoreKind) async throws {
        try await Self.withServices(kind) { reference, other in
            let expected = try await Self.allChanges(reference, since: nil, limit: 700)
            #expect(expected.count > 1, "the feed took several pages")
            // Tombstones (if the world has any) carry the wall clock of their deletion: everything else is equal.
            #expect(Self.withoutDeletionTimes(try await Self.allChanges(other, since: nil, limit: 700))
                    == Self.withoutDeletionTimes(expected))
            #expect(try await other.changesAnchor() == (try await reference.changesAnchor()))

            // Delete the same samples from both stores: the same tombstones follow the same anchor.
            let anchor = try #require(expected.last?.anchor)
            let steps = try await reference.store.samples(SampleQuery(type: "stepCount", limit: 5)).samples.map(\.uuid)
            #expect(steps.count == 5)
            #expect(try await reference.store.delete(uuids: steps) == 5)
            #expect(try await other.store.delete(uuids: steps) == 5)
            let afterReference = try await Self.allChanges(reference, since: anchor, limit: 3)
            let afterOther = try await Self.allChanges(other, since: anchor, limit: 3)
            #expect(afterReference.flatMap(\.deleted).count == 5)
            #expect(afterOther.flatMap(\.deleted).allSatisfy { ISO8601.date($0.deletedAt) != nil })
            #expect(Self.withoutDeletionTimes(afterOther) == Self.withoutDeletionTimes(afterReference))
        }
    }
}
