import Foundation
import HealthAPI
import HealthBridgeTesting
import HealthImport
import HealthModel
import HealthService
import HealthStore
import Logging
import Testing

/// The store seam: a store written against the narrow ``HealthStore`` protocol only (``MemoryHealthStore``, no
/// ``BulkImportStore``) serves the service's core read use cases exactly as the SQLite store does — the proof that a
/// PostgreSQL or HealthKit store needs nothing more.
@Suite struct StoreSeamTests {
    static let end = ISO8601.date("2026-03-10T12:00:00Z")!
    static let world = DemoWorld(days: 6, seed: 5, end: end, zone: .utcZone)

    /// The same demo world in both stores, behind two services with the same zone and clock.
    static func services() async throws -> (sqlite: HealthService, memory: HealthService) {
        let sqlite = try SQLiteHealthStore.inMemory()
        let memory = MemoryHealthStore()
        try await world.populate(sqlite)
        try await world.populate(memory)
        #expect(!(memory as any HealthStore is any BulkImportStore), "the test store is narrow")
        let clock: @Sendable () -> Date = { end }
        return (HealthService(store: sqlite, homeTimeZone: .utcZone, clock: clock),
                HealthService(store: memory, homeTimeZone: .utcZone, clock: clock))
    }

    /// Every page of a samples request, without the cursors (each store issues its own).
    static func allPages(_ service: HealthService, _ request: SamplesRequest) async throws -> [SampleRecord] {
        var request = request
        var records: [SampleRecord] = []
        var pages = 0
        repeat {
            let page = try await service.samples(request)
            records += page.samples
            request = SamplesRequest(limit: request.limit, cursor: page.nextCursor)
            pages += 1
        } while request.cursor != nil && pages < 1_000
        return records
    }

    @Test(arguments: ["heartRate", "stepCount", "sleepAnalysis"])
    func samplesAreTheSameOnANarrowStore(type: String) async throws {
        let (sqlite, memory) = try await Self.services()
        let request = SamplesRequest(type: type, start: "3d", limit: 40)
        let expected = try await Self.allPages(sqlite, request)
        #expect(expected.count > 40, "several pages")
        #expect(try await Self.allPages(memory, request) == expected)
        let oldestFirst = SamplesRequest(type: type, start: "2d", limit: 5_000, ascending: true,
                                         sources: ["Alex’s Apple Watch"])
        #expect(try await memory.samples(oldestFirst) == sqlite.samples(oldestFirst))
    }

    @Test func summariesMergeSourcesTheSameWayOnANarrowStore() async throws {
        let (sqlite, memory) = try await Self.services()
        let requests = [
            SummaryRequest(type: "stepCount", start: "6d", interval: "day"),
            SummaryRequest(type: "stepCount", start: "2d", interval: "hour", bySource: true, contributions: true),
            SummaryRequest(type: "heartRate", start: "3d", interval: "day"),
            SummaryRequest(type: "activeEnergyBurned", start: "6d", interval: "total", unit: "kJ"),
            SummaryRequest(type: "appleStandHour", start: "6d", interval: "day"),
            SummaryRequest(type: "bodyMass", start: "6d", interval: "total", unit: "lb"),
        ]
        for request in requests {
            let expected = try await sqlite.summary(request)
            #expect(expected.buckets.contains { $0.count > 0 }, "\(request.type ?? "")")
            #expect(try await memory.summary(request) == expected, "\(request.type ?? "") \(request.interval ?? "")")
        }
        let steps = try await memory.summary(SummaryRequest(type: "stepCount", start: "6d", interval: "day"))
        #expect(steps.merged && steps.sourcePriority.count > 1, "iPhone and Watch merged by priority")
        let nights = try await memory.sleep(SleepRequest(start: "6d"))
        #expect(nights.count > 3, "sleep nights: in bed and stages merged in layers")
        #expect(nights == (try await sqlite.sleep(SleepRequest(start: "6d"))))
    }

    @Test func typesSourcesAndPriorityAreTheSameOnANarrowStore() async throws {
        let (sqlite, memory) = try await Self.services()
        #expect(try await memory.types() == sqlite.types())
        #expect(try await memory.sources(SourcesRequest()) == sqlite.sources(SourcesRequest()))
        let change = PriorityRequest(type: "stepCount", set: ["Alex’s iPhone"])
        let changed = try await memory.priority(change)
        #expect(changed.priorityOrder?.first == "Alex’s iPhone" && changed.userOrdered == true)
        #expect(changed == (try await sqlite.priority(change)))
        let request = SummaryRequest(type: "stepCount", start: "6d", interval: "day")
        let reordered = try await memory.summary(request)
        #expect(reordered.sourcePriority.first == "Alex’s iPhone")
        #expect(reordered == (try await sqlite.summary(request)))
    }

    /// The bulk path on a narrow store: ``BulkWriter`` unpacks batches and route columns for the plain API, and
    /// finds synced objects through sample queries — the same answers as SQLite's own bulk path.
    @Test func bulkWritesFallBackToThePlainAPIOnANarrowStore() async throws {
        let sqlite = try SQLiteHealthStore.inMemory()
        let memory = MemoryHealthStore()
        #expect(BulkWriter(sqlite).isBulk && !BulkWriter(memory).isBulk)
        let source = HealthSource(name: "Push")
        let start = Self.end.addingTimeInterval(-3_600)
        func total(_ minute: Int, version: Int, steps: Double) -> HealthSample {
            let at = start.addingTimeInterval(Double(minute) * 60)
            return HealthSample(type: "stepCount", start: at, end: at.addingTimeInterval(60),
                                value: .quantity(steps, unit: "count"), source: source,
                                metadata: [MetadataKey.syncIdentifier: "m\(minute)",
                                           MetadataKey.syncVersion: String(version)])
        }
        var points = RoutePointColumns()
        for index in 0..<5 {
            points.append(time: start.timeIntervalSince1970 + Double(index), latitude: 48.85 + Double(index) / 1_000,
                          longitude: 2.35, elevation: 35)
        }
        let route = UUID()
        let first = BulkTransaction(batch: SampleBatch((0..<10).map { total($0, version: 1, steps: 100) }),
                                    routes: [route: points])
        var second = BulkTransaction(batch: SampleBatch([total(3, version: 2, steps: 150), total(4, version: 1, steps: 100)]))
        second.pageCacheMegabytes = 8
        for store in [sqlite as any HealthStore, memory] {
            let writer = BulkWriter(store)
            await writer.beginBulkWrites()
            let inserted = try await writer.commit(first)
            let replaced = try await writer.commit(second)
            await writer.endBulkWrites()
            #expect(inserted.saved == SaveResult(inserted: 10))
            #expect(replaced.saved == SaveResult(replaced: 1, ignored: 1), "a newer version replaces, the same is ignored")
            let synced = try await writer.syncedObjects(type: "stepCount", sourceKey: source.key, start: start,
                                                        end: Self.end)
            #expect(synced.count == 10 && synced["m3"]?.version == 2 && synced["m3"]?.value == 150)
            #expect(try await writer.routeColumns(route, offset: 1, limit: 3)
                    .latitude == (1...3).map { 48.85 + Double($0) / 1_000 })
        }
        let query = SampleQuery(type: "stepCount")
        #expect(try await memory.samples(query).samples.map(\.uuid) == sqlite.samples(query).samples.map(\.uuid))
    }

    /// An Apple Health export imported through the service lands in a narrow store too (the importer's bulk path
    /// falls back to the plain API), exactly as in SQLite; only the owner imports.
    @Test func anExportImportsIntoANarrowStoreAndOnlyTheOwnerImports() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("export.xml")
        let records = (0..<24).map { hour in
            let start = String(format: "2026-03-09 %02d:00:00 +0000", hour)
            let end = String(format: "2026-03-09 %02d:30:00 +0000", hour)
            return "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Alex’s iPhone\" unit=\"count\" "
                + "startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(100 + hour)\"/>"
        }
        try Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
                  + "<ExportDate value=\"2026-03-10 09:00:00 +0000\"/>\n" + records.joined(separator: "\n")
                  + "\n</HealthData>\n").utf8).write(to: file)
        let clock: @Sendable () -> Date = { Self.end }
        let logger = Logger(label: "test.seam")
        let sqlite = HealthService(store: try SQLiteHealthStore.inMemory(), homeTimeZone: .utcZone, clock: clock)
        let memory = HealthService(store: MemoryHealthStore(), homeTimeZone: .utcZone, clock: clock)
        await #expect(throws: HealthError.self, "only the owner imports") {
            _ = try await memory.acting(as: .mcp()).importAppleHealthExport(file, logger: logger)
        }
        let imported = try await memory.importAppleHealthExport(file, logger: logger)
        #expect(imported.samplesInserted == 24)
        #expect(try await sqlite.importAppleHealthExport(file, logger: logger).samplesInserted == 24)
        #expect(try await memory.importAppleHealthExport(file, logger: logger).alreadyImported == true,
                "the finished import is remembered in the narrow store's settings")
        let day = SummaryRequest(type: "stepCount", start: "2026-03-09", end: "2026-03-10", interval: "day")
        let total = try await memory.summary(day)
        #expect(total.totalSum == Double((0..<24).map { 100 + $0 }.reduce(0, +)))
        #expect(total == (try await sqlite.summary(day)))
    }
}
