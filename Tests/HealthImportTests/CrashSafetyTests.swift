import Foundation
import HealthEngine
import HealthImport
import HealthModel
import HealthStore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store that forwards to a real one and interrupts the import at its `interruptAt`-th sample batch: by throwing
/// (a disk error, a crash of the saver) or by cancelling the importing task.
final class InterruptingStore: HealthStore, @unchecked Sendable {
    enum Mode { case fail, cancelTask, cancelTaskAfterSave }
    struct Interrupted: Error {}

    let base: SQLiteHealthStore
    let mode: Mode
    let interruptAt: Int
    private let lock = NSLock()
    private var sampleBatches = 0

    init(_ base: SQLiteHealthStore, mode: Mode, interruptAt: Int) {
        self.base = base
        self.mode = mode
        self.interruptAt = interruptAt
    }

    func save(_ samples: [HealthSample]) async throws -> SaveResult {
        let batch = lock.withLock { sampleBatches += 1; return sampleBatches }
        if batch == interruptAt {
            switch mode {
            case .fail: throw Interrupted()
            case .cancelTask: withUnsafeCurrentTask { $0?.cancel() }
            case .cancelTaskAfterSave:
                let result = try await base.save(samples)
                withUnsafeCurrentTask { $0?.cancel() }
                return result
            }
        }
        return try await base.save(samples)
    }

    func save(workouts: [HealthWorkout]) async throws -> SaveResult { try await base.save(workouts: workouts) }
    func save(correlations: [HealthCorrelation]) async throws -> SaveResult { try await base.save(correlations: correlations) }
    func save(documents: [HealthDocument]) async throws -> SaveResult { try await base.save(documents: documents) }
    func saveRoute(_ route: UUID, points: [RoutePoint]) async throws { try await base.saveRoute(route, points: points) }
    func delete(uuids: [UUID]) async throws -> Int { try await base.delete(uuids: uuids) }
    func delete(matching query: SampleQuery) async throws -> Int { try await base.delete(matching: query) }
    func samples(_ query: SampleQuery) async throws -> SamplePage { try await base.samples(query) }
    func sample(_ uuid: UUID) async throws -> HealthSample? { try await base.sample(uuid) }
    func sample(syncIdentifier: String, sourceKey: String) async throws -> HealthSample? {
        try await base.sample(syncIdentifier: syncIdentifier, sourceKey: sourceKey)
    }
    func workouts(_ query: WorkoutQuery) async throws -> [HealthWorkout] { try await base.workouts(query) }
    func workout(_ uuid: UUID) async throws -> HealthWorkout? { try await base.workout(uuid) }
    func routePoints(_ route: UUID, offset: Int, limit: Int) async throws -> [RoutePoint] {
        try await base.routePoints(route, offset: offset, limit: limit)
    }
    func correlations(type: String, start: Date?, end: Date?, limit: Int?) async throws -> [HealthCorrelation] {
        try await base.correlations(type: type, start: start, end: end, limit: limit)
    }
    func documents(kind: HealthDocument.Kind, start: Date?, end: Date?, limit: Int?) async throws -> [HealthDocument] {
        try await base.documents(kind: kind, start: start, end: end, limit: limit)
    }
    func scan(_ request: ScanRequest, _ body: (ScanRow) throws -> Void) async throws { try await base.scan(request, body) }
    func typeSummaries() async throws -> [TypeSummary] { try await base.typeSummaries() }
    func sources(type: String?) async throws -> [SourceSummary] { try await base.sources(type: type) }
    func priority(type: String, counts: Bool) async throws -> [SourceSummary] { try await base.priority(type: type, counts: counts) }
    func setPriority(type: String, sources: [String]) async throws { try await base.setPriority(type: type, sources: sources) }
    func resetPriority(type: String) async throws { try await base.resetPriority(type: type) }
    func currentAnchor() async throws -> Int64 { try await base.currentAnchor() }
    func changes(since anchor: Int64?, types: [String]?, limit: Int) async throws -> ChangeSet {
        try await base.changes(since: anchor, types: types, limit: limit)
    }
    func changeNotifications() -> AsyncStream<ChangeNotification> { base.changeNotifications() }
    func setting(_ key: String) async throws -> String? { try await base.setting(key) }
    func setSetting(_ key: String, _ value: String?) async throws { try await base.setSetting(key, value) }
    func settings(prefix: String) async throws -> [String: String] { try await base.settings(prefix: prefix) }
    func updateSetting(_ key: String, _ transform: @escaping @Sendable (String?) throws -> String?) async throws -> String? {
        try await base.updateSetting(key, transform)
    }
}

/// The result of `task`, or nil when it takes longer than `timeout` (a hung import).
func result<T: Sendable>(of task: Task<T, any Error>, timeout: Duration) async -> Result<T, any Error>? {
    let (stream, continuation) = AsyncStream<Result<T, any Error>?>.makeStream()
    let waiter = Task { continuation.yield(await task.result) }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        continuation.yield(nil)
    }
    var iterator = stream.makeAsyncIterator()
    let first = await iterator.next() ?? nil
    waiter.cancel()
    timer.cancel()
    return first
}

/// A mixed export of a few hundred records, correlations, workouts with GPX routes and documents.
enum CrashExport {
    static var fixture: ExportFixture {
        var export = ExportFixture()
        export.add(X.element("ExportDate", [("value", "2024-03-05 09:00:00 +0100")]))
        export.add(X.element("Me", [("HKCharacteristicTypeIdentifierBiologicalSex", "HKBiologicalSexMale")]))
        export.elements += stepRecords(300)
        for day in 1...4 {
            let stamp = "2024-03-0\(day) 08:00:00 +0100"
            let systolic = X.record("HKQuantityTypeIdentifierBloodPressureSystolic", source: "Health", unit: "mmHg",
                                    value: "\(118 + day)", start: stamp)
            let diastolic = X.record("HKQuantityTypeIdentifierBloodPressureDiastolic", source: "Health", unit: "mmHg",
                                     value: "\(76 + day)", start: stamp)
            export.elements += [systolic, diastolic]
            export.add(X.element("Correlation", [("type", "HKCorrelationTypeIdentifierBloodPressure"), ("sourceName", "Health"),
                                                 ("startDate", stamp), ("endDate", stamp)],
                                 children: [systolic, diastolic]))
            let gpx = "workout-routes/route_2024-03-0\(day)_7.00am.gpx"
            export.files[gpx] = FullExport.gpx(points: 10 + day)
            export.add(X.element("Workout", [("workoutActivityType", "HKWorkoutActivityTypeRunning"), ("duration", "20"),
                                             ("durationUnit", "min"), ("sourceName", "Alex’s Apple Watch"),
                                             ("device", X.watchDevice),
                                             ("startDate", "2024-03-0\(day) 07:00:00 +0100"),
                                             ("endDate", "2024-03-0\(day) 07:20:00 +0100")],
                                 children: [X.element("WorkoutRoute", [("sourceName", "Alex’s Apple Watch"),
                                                                       ("startDate", "2024-03-0\(day) 07:00:00 +0100"),
                                                                       ("endDate", "2024-03-0\(day) 07:20:00 +0100")],
                                                      children: [X.element("FileReference", [("path", "/" + gpx)])])]))
            export.add(X.element("ActivitySummary", [("dateComponents", "2024-03-0\(day)"), ("activeEnergyBurned", "\(400 + day)")]))
        }
        for i in 0..<120 {
            let minute = String(format: "%02d", i % 60)
            export.add(X.record("HKQuantityTypeIdentifierHeartRate", source: "Alex’s Apple Watch", device: X.watchDevice,
                                unit: "count/min", value: "\(60 + i % 40)",
                                start: "2024-03-0\(5 + i / 60) 06:\(minute):00 +0100"))
        }
        export.files[FullExport.ecgPath] = FullExport.ecg(samples: 12)
        // The parser checks the batch size once per 1 MB chunk read: a comment after every element spreads the
        // elements over ~6 chunks, so that even a small export is saved in several transactions.
        let padding = "<!-- " + String(repeating: "padding ", count: 1_500) + "-->"
        export.elements = export.elements.flatMap { [$0, padding] }
        return export
    }
}

@Suite("Crash safety: an interrupted import finished later equals one clean import")
struct CrashSafetyTests {
    static let export = CrashExport.fixture

    static func small(_ batch: Int) -> ImportOptions {
        var options = ImportOptions()
        options.batchSize = batch
        return options
    }

    static func cleanSnapshot(_ url: URL) async throws -> StoreSnapshot {
        try await StoreSnapshot.of(try await importFresh(url).0)
    }

    @Test("the store fails at batch k; the next import completes the store", arguments: [1, 3, 5])
    func storeFailure(at batch: Int) async throws {
        let dir = try TempDir()
        let url = try Self.export.writeZip(in: dir.url)
        let clean = try await Self.cleanSnapshot(url)
        #expect(clean.sampleCount == 300 + 8 + 120)
        #expect(clean.workouts.count == 4)

        let base = try SQLiteHealthStore.inMemory()
        let failing = InterruptingStore(base, mode: .fail, interruptAt: batch)
        await #expect(throws: InterruptingStore.Interrupted.self) {
            _ = try await ExportImporter(store: failing, options: Self.small(1)).run(url)
        }
        let partial = try await StoreSnapshot.of(base)
        #expect(partial.sampleCount < clean.sampleCount)

        let finished = try await ExportImporter(store: base, options: Self.small(1)).run(url)
        #expect(finished.alreadyImported == false, "an interrupted import must not be recorded as finished")
        #expect(finished.samplesInserted == clean.sampleCount - partial.sampleCount)
        #expect(try await StoreSnapshot.of(base) == clean)
    }

    @Test("the importing task is cancelled at batch k: it stops without recording the import, the next one completes",
          arguments: [1, 3, 5])
    func cancellation(at batch: Int) async throws {
        try await cancellation(at: batch, mode: .cancelTask)
        try await cancellation(at: batch, mode: .cancelTaskAfterSave)
    }

    func cancellation(at batch: Int, mode: InterruptingStore.Mode) async throws {
        let dir = try TempDir()
        let url = try Self.export.writeZip(in: dir.url)
        let clean = try await Self.cleanSnapshot(url)

        let base = try SQLiteHealthStore.inMemory()
        let cancelling = InterruptingStore(base, mode: mode, interruptAt: batch)
        let task = Task { try await ExportImporter(store: cancelling, options: Self.small(1)).run(url) }
        // A hang detector, not a speed limit: loose enough for a loaded 2-core machine.
        let outcome = try #require(await result(of: task, timeout: .seconds(60)), "a cancelled import hangs")
        if case .failure(let error) = outcome {
            #expect(error is CancellationError, "\(mode) at batch \(batch): \(error)")
        }
        if case .success(let report) = outcome {
            // Finishing anyway is acceptable only if everything was saved.
            #expect(try await StoreSnapshot.of(base) == clean,
                    "a cancelled import returned a report (\(report.samplesInserted) samples) for an incomplete store")
        }

        let finished = try await ExportImporter(store: base, options: Self.small(1)).run(url)
        #expect(try await StoreSnapshot.of(base) == clean)
        if case .failure = outcome { #expect(finished.alreadyImported == false, "a cancelled import was recorded as finished") }
    }

    @Test("truncated copies imported first (as a crash mid-write would leave them), then the full export",
          arguments: [0.12, 0.37, 0.5, 0.71, 0.93])
    func truncatedFirst(fraction: Double) async throws {
        let dir = try TempDir()
        let export = Self.export
        let zip = try export.writeZip(in: dir.url)
        let clean = try await Self.cleanSnapshot(zip)

        let cutDir = try TempDir()
        try export.writeXML(in: cutDir.url)  // the GPX, ECG files next to it
        let full = export.data
        let cut = cutDir.file("export.xml")
        try full.prefix(Int(Double(full.count) * fraction)).write(to: cut)

        let store = try SQLiteHealthStore.inMemory()
        let partial = try await ExportImporter(store: store, options: Self.small(1)).run(cut)
        #expect(partial.skippedCount >= 1, "the truncation is reported")
        #expect(try await StoreSnapshot.of(store).sampleCount < clean.sampleCount)

        let finished = try await ExportImporter(store: store, options: Self.small(1)).run(zip)
        #expect(finished.alreadyImported == false)
        #expect(try await StoreSnapshot.of(store) == clean)
    }
}

// MARK: - A real SIGKILL of the command-line tool

/// The `healthbridge` executable built next to the test bundle, if any.
enum HealthBridgeExecutable {
    static let url: URL? = {
        var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent(),
                                 URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()]
            .compactMap { $0 }
        // Walk up from the test binary to `.build/debug/healthbridge`.
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        for _ in 0..<6 {
            directory = directory.deletingLastPathComponent()
            candidates.append(directory)
            candidates.append(directory.appendingPathComponent("debug"))
            candidates.append(directory.appendingPathComponent(".build/debug"))
        }
        for candidate in candidates {
            let file = candidate.appendingPathComponent("healthbridge")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: file.path) {
                return file
            }
        }
        return nil
    }()
}

/// A generated export of `count` step records (about 375 bytes each), with known totals.
struct BigExport {
    let count: Int
    /// Every record is 50 s long, one a minute, value 1 + i % 100.
    var totalSteps: Int { (0..<count).reduce(0) { $0 + 1 + $1 % 100 } }
    var firstStart: Date { Date(timeIntervalSince1970: 1_577_836_800) }  // 2020-01-01T00:00:00Z
    var lastEnd: Date { firstStart.addingTimeInterval(Double(count - 1) * 60 + 50) }

    func write(to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: url.path) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? handle.close() }
        var header = ExportFixture()
        header.elements = []
        let head = header.xml.replacingOccurrences(of: "</HealthData>\n", with: "")
        try handle.write(contentsOf: Data(head.utf8))
        let prefix = Array("""
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Alex’s iPhone" sourceVersion="17.4" device="&lt;&lt;HKDevice: 0x
            """.utf8)
        let middle = Array("&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4&gt;\" unit=\"count\" creationDate=\"".utf8)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        func two(_ n: Int) { buffer.append(UInt8(48 + n / 10)); buffer.append(UInt8(48 + n % 10)) }
        func stamp(_ seconds: Int) {
            // Civil date from days since 1970 (Howard Hinnant), UTC.
            let z = seconds / 86_400 + 719_468
            let era = z / 146_097, doe = z - era * 146_097
            let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
            let mp = (5 * doy + 2) / 153
            let d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9
            let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
            two(y / 100); two(y % 100); buffer.append(45); two(m); buffer.append(45); two(d); buffer.append(32)
            let s = seconds % 86_400
            two(s / 3600); buffer.append(58); two(s / 60 % 60); buffer.append(58); two(s % 60)
            buffer.append(contentsOf: Array(" +0000".utf8))
        }
        let base = Int(firstStart.timeIntervalSince1970)
        for i in 0..<count {
            let start = base + i * 60, end = start + 50
            buffer.append(contentsOf: prefix)
            buffer.append(contentsOf: Array(String(0x2810_0000 + i * 16, radix: 16).utf8))
            buffer.append(contentsOf: middle)
            stamp(end); buffer.append(contentsOf: Array("\" startDate=\"".utf8))
            stamp(start); buffer.append(contentsOf: Array("\" endDate=\"".utf8))
            stamp(end); buffer.append(contentsOf: Array("\" value=\"".utf8))
            buffer.append(contentsOf: Array(String(1 + i % 100).utf8))
            buffer.append(contentsOf: Array("\"/>\n".utf8))
            if buffer.count > (1 << 20) - 1024 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer.append(contentsOf: Array("</HealthData>\n".utf8))
        try handle.write(contentsOf: buffer)
    }
}

@Suite("Crash safety: kill -9 of healthbridge import")
struct KillTests {
    static let executable = HealthBridgeExecutable.url

    static func run(_ arguments: [String], home: URL, stdout: URL) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HEALTHBRIDGE_HOME"] = home.path
        process.environment = environment
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func fileSize(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    @Test("SIGKILL mid-import, then a full run: the store equals a clean import",
          .enabled(if: executable != nil,
                   "the healthbridge executable was not found next to the test bundle (build it with `swift build --build-tests`)"),
          .timeLimit(.minutes(1)))
    func killAndResume() async throws {
        let dir = try TempDir("hb-kill")
        // ≈ 24 MB: four 20,000-sample transactions, small enough for the suite to stay fast in a debug build.
        let export = BigExport(count: 64_000)
        let xml = dir.file("export.xml")
        try export.write(to: xml)
        #expect(Self.fileSize(xml) > 22_000_000)
        let home = dir.url.appendingPathComponent("home", isDirectory: true)
        let wal = home.appendingPathComponent("health.sqlite-wal")

        // 1. Start an import and kill it once a first batch has been committed (seen from this process).
        let first = try Self.run(["import", xml.path], home: home, stdout: dir.file("first.out"))
        let deadline = Date().addingTimeInterval(30)
        while first.isRunning, Self.fileSize(wal) == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Step the import in short slices (SIGCONT … SIGSTOP) and look at the store while it is frozen, so the kill
        // lands after a first commit and before the last however fast or loaded the machine is.
        var committed = 0
        if first.isRunning {
            let reader = try SQLiteHealthStore(location: .file(home.appendingPathComponent("health.sqlite")))
            while first.isRunning, Date() < deadline {
                kill(first.processIdentifier, SIGSTOP)
                committed = try await reader.typeSummaries().first?.count ?? 0
                if committed > 0 { break }
                kill(first.processIdentifier, SIGCONT)
                // A blocking sleep: the suite's other tests keep the cooperative pool busy, and a Task.sleep of 5 ms
                // can then last long enough for the whole import to finish inside one slice.
                usleep(5_000)
            }
        }
        let killedMidway = first.isRunning
        if killedMidway { kill(first.processIdentifier, SIGKILL) }
        first.waitUntilExit()
        #expect(killedMidway, "the import finished before it could be killed")
        #expect(first.terminationReason == .uncaughtSignal)
        #expect(committed > 0 && committed < export.count)

        // 2. Run it again to completion.
        let second = try Self.run(["import", "--json", xml.path], home: home, stdout: dir.file("second.out"))
        while second.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(second.terminationStatus == 0)
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("second.out")))
        #expect(report.alreadyImported == false)
        #expect(report.samplesAlreadyStored >= committed, "what the killed run committed is still there")
        #expect(report.samplesInserted > 0)
        #expect(report.samplesInserted + report.samplesAlreadyStored == export.count)
        #expect(report.records == export.count)
        #expect(report.skippedCount == 0)

        // 3. The store equals what one clean import gives: every record once, the same totals and span.
        let store = try SQLiteHealthStore(location: .file(home.appendingPathComponent("health.sqlite")))
        let summaries = try await store.typeSummaries()
        #expect(summaries.map(\.type) == ["stepCount"])
        #expect(summaries.first?.count == export.count)
        #expect(summaries.first?.first == export.firstStart)
        #expect(summaries.first?.last == export.lastEnd)
        #expect(try await store.sources(type: "stepCount").count == 1)
        let statistics = try await HealthEngine(store: store).statistics(
            StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: export.firstStart, end: export.lastEnd.addingTimeInterval(1),
                              timeZone: TimeZone(identifier: "UTC")!))
        #expect(statistics.buckets.first?.sum == Double(export.totalSteps))
        // A third run recognises the finished import.
        let third = try Self.run(["import", "--json", xml.path], home: home, stdout: dir.file("third.out"))
        while third.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let again = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("third.out")))
        #expect(again.alreadyImported)
    }
}
