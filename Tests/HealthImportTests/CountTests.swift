import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing
import ZIPFoundation

/// The element counts of a document computed from its bytes, as the report names them.
func expectedElements(_ data: Data) -> [String: Int] {
    let body = Data(ByteCount.body(data).utf8)
    var counts: [String: Int] = [:]
    for name in ["Record", "Correlation", "Workout", "ActivitySummary", "Me", "ExportDate", "ClinicalRecord", "Audiogram",
                 "VisionPrescription"] {
        let n = ByteCount.occurrences(of: "<\(name) ", in: body) + ByteCount.occurrences(of: "<\(name)>", in: body)
            + ByteCount.occurrences(of: "<\(name)\n", in: body)
        if n > 0 { counts[name] = n }
    }
    let nested = ByteCount.recordsInCorrelations(in: data)
    if nested > 0 {
        counts["Record", default: 0] -= nested
        counts["Record (in Correlation)"] = nested
    }
    return counts
}

/// The report's counts of XML elements (not of the files read beside the XML).
func xmlElements(_ report: ImportReport) -> [String: Int] {
    report.elements.filter { $0.key != "GPX file" && $0.key != "Electrocardiogram" }
}

@Suite("Counts: the report and the store match the files")
struct CountTests {
    @Test("generated export: elements and record types equal the counts in the bytes")
    func generated() async throws {
        let dir = try TempDir()
        let export = FullExport.fixture
        let (store, report) = try await importFresh(try export.writeZip(in: dir.url))
        #expect(xmlElements(report) == expectedElements(export.data))
        #expect(report.recordTypes == ByteCount.recordTypes(in: export.data))
        #expect(report.elements["GPX file"] == 1)
        #expect(report.elements["Electrocardiogram"] == 1)
        #expect(report.documentsInserted == 1 + 1 + 2 + 1 + 1 + 1 + 1)  // ExportDate, Me, 2 summaries, clinical, audiogram, vision, ECG
        #expect(report.workoutsInserted == 2)
        #expect(try await store.workouts(WorkoutQuery()).count == expectedElements(export.data)["Workout"])
    }

    @Test("real iPhone 2019 export: 3,352 records read, stored and counted by type",
          .enabled(if: RealFixtures.exists(RealFixtures.iphone2019), "fixture \(RealFixtures.iphone2019) not found"))
    func realIPhone() async throws {
        let url = RealFixtures.url(RealFixtures.iphone2019)
        let data = try Data(contentsOf: url)
        let records = ByteCount.occurrences(of: "<Record ", in: data)
        #expect(records == 3_352)
        let (store, report) = try await importFresh(url)
        #expect(report.exportVersion == 8)
        #expect(report.records == records)
        #expect(xmlElements(report) == expectedElements(data))
        #expect(report.recordTypes == ByteCount.recordTypes(in: data))
        #expect(report.skippedCount == 0, "\(report.skipped.prefix(5))")
        #expect(report.samplesInserted == 3_352)
        #expect(try await sampleCount(store) == 3_352)
        // Per type, the store holds what the file has.
        for summary in try await store.typeSummaries() {
            let written = report.recordTypes.filter { SampleTypeRegistry.registered($0.key)?.identifier ?? $0.key == summary.type }
            #expect(summary.count == written.values.reduce(0, +), "\(summary.type)")
        }
        // The two records dated 2030 are kept as they are.
        let last = try #require(try await store.typeSummaries().compactMap(\.last).max())
        #expect(Calendar(identifier: .gregorian).component(.year, from: last) == 2030)
    }

    @Test("realistic v14 export: 26 top-level records + 2 in a correlation, 2 workouts, 3 activity summaries",
          .enabled(if: RealFixtures.exists(RealFixtures.v14), "fixture \(RealFixtures.v14) not found"))
    func realisticV14() async throws {
        let url = RealFixtures.url(RealFixtures.v14)
        let data = try Data(contentsOf: url)
        let expected = expectedElements(data)
        #expect(expected["Record"] == 26)
        #expect(expected["Record (in Correlation)"] == 2)
        #expect(expected["Workout"] == 2)
        #expect(expected["ActivitySummary"] == 3)
        let (store, report) = try await importFresh(url)
        #expect(report.exportVersion == 14)
        #expect(xmlElements(report) == expected)
        #expect(report.recordTypes == ByteCount.recordTypes(in: data))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        #expect(try await sampleCount(store) == 28)
        #expect(try await store.workouts(WorkoutQuery()).count == 2)
        #expect(try await store.documents(kind: .activitySummary, start: nil, end: nil, limit: nil).count == 3)
        let bp = try #require(try await store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil).first)
        let members = try await allSamples(store, "bloodPressureSystolic") + allSamples(store, "bloodPressureDiastolic")
        #expect(Set(bp.members) == Set(members.map(\.uuid)))
        #expect(members.count == 2)
        // The GPX files it names are not part of this bare XML: reported, not fatal.
        #expect(report.routesMissing.count == ByteCount.occurrences(of: "<FileReference ", in: data))
        let glucose = try await allSamples(store, "bloodGlucose")
        #expect(glucose.count == 2)
    }

    @Test("real route zip: the GPX point count equals the <trkpt count of the GPX entry",
          .enabled(if: RealFixtures.exists(RealFixtures.routeZip), "fixture \(RealFixtures.routeZip) not found"))
    func realRouteZip() async throws {
        let url = RealFixtures.url(RealFixtures.routeZip)
        let archive = try Archive(url: url, accessMode: .read)
        var gpx = Data(), xml = Data()
        for entry in archive where !entry.path.contains("__MACOSX") {
            if entry.path.hasSuffix(".gpx") { _ = try archive.extract(entry, skipCRC32: true) { gpx.append($0) } }
            if entry.path.hasSuffix("export.xml") { _ = try archive.extract(entry, skipCRC32: true) { xml.append($0) } }
        }
        let trkpts = ByteCount.occurrences(of: "<trkpt", in: gpx)
        #expect(trkpts > 100)
        let (store, report) = try await importFresh(url)
        #expect(xmlElements(report) == expectedElements(xml))
        #expect(report.recordTypes == ByteCount.recordTypes(in: xml))
        #expect(report.routesMissing.isEmpty)
        #expect(report.routePoints == trkpts)
        #expect(report.elements["GPX file"] == 1)
        // The route reader's timings: wall time and its thread's CPU time for the same work (the CPU time cannot
        // exceed the wall time by more than the clocks' resolution).
        let wall = try #require(report.routeSeconds)
        let cpu = try #require(report.routeCPUSeconds)
        #expect(wall > 0 && cpu > 0 && cpu <= wall + 0.01)
        let workout = try #require(try await store.workouts(WorkoutQuery()).first)
        #expect(workout.activityType == "walking")
        #expect(workout.timeZone == "America/Los_Angeles")
        #expect(workout.events.count == 4)
        #expect(workout.statistics.count == 3)
        let route = try #require(workout.routes.first)
        let points = try await store.routePoints(route.uuid, offset: 0, limit: 100_000)
        #expect(points.count == trkpts)
        // Point by point: the first and last GPX points, as written.
        #expect(points.first?.latitude == 34.045088 && points.first?.longitude == -118.232524)
        #expect(points.first?.elevation == 85.651855)
        #expect(points.first?.speed == 1.154731)
        #expect(points.first?.time == date("2020-02-24T18:00:45Z"))
        let lastPoint = try #require(String(decoding: gpx, as: UTF8.self).components(separatedBy: "<trkpt ").last)
        let lat = lastPoint.components(separatedBy: "lat=\"")[1].prefix { $0 != "\"" }
        #expect(points.last?.latitude == Double(lat))
    }
}
