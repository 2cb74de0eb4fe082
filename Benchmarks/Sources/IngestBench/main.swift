// IngestBench: the figures of the Health Auto Export issue, in a release build.
//
//   scripts/ingest-bench.sh, or: swift run -c release --package-path Benchmarks --scratch-path .build-bench IngestBench [--mb 25] [--dir /tmp/hb-ingestbench]
//
// Generates a payload of about 25 MB as the app sends it — a year of hourly aggregated metrics (steps, energy,
// distance, heart rate Min/Avg/Max…) plus workouts (version 2) with timed routes — then ingests it through
// HealthService as an ingest token into a fresh SQLite file store, and again (the re-send: nothing is written).
// Prints the payload's size, items, the time of each ingest (and of reading the body into a batch), the CPU time it
// took (the figure to compare on a shared machine) and the peak resident memory (VmHWM) during them.
// Target (issue 24): ≤ 1 s (≥ 150 k records/s: items stored plus route points) for the 25 MB payload on a 2-core
// machine, memory bounded while it streams (the earlier line: ≤ 150 MB RSS).
import BenchSupport
import Foundation
import HealthAutoExport
import HealthAPI
import HealthModel
import HealthService
import HealthStore

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// The CPU time (user and system, every thread) this process used so far, in seconds: on a shared machine the
/// figure that does not depend on what else runs.
func cpu() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A field of /proc/self/status in MB.
func status(_ field: String) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return .nan }
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    return kilobytes / 1024
}

/// glibc's malloc_trim, not exported by the Glibc module.
@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

/// Returns freed memory to the system, then resets the peak RSS (VmHWM) to the current RSS.
func resetPeak() {
    _ = mallocTrim(0)
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

let targetBytes = (Int(argument("--mb", default: "25")) ?? 25) * 1_000_000
let directory = URL(fileURLWithPath: argument("--dir", default: NSTemporaryDirectory() + "healthbridge-ingestbench"))

// MARK: The payload

struct Payload {
    var bytes: [UInt8]
    var items: Int
    var metrics: Int
    var workouts: Int
    var routePoints: Int
}

func makePayload(targetBytes: Int) -> Payload {
    var out: [UInt8] = []
    out.reserveCapacity(targetBytes + 1_000_000)
    func emit(_ text: String) { out.append(contentsOf: text.utf8) }
    var generator = SystemRandomNumberGenerator()
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(secondsFromGMT: 3600)
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    let yearStart = ISO8601.date("2024-01-01T00:00:00+01:00")!
    let hours = 365 * 24
    let hourStrings = (0..<hours).map { formatter.string(from: yearStart.addingTimeInterval(Double($0) * 3600)) }
    let source = "Sam’s Apple Watch|Sam’s iPhone"
    let metrics: [(String, String, ClosedRange<Double>)] = [
        ("step_count", "count", 0...2500), ("active_energy", "kcal", 0...400), ("basal_energy_burned", "kcal", 60...80),
        ("walking_running_distance", "km", 0...2), ("flights_climbed", "count", 0...12), ("apple_exercise_time", "min", 0...60),
        ("apple_stand_time", "min", 0...15), ("respiratory_rate", "count/min", 12...18),
        ("blood_oxygen_saturation", "%", 94...99), ("heart_rate_variability", "ms", 20...90),
        ("walking_speed", "km/hr", 3...6), ("walking_step_length", "cm", 60...80), ("environmental_audio_exposure", "dBASPL", 40...80),
        ("time_in_daylight", "min", 0...60), ("physical_effort", "kcal/hr·kg", 1...6), ("dietary_water", "mL", 0...500),
    ]
    var items = 0
    emit(#"{"data":{"metrics":["#)
    for (index, metric) in metrics.enumerated() {
        if index > 0 { emit(",") }
        emit(#"{"name":"\#(metric.0)","units":"\#(metric.1)","data":["#)
        for hour in 0..<hours {
            if hour > 0 { emit(",") }
            let value = (Double.random(in: metric.2, using: &generator) * 1000).rounded() / 1000
            emit(#"{"date":"\#(hourStrings[hour])","qty":\#(value),"source":"\#(source)"}"#)
            items += 1
        }
        emit("]}")
    }
    emit(#",{"name":"heart_rate","units":"count/min","data":["#)
    for hour in 0..<hours {
        if hour > 0 { emit(",") }
        let avg = Double(Int.random(in: 55...110, using: &generator))
        emit(#"{"date":"\#(hourStrings[hour])","Min":\#(avg - 8),"Avg":\#(avg),"Max":\#(avg + 25),"source":"\#(source)"}"#)
        items += 1
    }
    emit("]}],\"workouts\":[")
    var workouts = 0, routePoints = 0
    var day = 0
    while out.count < targetBytes - 2_000, day < 365 {
        if workouts > 0 { emit(",") }
        let start = yearStart.addingTimeInterval(Double(day) * 86_400 + 7 * 3600)
        let points = 600
        var uuid = UUID().uuidString
        uuid = uuid.uppercased()
        emit(#"{"id":"\#(uuid)","name":"Outdoor Run","start":"\#(formatter.string(from: start))","end":"\#(formatter.string(from: start.addingTimeInterval(Double(points) * 3)))","duration":\#(points * 3),"activeEnergyBurned":{"qty":\#(Int.random(in: 200...500, using: &generator)),"units":"kcal"},"distance":{"qty":5.1,"units":"km"},"heartRateData":["#)
        for minute in 0..<30 {
            if minute > 0 { emit(",") }
            let t = formatter.string(from: start.addingTimeInterval(Double(minute) * 60))
            emit(#"{"date":"\#(t)","Min":120,"Avg":\#(130 + minute),"Max":170,"units":"count/min","source":"Sam’s Apple Watch"}"#)
        }
        emit(#"],"route":["#)
        for point in 0..<points {
            if point > 0 { emit(",") }
            let t = formatter.string(from: start.addingTimeInterval(Double(point) * 3))
            let lat = 48.1 + Double(point) * 0.00003, lon = 11.5 + Double(point) * 0.00002
            emit(#"{"latitude":\#(lat),"longitude":\#(lon),"altitude":\#(520 + point % 7),"timestamp":"\#(t)","speed":3.1,"course":91.5,"horizontalAccuracy":4,"verticalAccuracy":3}"#)
            routePoints += 1
        }
        emit("]}")
        workouts += 1
        day += 3
    }
    emit("]}}")
    return Payload(bytes: out, items: items, metrics: metrics.count + 1, workouts: workouts, routePoints: routePoints)
}

var payload = makePayload(targetBytes: targetBytes)
let payloadFile = URL(fileURLWithPath: NSTemporaryDirectory() + "healthbridge-ingestbench.json")
try Data(payload.bytes).write(to: payloadFile)
let payloadSize = payload.bytes.count

/// The payload as a request body arrives: read from the file, handed over to the service.
func body() throws -> [UInt8] { [UInt8](try Data(contentsOf: payloadFile)) }

// MARK: Ingest

try? FileManager.default.removeItem(at: directory)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let store = try SQLiteHealthStore(location: .file(directory.appendingPathComponent("health.sqlite")))
let owner = try await HealthService.open(store: store)
try await owner.updateGrants(GrantsUpdate(principal: "ingest:bench", allowWrite: ["*"]))
let phone = owner.acting(as: Principal(kind: .ingest, name: "bench"))

print(String(format: "payload: %.1f MB, %d metric items (%d metrics, hourly, one year), %d workouts, %d route points",
             Double(payloadSize) / 1_000_000, payload.items, payload.metrics, payload.workouts, payload.routePoints))
var parseStarted = now()
var parsed = 0
_ = try HAEPayloadReader(aggregation: .hour).read(payload.bytes, item: { _ in parsed += 1 }, workout: { _ in parsed += 1 })
print(String(format: "parse only:  %.2f s (%d items and workouts)", now() - parseStarted, parsed))
payload.bytes = []
resetPeak()
let baseline = status("VmRSS")
/// One push: the body read as a server receives it, handed over to the service; time (of reading the payload into
/// a batch, and in all), CPU time and peak RSS.
func send() async throws -> (report: IngestReport, seconds: Double, read: Double, cpu: Double, peak: Double,
                             readPeak: Double) {
    resetPeak()
    let bytes = try body()
    let started = now(), startedCPU = cpu()
    let batch = try HAEPayloadReader(aggregation: .hour).batch(consume bytes)
    let read = now() - started, readPeak = status("VmHWM")
    let report = try await phone.ingest(batch, info: IngestBatchInfo(aggregation: "hours"))
    return (report, now() - started, read, cpu() - startedCPU, status("VmHWM"), readPeak)
}

let first = try await send()
let firstSeconds = first.seconds, firstPeak = first.peak
let records = Double(first.report.inserted + first.report.routePoints)
print(String(format: "first send:  %.2f s (%.2f s reading into a batch, %.2f s CPU), %.0f MB/s, %.0f k records/s; inserted %d, unchanged %d, route points %d; peak RSS %.0f MB (%.0f MB while reading, %.0f MB before the body was read)",
             firstSeconds, first.read, first.cpu, Double(payloadSize) / 1_000_000 / firstSeconds, records / firstSeconds / 1000,
             first.report.inserted, first.report.unchanged, first.report.routePoints, firstPeak, first.readPeak, baseline))
let second = try await send()
print(String(format: "re-send:     %.2f s (%.2f s reading, %.2f s CPU); inserted %d, replaced %d, unchanged %d; peak RSS %.0f MB",
             second.seconds, second.read, second.cpu, second.report.inserted, second.report.replaced,
             second.report.unchanged, second.peak))
// What the resident memory is made of after the re-send: heap (anonymous) and the store's memory-mapped pages.
print(String(format: "after both:  RSS %.0f MB = %.0f MB anonymous + %.0f MB file-backed (the store's mmap)",
             status("VmRSS"), status("RssAnon"), status("RssFile")))
let verdict = firstSeconds <= 1 && records / firstSeconds >= 150_000
print("target (≤ 1 s, ≥ 150 k records/s for the first send): \(verdict ? "met" : "NOT met")"
      + String(format: "; peak RSS %.0f MB", firstPeak) + " (earlier line ≤ 150 MB: \(firstPeak <= 150 ? "within" : "over"))")
try? FileManager.default.removeItem(at: directory)
try? FileManager.default.removeItem(at: payloadFile)
try? FileManager.default.removeItem(at: payloadFile)
