import Crypto
import Foundation
import HealthModel
import HealthStore
import HealthXML
import Logging
import Synchronization

/// How an import behaves.
public struct ImportOptions: Sendable, Hashable {
    /// Stop at the first malformed element with an error instead of skipping and reporting it.
    public var strict = false
    /// Read the file again even when its content hash matches a finished import (adds only what is missing).
    public var force = false
    /// Samples per transaction.
    public var batchSize = 20_000
    public var limits = ArchiveLimits()

    public init(strict: Bool = false, force: Bool = false) {
        self.strict = strict
        self.force = force
    }
}

/// Imports an Apple Health export (export.zip, an unzipped export folder, or a bare export.xml) into a store:
/// completely, as a stream, idempotently and crash-safely.
///
/// Parsing runs on its own thread and hands batches to the saver through a pipe of a few slots, so the two cores work
/// at once and memory stays flat. Every object gets a deterministic UUID from its content, and every batch is one
/// transaction, so an import killed at any moment and run again ends in the same store; a finished import is recorded
/// under the file's SHA-256 and recognised next time.
///
/// ```swift
/// let report = try await ExportImporter(store: store).run(URL(fileURLWithPath: "export.zip"))
/// print(report.records, report.samplesInserted)
/// ```
public struct ExportImporter: Sendable {
    public let store: any HealthStore
    public var options: ImportOptions
    public var logger: Logger

    public init(store: any HealthStore, options: ImportOptions = ImportOptions(),
                logger: Logger = Logger(label: "healthbridge.import")) {
        self.store = store
        self.options = options
        self.logger = logger
    }

    /// Batches on their way to the saver at most (both producer threads share them). Measured: 4 are no faster than
    /// 2, and hold more memory.
    static let pipelineSlots = 2

    static func settingKey(_ hash: String) -> String { "import.sha256." + hash }
    static func fingerprintKey(_ fingerprint: String) -> String { "import.zip." + fingerprint }

    /// The report of a finished import stored under `key`, marked as already imported.
    func previousImport(_ key: String, started: Date) async throws -> ImportReport? {
        guard !options.force, let stored = try await store.setting(key),
              var previous = try? JSONDecoder().decode(ImportReport.self, from: Data(stored.utf8)) else { return nil }
        previous.alreadyImported = true
        previous.elapsedSeconds = Date().timeIntervalSince(started)
        return previous
    }

    public func run(_ url: URL, progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws -> ImportReport {
        let started = Date()
        // A zip imported before is recognised by its central directory, without reading the rest of it.
        let fingerprint = ZipFingerprint.key(of: url)
        if let fingerprint, let previous = try await previousImport(Self.fingerprintKey(fingerprint), started: started) {
            logger.info("already imported", metadata: ["zip": "\(fingerprint)"])
            return previous
        }
        let input = try ExportInput.open(url, limits: options.limits)
        // The content hash is computed while the parser starts on the other core; nothing is saved before it is
        // known, and a file already imported stops the parser at once.
        let subject = input.hashSubject
        let hashing = Task.detached(priority: .high) { try Self.contentHash(subject) }

        var report = ImportReport(path: url.path, contentHash: "")
        let totalBytes = Int(input.mainSize)
        let state = PipeState(progress: ImportProgress(bytesRead: 0, totalBytes: totalBytes, records: 0, elapsedSeconds: 0))
        let slots = DispatchSemaphore(value: Self.pipelineSlots)
        let (batches, continuation) = AsyncStream<ImportBatch>.makeStream(bufferingPolicy: .unbounded)
        let routeQueue = RouteQueue()
        let job = ParseJob(input: input, report: report, options: options, routes: routeQueue)
        let attachmentJob: AttachmentJob
        do {
            attachmentJob = AttachmentJob(input: try input.reopened(), queue: routeQueue)
        } catch {
            hashing.cancel()
            throw error
        }

        /// Hands a batch to the saver, waiting for a free slot (both producer threads share the slots).
        @Sendable func send(_ batch: ImportBatch) throws {
            slots.wait()
            // A slot not handed to the saver goes back: libdispatch traps when a semaphore is freed below its
            // initial value. `.terminated`: the caller's task was cancelled, which ends the stream; the batch was
            // dropped and nobody will signal for it.
            if state.cancelled.load(ordering: .relaxed) { slots.signal(); throw ImportStopped() }
            if case .terminated = continuation.yield(batch) { slots.signal(); throw ImportStopped() }
        }
        /// The stream ends when both threads are done.
        @Sendable func producerFinished() {
            if state.producers.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { continuation.finish() }
        }

        // The parse thread streams the main XML; meanwhile the attachment thread reads the electrocardiograms, then
        // the GPX files as the XML names them.
        let thread = Thread {
            let result = Result { () throws -> ParseOutput in
                defer { routeQueue.close() }
                return try job.run(
                    flush: send,
                    progress: { bytes, records in
                        state.progress.withLock { $0.bytesRead = bytes; $0.records = records }
                    })
            }
            state.outcome.withLock { $0 = result }
            producerFinished()
        }
        thread.name = "healthbridge-import-parser"
        let attachmentThread = Thread {
            // The saver is the critical path: the reader takes the CPU the saver and the parser leave.
            ThreadPriority.yieldToOtherThreads(by: 10)
            let result = Result { try attachmentJob.run(flush: send) }
            state.attachmentOutcome.withLock { $0 = result }
            producerFinished()
        }
        attachmentThread.name = "healthbridge-import-attachments"
        thread.start()
        attachmentThread.start()

        /// Stops the parser and waits for it: every slot it may wait for is given back.
        func stopParser() async {
            state.cancelled.store(true, ordering: .relaxed)
            slots.signal()
            slots.signal()
            for await _ in batches { slots.signal() }
        }

        let hash: String
        do {
            hash = try await hashing.value
            if let previous = try await previousImport(Self.settingKey(hash), started: started) {
                await stopParser()
                logger.info("already imported", metadata: ["sha256": "\(hash)"])
                return previous
            }
        } catch {
            await stopParser()
            throw error
        }
        report.contentHash = hash
        logger.info("import started", metadata: ["path": "\(url.path)", "entry": "\(input.mainName)"])

        let ticker = progress.map { callback in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    if Task.isCancelled { break }
                    var snapshot = state.progress.withLock { $0 }
                    snapshot.elapsedSeconds = Date().timeIntervalSince(started)
                    callback(snapshot)
                }
            }
        }
        defer { ticker?.cancel() }

        // Through the store's bulk path when it has one (``BulkImportStore``): SQLite binds the packed rows and
        // checkpoints its WAL on another thread while the batches arrive, so the saver — the import's critical path
        // — does not wait for fsyncs. Another store gets the same writes through its plain API.
        let writer = BulkWriter(store)
        await writer.beginBulkWrites()
        do {
            for await batch in batches {
                if !batch.samples.isEmpty {
                    let samples = try await writer.save(batch.samples)
                    report.samplesInserted += samples.inserted
                    report.samplesReplaced += samples.replaced
                    report.samplesAlreadyStored += samples.ignored
                }
                report.correlationsInserted += try await store.save(correlations: batch.correlations).inserted
                report.workoutsInserted += try await store.save(workouts: batch.workouts).inserted
                report.documentsInserted += try await store.save(documents: batch.documents).inserted
                if !batch.routes.isEmpty {
                    // All of a batch's routes in one transaction (a heavy runner has thousands): one commit, not one
                    // per route. A route listed twice keeps its last points, as saving them in turn would.
                    let routes = Dictionary(batch.routes, uniquingKeysWith: { _, last in last })
                    try await writer.commit(BulkTransaction(routes: routes))
                }
                slots.signal()
            }
        } catch {
            await writer.endBulkWrites()
            await stopParser()
            throw error
        }
        await writer.endBulkWrites()
        // A cancelled task ends the batch stream early (batches may have been dropped): never record it as finished.
        try Task.checkCancellation()
        guard let result = state.outcome.withLock({ $0 }) else {
            throw HealthError(.internalError, "the parser stopped without a result")
        }
        let parsed = try result.get()
        guard let attachmentResult = state.attachmentOutcome.withLock({ $0 }) else {
            throw HealthError(.internalError, "the attachment reader stopped without a result")
        }
        let routes = try attachmentResult.get()
        report.elements = parsed.report.elements
        report.recordTypes = parsed.report.recordTypes
        report.skipped = parsed.report.skipped
        report.skippedCount = parsed.report.skippedCount
        report.locale = parsed.report.locale
        report.exportDate = parsed.report.exportDate
        report.exportVersion = parsed.exportVersion
        report.routePoints = parsed.report.routePoints + routes.points
        report.bytes = parsed.bytes
        if routes.files > 0 {
            report.elements["GPX file", default: 0] += routes.files
            report.routeSeconds = routes.seconds
            report.routeCPUSeconds = routes.cpuSeconds
        }
        report.routesMissing += routes.missing
        if routes.electrocardiograms > 0 { report.elements["Electrocardiogram", default: 0] += routes.electrocardiograms }
        for problem in routes.problems {
            report.skip(problem.element, line: problem.line, offset: problem.offset, reason: problem.reason)
        }

        try await readAttachments(parsed, input: input, report: &report)

        report.elapsedSeconds = Date().timeIntervalSince(started)
        if let data = try? JSONEncoder().encode(report) {
            try await store.setSetting(Self.settingKey(hash), String(decoding: data, as: UTF8.self))
            if let fingerprint {
                try await store.setSetting(Self.fingerprintKey(fingerprint), String(decoding: data, as: UTF8.self))
            }
        }
        logger.info("import finished", metadata: ["records": "\(report.records)", "skipped": "\(report.skippedCount)",
                                                  "seconds": "\(report.elapsedSeconds)"])
        return report
    }

    /// Clinical records' FHIR resources, read after the XML (GPX routes and electrocardiograms are read meanwhile by
    /// ``AttachmentJob``).
    func readAttachments(_ parsed: ParseOutput, input: ExportInput, report: inout ImportReport) async throws {
        var documents: [HealthDocument] = []
        // Looked up in one index of the zip: a lookup by path walks the whole central directory (thousands of routes).
        let index = parsed.clinical.isEmpty ? [:] : input.entryIndex()
        for (document, path) in parsed.clinical {
            var updated = document
            if let data = try input.readFile(path, index: index), let resource = try? JSONSerialization.jsonObject(with: data),
               var object = (try? JSONSerialization.jsonObject(with: Data(document.json.utf8))) as? [String: Any] {
                object["fhirResource"] = resource
                updated.json = GenericBuilder.json(object)
            } else {
                report.routesMissing.append(path)
            }
            documents.append(updated)
        }
        report.documentsInserted += try await store.save(documents: documents).inserted
    }

    /// SHA-256 of what was imported: the file (zip or xml), or for a folder the main XML plus the names and sizes of
    /// the other files.
    static func contentHash(_ subject: ExportInput.HashSubject) throws -> String {
        var hasher = SHA256()
        func hashFile(_ url: URL) throws {
            guard let handle = FileHandle(forReadingAtPath: url.path) else {
                throw HealthError(.importRejected, "cannot read \(url.path)")
            }
            defer { try? handle.close() }
            while let data = try handle.read(upToCount: 4 << 20), !data.isEmpty { hasher.update(data: data) }
        }
        switch subject {
        case .file(let url):
            try hashFile(url)
        case .folder(let root, let main):
            try hashFile(main)
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.fileSizeKey])
            var listing: [String] = []
            while let file = enumerator?.nextObject() as? URL {
                let size = (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
                listing.append("\(file.path.dropFirst(root.path.count)):\(size)")
            }
            hasher.update(data: Data(listing.sorted().joined(separator: "\n").utf8))
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// What the parse thread and the saver share.
final class PipeState: Sendable {
    let progress: Mutex<ImportProgress>
    let outcome = Mutex<Result<ParseOutput, any Error>?>(nil)
    let attachmentOutcome = Mutex<Result<AttachmentOutcome, any Error>?>(nil)
    let cancelled = Atomic<Bool>(false)
    /// The threads still sending batches (parser and attachment reader): the last one ends the stream.
    let producers = Atomic<Int>(2)
    init(progress: ImportProgress) { self.progress = Mutex(progress) }
}

/// What the parse thread returns.
struct ParseOutput: Sendable {
    var report: ImportReport
    var clinical: [(document: HealthDocument, path: String)]
    var exportVersion: Int?
    var bytes: Int
}

/// The work of the parse thread.
/// Safety of `@unchecked Sendable`: the job (and the zip archive inside `input`) is used by the parse thread only,
/// from `start()` until it finishes; the importer reads the archive again only after the batch stream has ended,
/// which happens after the thread's last use.
final class ParseJob: @unchecked Sendable {
    let input: ExportInput
    let report: ImportReport
    let options: ImportOptions
    let routes: RouteQueue

    init(input: ExportInput, report: ImportReport, options: ImportOptions, routes: RouteQueue) {
        self.input = input
        self.report = report
        self.options = options
        self.routes = routes
    }

    func run(flush: @escaping (ImportBatch) throws -> Void, progress: (Int, Int) -> Void) throws -> ParseOutput {
        var parser = ExportParser(report: report, batchSize: options.batchSize, totalBytes: Int(input.mainSize),
                                  strict: options.strict, routeFile: { [routes] in routes.push($0, path: $1) },
                                  flush: flush)
        var scanner = XMLScanner()
        var consumed = 0
        var version: Int? = nil
        try input.readMain { bytes in
            if consumed == 0 { version = Self.exportVersion(bytes) }
            try scanner.feed(bytes) { event in try parser.handle(event) }
            consumed += bytes.count
            progress(consumed, parser.records)
        }
        try scanner.finish { event in try parser.handle(event) }
        guard parser.sawRoot else {
            throw HealthError(.importRejected, "no <HealthData> element found: not an Apple Health export; nothing was imported")
        }
        try parser.finish(bytesRead: consumed)
        progress(consumed, parser.records)
        return ParseOutput(report: parser.report, clinical: parser.pendingClinical,
                           exportVersion: version, bytes: consumed)
    }

    /// The number in `<!-- HealthKit Export Version: 14 -->` near the top of the file.
    static func exportVersion(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        guard let range = head.range(of: "HealthKit Export Version:") else { return nil }
        return Int(head[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
    }
}
