import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing

/// Exports whose workouts have GPX routes as the iPhone writes them.
enum RouteExport {
    /// A run on 2024-05-0`day` at 07:30 (+02:00) with a route in `path`.
    static func run(day: Int, path: String) -> String {
        let date = "2024-05-0\(day)"
        return X.element("Workout", [("workoutActivityType", "HKWorkoutActivityTypeRunning"), ("duration", "30"),
                                     ("durationUnit", "min"), ("sourceName", "Alex’s Apple Watch"),
                                     ("startDate", "\(date) 07:30:00 +0200"), ("endDate", "\(date) 08:00:00 +0200")],
                         children: [X.element("WorkoutRoute", [("sourceName", "Alex’s Apple Watch"),
                                                               ("startDate", "\(date) 07:30:00 +0200"),
                                                               ("endDate", "\(date) 08:00:00 +0200")],
                                              children: [X.element("FileReference", [("path", "/" + path)])])])
    }

    /// Values of point `i`, as text with six decimals (the iPhone's format), deterministic but irregular.
    static func fields(_ i: Int) -> [String] {
        let x = Double(i)
        return [48.85 + sin(x / 7) / 100, 2.35 + cos(x / 5) / 100, 35 + sin(x / 11) * 20, 2.5 + sin(x) / 3,
                (x * 37).truncatingRemainder(dividingBy: 360), 1.5 + x.truncatingRemainder(dividingBy: 7) / 3,
                1 + x.truncatingRemainder(dividingBy: 5) / 4].map { String(format: "%.6f", $0) }
    }

    static let start = 1_714_541_400.0  // 2024-05-01T05:30:00Z

    static func gpx(points: Int, day: Int = 1) -> Data {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
              <metadata>
                <time>2024-05-02T07:00:00Z</time>
              </metadata>
              <trk>
                <name>Route</name>
                <trkseg>

            """
        for i in 0..<points {
            let f = fields(i)
            let t = Date(timeIntervalSince1970: start + Double((day - 1) * 86_400 + i))
            text += "      <trkpt lon=\"\(f[1])\" lat=\"\(f[0])\"><ele>\(f[2])</ele><time>\(ISO8601.string(t))</time>"
            text += "<extensions><speed>\(f[3])</speed><course>\(f[4])</course><hAcc>\(f[5])</hAcc><vAcc>\(f[6])</vAcc></extensions></trkpt>\n"
        }
        text += "    </trkseg>\n  </trk>\n</gpx>\n"
        return Data(text.utf8)
    }
}

@Suite("Routes: GPX files imported exactly, bad ones reported")
struct RouteImportTests {
    @Test("every field of every point round-trips exactly: lat, lon, ele, time, speed, course, hAcc, vAcc")
    func exactRoundTrip() async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        let path = "workout-routes/route_2024-05-01_7.30am.gpx"
        export.add(RouteExport.run(day: 1, path: path))
        export.files[path] = RouteExport.gpx(points: 1_500)
        let (store, report) = try await importFresh(try export.writeZip(in: dir.url))
        #expect(report.routePoints == 1_500)
        #expect(report.skippedCount == 0)
        let workout = try #require(try await store.workouts(WorkoutQuery()).first)
        let route = try #require(workout.routes.first)
        let columns = try await store.routeColumns(route.uuid, offset: 0, limit: .max)
        #expect(columns.count == 1_500)
        var mismatches = 0
        for i in 0..<columns.count {
            let f = RouteExport.fields(i).map { Double($0)! }
            let stored = [columns.latitude[i], columns.longitude[i], columns.elevation[i], columns.speed[i],
                          columns.course[i], columns.horizontalAccuracy[i], columns.verticalAccuracy[i]]
            if stored.map(\.bitPattern) != f.map(\.bitPattern) || columns.time[i] != RouteExport.start + Double(i) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        let page = try await store.routePoints(route.uuid, offset: 1_499, limit: 10)
        #expect(page.count == 1)
        #expect(page.first?.time == Date(timeIntervalSince1970: RouteExport.start + 1_499))
        #expect(page.first?.verticalAccuracy == Double(RouteExport.fields(1_499)[6]))
    }

    @Test("a broken GPX file is reported with what it kept; the other routes and the records are intact")
    func badGPX() async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        let good = "workout-routes/route_2024-05-01_7.30am.gpx"
        let cut = "workout-routes/route_2024-05-02_7.30am.gpx"
        let garbage = "workout-routes/route_2024-05-03_7.30am.gpx"
        let missing = "workout-routes/route_2024-05-04_7.30am.gpx"
        export.add(RouteExport.run(day: 1, path: good))
        export.add(RouteExport.run(day: 2, path: cut))
        export.add(RouteExport.run(day: 3, path: garbage))
        export.add(RouteExport.run(day: 4, path: missing))
        export.add(X.steps(321, start: "2024-05-04 10:00:00 +0200", end: "2024-05-04 10:05:00 +0200"))
        export.files[good] = RouteExport.gpx(points: 200)
        let full = RouteExport.gpx(points: 100, day: 2)
        export.files[cut] = full.prefix(full.count / 2)
        export.files[garbage] = Data("%PDF-1.4 this is not a route file\n".utf8)
        let (store, report) = try await importFresh(try export.writeZip(in: dir.url))

        #expect(report.workoutsInserted == 4)
        #expect(report.elements["GPX file"] == 3)
        #expect(report.routesMissing == ["/" + missing])
        let reasons = report.skipped.filter { $0.element == "GPX file" }.map(\.reason)
        #expect(reasons.contains { $0.hasPrefix("/" + cut) && $0.contains("1 track points skipped") })
        #expect(reasons.contains { $0.hasPrefix("/" + garbage) && $0.contains("no track point") })
        #expect(try await allSamples(store, "stepCount").map(\.value.quantity) == [321])

        var counts: [Int] = []
        for workout in try await store.workouts(WorkoutQuery(ascending: true)) {
            let route = try #require(workout.routes.first)
            counts.append(try await store.routeColumns(route.uuid, offset: 0, limit: .max).count)
        }
        // The cut file keeps the points before the cut (about half), the others all or nothing.
        #expect(counts[0] == 200)
        #expect((40..<60).contains(counts[1]))
        #expect(counts[2] == 0 && counts[3] == 0)
        #expect(report.routePoints == 200 + counts[1])
    }

    @Test("a re-imported zip is recognised; a zip whose GPX file changed by one digit is not")
    func zipRecognition() async throws {
        let dir = try TempDir()
        let path = "workout-routes/route_2024-05-01_7.30am.gpx"
        var export = ExportFixture()
        export.add(RouteExport.run(day: 1, path: path))
        export.files[path] = RouteExport.gpx(points: 50)
        let original = try export.writeZip(in: dir.url, zipName: "a.zip")
        var text = String(decoding: RouteExport.gpx(points: 50), as: UTF8.self)
        let first = try #require(text.range(of: "<ele>"))
        let digit = text.index(first.upperBound, offsetBy: 1)
        text.replaceSubrange(digit...digit, with: text[digit] == "7" ? "8" : "7")
        export.files[path] = Data(text.utf8)
        let changed = try export.writeZip(in: dir.url, zipName: "b.zip")

        let store = try SQLiteHealthStore.inMemory()
        #expect(try await ExportImporter(store: store).run(original).alreadyImported == false)
        #expect(try await ExportImporter(store: store).run(original).alreadyImported)
        let second = try await ExportImporter(store: store).run(changed)
        #expect(second.alreadyImported == false)
        #expect(second.routePoints == 50)
    }

    @Test("the real export's GPX route: every point of the file, first and last exactly as written",
          .enabled(if: RealFixtures.exists(RealFixtures.routeZip), "fixture \(RealFixtures.routeZip) not found"))
    func realRoute() async throws {
        let (store, report) = try await importFresh(RealFixtures.url(RealFixtures.routeZip))
        let workout = try #require(try await store.workouts(WorkoutQuery()).first)
        let route = try #require(workout.routes.first)
        let columns = try await store.routeColumns(route.uuid, offset: 0, limit: .max)
        #expect(columns.count == report.routePoints)
        #expect(columns.count == 644)
        let last = columns[columns.count - 1]
        #expect(last.latitude == 34.039244 && last.longitude == -118.233570)
        #expect(last.elevation == 78.343933 && last.speed == 0.001836 && last.course == 171.5625)
        #expect(last.horizontalAccuracy == 5.404549 && last.verticalAccuracy == 3.608798)
        #expect(last.time == Date(timeIntervalSince1970: 1_582_568_290))  // 2020-02-24T18:18:10Z
        #expect(columns.time == columns.time.sorted())
    }
}

@Suite("Unknown elements: what is kept is bounded (issue 17, finding 7)")
struct GenericElementBoundTests {
    @Test("an 8 MB unknown element keeps at most 1 MiB, is reported, and what follows it is imported")
    func hugeUnknownElement() async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        let filler = String(repeating: "x", count: 60)
        var children = ""
        children.reserveCapacity(9 << 20)
        for index in 0..<100_000 { children += "<Child index=\"\(index)\" note=\"\(filler)\"/>" }
        export.add("<MysteryElement kind=\"future\">" + children + "</MysteryElement>")
        export.add(X.steps(77, start: "2024-05-04 10:00:00 +0200", end: "2024-05-04 10:05:00 +0200"))
        #expect(export.xml.utf8.count > 8_000_000)
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))

        let documents = try await store.documents(kind: .other, start: nil, end: nil, limit: nil)
        let document = try #require(documents.first)
        #expect(document.json.utf8.count < 2 << 20)
        #expect(document.json.contains("\"truncated\":true"))
        #expect(document.json.contains("\"kind\":\"future\""))
        let entry = try #require(report.skipped.first { $0.element == "MysteryElement" })
        #expect(entry.reason.contains("dropped"))
        #expect(try await allSamples(store, "stepCount").map(\.value.quantity) == [77])
    }

    @Test("a small unknown element is kept whole, without a report")
    func smallUnknownElement() async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        export.add("<MysteryElement kind=\"future\"><Child index=\"1\"/><Child index=\"2\"><Leaf a=\"b\"/></Child></MysteryElement>")
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        let document = try #require(try await store.documents(kind: .other, start: nil, end: nil, limit: nil).first)
        #expect(!document.json.contains("truncated"))
        #expect(document.json.contains("\"Leaf\":[{\"a\":\"b\"}]"))
        #expect(report.skippedCount == 0)
    }
}
