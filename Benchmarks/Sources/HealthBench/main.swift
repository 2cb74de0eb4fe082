// HealthBench: the figures of the Core issue, in a release build.
//
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench HealthBench [--days 4000] [--dir /tmp/healthbridge-bench]
//
// Prints: save rate; one year of daily stepCount statistics with the source merge next to a plain indexed SQLite
// GROUP BY that sums everything (median of repeated runs, and their ratio); the 500 newest samples of a type; and the
// peak memory of statistics over one year vs the whole history; and routes: GPX scanned into columns, saved packed,
// read back and summarised (points/s).
import BenchSupport
import Foundation
import GRDB
import HealthDemo
import HealthEngine
import HealthModel
import HealthStore
import HealthXML

#if canImport(Glibc)
import Glibc
#endif

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

func measure(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return median(times)
}

func measure(_ runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return median(times)
}

/// CPU seconds used by the whole process so far (all threads): a figure the load of other processes barely moves.
func processCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func currentRSSMegabytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return .nan }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

let days = Int(argument("--days", default: "4000")) ?? 4000
let directory = URL(fileURLWithPath: argument("--dir", default: NSTemporaryDirectory() + "healthbridge-bench"))
try? FileManager.default.removeItem(at: directory)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let url = directory.appendingPathComponent("health.sqlite")
let zone = TimeZone(identifier: "Europe/Paris") ?? .current
let end = Date()

print("HealthBench — \(days) days of demo data (iPhone + Apple Watch), release build")
let store = try SQLiteHealthStore(location: .file(url))

// 1. Save rate: generate first, then time only the saves.
let generator = DemoGenerator(days: days, seed: 1, end: end, timeZone: zone)
var batches: [[HealthSample]] = []
var current: [HealthSample] = []
var total = 0
for index in 0..<days {
    current += generator.generate(dayIndex: index).samples
    if current.count >= 20_000 { batches.append(current); total += current.count; current = [] }
}
if !current.isEmpty { batches.append(current); total += current.count }
// The bulk path (what an import uses): samples packed into `SampleBatch`es beforehand, only the saves timed.
let packed = batches.map { SampleBatch($0) }
let saveStart = DispatchTime.now().uptimeNanoseconds
let saveCPUStart = processCPUSeconds()
for batch in packed { try await store.save(batch) }
let saveSeconds = Double(DispatchTime.now().uptimeNanoseconds - saveStart) / 1e9
let saveCPU = processCPUSeconds() - saveCPUStart
print(String(format: "save            %9d samples in %.2f s = %8.0f samples/s (SampleBatch of 20,000; target ≥ 500,000/s)",
             total, saveSeconds, Double(total) / saveSeconds))
print(String(format: "  CPU time      %.2f s = %8.0f samples per CPU-second (what an idle core would reach)",
             saveCPU, Double(total) / saveCPU))
// The convenience path: `[HealthSample]` arrays, packed inside `save` (into a second store, same data).
let arrayURL = directory.appendingPathComponent("health-arrays.sqlite")
let arrayStore = try SQLiteHealthStore(location: .file(arrayURL))
let arrayStart = DispatchTime.now().uptimeNanoseconds
for batch in batches { try await arrayStore.save(batch) }
let arraySeconds = Double(DispatchTime.now().uptimeNanoseconds - arrayStart) / 1e9
print(String(format: "  as [HealthSample] arrays: %.2f s = %8.0f samples/s (packing included)",
             arraySeconds, Double(total) / arraySeconds))
batches = []

// 2. One year of daily stepCount statistics, merged, vs a plain GROUP BY that sums everything.
let engine = HealthEngine(store: store)
var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = zone
let yearEnd = calendar.startOfDay(for: end)
let yearStart = calendar.date(byAdding: .year, value: -1, to: yearEnd) ?? yearEnd
let request = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: yearStart, end: yearEnd,
                                interval: StatisticsInterval(1, .day), timeZone: zone)
var mergedTotal = 0.0
let mergedMs = try await measure(15) {
    mergedTotal = try await engine.statistics(request).buckets.reduce(0) { $0 + ($1.sum ?? 0) }
}
let reader = try DatabaseQueue(path: url.path)
let typeID = try await reader.read { db in
    try Int64.fetchOne(db, sql: "SELECT id FROM types WHERE identifier = 'stepCount'") ?? 0
}
var plainTotal = 0.0
let offset = Double(zone.secondsFromGMT(for: yearStart))
let plainMs = try await measure(15) {
    plainTotal = try await reader.read { db in
        try Row.fetchAll(db, sql: """
            SELECT CAST((start + ?) / 86400 AS INTEGER) AS day, sum(value) FROM samples
            WHERE type_id = ? AND start >= ? AND start < ? GROUP BY day
            """, arguments: [offset, typeID, yearStart.timeIntervalSince1970, yearEnd.timeIntervalSince1970])
            .reduce(0.0) { $0 + ($1[1] as Double) }
    }
}
let samplesInStore = try await reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM samples") ?? 0 }
print(String(format: "statistics      one year daily stepCount, merged: %7.2f ms median (target ≤ 30 ms) on %d samples", mergedMs, samplesInStore))
print(String(format: "  plain SQLite  GROUP BY sum of every source:     %7.2f ms median", plainMs))
print(String(format: "  ratio         merged / plain = %.2f× (target ≤ 4×); totals: merged %.0f steps, summed %.0f (+%.0f%%)",
             mergedMs / plainMs, mergedTotal, plainTotal, (plainTotal / mergedTotal - 1) * 100))

// 3. The 500 newest samples of a type.
let newestMs = try await measure(25) {
    _ = try await store.samples(SampleQuery(type: "heartRate", limit: 500, ascending: false))
}
print(String(format: "newest 500      heartRate samples: %.2f ms median (target ≤ 5 ms)", newestMs))

// 4. Memory: statistics over one year, then over the whole history.
let before = currentRSSMegabytes()
_ = try await engine.statistics(request)
let afterYear = currentRSSMegabytes()
let all = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: generator.firstDay, end: end, interval: StatisticsInterval(1, .day),
                            timeZone: zone)
_ = try await engine.statistics(all)
let afterAll = currentRSSMegabytes()
print(String(format: "memory          RSS %.0f MB → after one year %.0f MB → after %d days %.0f MB (peak %.0f MB)",
             before, afterYear, days, afterAll, peakRSSMegabytes()))

// 5. Routes: a GPX file as the iPhone writes it (1 point per second, six decimals), scanned into columns, saved packed,
// read back and summarised.
let routePoints = Int(argument("--route-points", default: "200000")) ?? 200_000
var gpx = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\">\n<trk><trkseg>\n"
gpx.reserveCapacity(routePoints * 240)
for index in 0..<routePoints {
    let x = Double(index)
    let time = ISO8601.string(Date(timeIntervalSince1970: 1_714_541_400 + x))
    gpx += String(format: "      <trkpt lon=\"%.6f\" lat=\"%.6f\"><ele>%.6f</ele><time>%@</time><extensions><speed>%.6f</speed>"
                  + "<course>%.6f</course><hAcc>%.6f</hAcc><vAcc>%.6f</vAcc></extensions></trkpt>\n",
                  2.35 + sin(x / 500) / 50, 48.85 + cos(x / 700) / 50, 35 + sin(x / 90) * 20, time, 2.5 + sin(x) / 3,
                  (x * 7).truncatingRemainder(dividingBy: 360), 2 + x.truncatingRemainder(dividingBy: 5) / 3,
                  1 + x.truncatingRemainder(dividingBy: 3) / 2)
}
gpx += "</trkseg></trk>\n</gpx>\n"
let gpxData = Data(gpx.utf8)
var scanned = RoutePointColumns()
let scanMs = measure(5) {
    var columns = RoutePointColumns()
    columns.reserveCapacity(routePoints)
    gpxData.withUnsafeBytes { bytes in
        GPXScanner.scan(bytes) { point in
            columns.append(time: point.time, latitude: point.latitude, longitude: point.longitude,
                           elevation: point.elevation, speed: point.speed, course: point.course,
                           horizontalAccuracy: point.horizontalAccuracy, verticalAccuracy: point.verticalAccuracy)
        }
    }
    scanned = columns
}
let routeStore = try SQLiteHealthStore(location: .file(directory.appendingPathComponent("routes.sqlite")))
let route = UUID()
let saveRouteMs = try await measure(5) { try await routeStore.saveRoute(route, columns: scanned) }
var summary = RouteSummary(RoutePointColumns())
let readRouteMs = try await measure(5) {
    summary = RouteSummary(try await routeStore.routeColumns(route, offset: 0, limit: .max))
}
print(String(format: "routes          GPX scan into columns: %d points (%.1f MB) in %.1f ms = %.2f M points/s (target ≥ 2 M/s)",
             scanned.count, Double(gpxData.count) / 1e6, scanMs, Double(scanned.count) / scanMs / 1e3))
print(String(format: "  save packed   %.1f ms = %.1f M points/s; read back + RouteSummary %.1f ms = %.1f M points/s (%.1f km)",
             saveRouteMs, Double(scanned.count) / saveRouteMs / 1e3, readRouteMs, Double(scanned.count) / readRouteMs / 1e3,
             summary.distanceMeters / 1000))
try? FileManager.default.removeItem(at: directory)
