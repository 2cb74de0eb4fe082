import HTTPTypes
import Foundation
import HealthImport
import HealthModel
import HealthService
import HealthSupport
import Hummingbird
import Synchronization

/// The imports started from the console: one at a time, its progress read by the page while it runs.
final class ConsoleImports: Sendable {
    struct Job: Sendable {
        enum State: String, Sendable, Codable { case running, done, failed }
        var state: State = .running
        var fraction = 0.0
        var records = 0
        var report: ImportReport?
        var message: String?
    }

    /// The page's view of a job (no health value: progress, counts, an error message).
    struct Status: Codable, Sendable {
        var job: String
        var state: Job.State
        var percent: Double
        var records: Int
        var message: String?
    }

    private let jobs = Mutex<[String: Job]>([:])

    var running: Bool { jobs.withLock { $0.values.contains { $0.state == .running } } }

    func start() -> String? {
        jobs.withLock { jobs in
            guard !jobs.values.contains(where: { $0.state == .running }) else { return nil }
            let id = String(UUID().uuidString.prefix(8)).lowercased()
            jobs[id] = Job()
            return id
        }
    }

    func update(_ id: String, _ change: (inout Job) -> Void) {
        jobs.withLock { jobs in
            if var job = jobs[id] {
                change(&job)
                jobs[id] = job
            }
        }
    }

    func job(_ id: String) -> Job? { jobs.withLock { $0[id] } }
}

extension Console {
    static let uploadDirectory = "console-uploads"

    /// Import: a file picker whose upload streams to disk, a progress bar (upload, then import) and, when the import
    /// ended, its report.
    func importPage(_ session: ConsoleSession, request: Request) async throws -> HTML {
        let query = ConsoleForm(urlEncoded: request.uri.query ?? "")
        var result: HTML = .empty
        if let id = query.value("job"), let job = imports.job(id) {
            result = Self.report(job)
        }
        let body: HTML = """
            <h1>Import</h1>
            <p>On the iPhone: Health → your picture → Export All Health Data, then choose the <code>export.zip</code> here. Importing the same file again takes a second; a newer export adds only what is new.</p>
            <form id="import-form" class="upload" data-csrf="\(session.csrf)" data-max="\(configuration.maxUploadBytes)">
            <label for="import-file">Apple Health export (export.zip, at most \(Self.byteString(configuration.maxUploadBytes)))</label>
            <input type="file" id="import-file" name="file" accept=".zip,application/zip" required>
            <button type="submit" id="import-start">Import</button></form>
            <div id="import-progress" class="progress" hidden>
            <label for="import-bar" id="import-phase">Uploading</label>
            <progress id="import-bar" max="100" value="0"></progress> <span id="import-percent" aria-live="polite">0 %</span></div>
            <p id="import-message" role="status"></p>
            \(result)
            """
        return ConsolePage.layout(title: "Import", current: "/import", session: session, body: body)
    }

    static func report(_ job: ConsoleImports.Job) -> HTML {
        switch job.state {
        case .running:
            return "<p>The import is still running (\(Figure.format(job.fraction * 100)) %).</p>"
        case .failed:
            return "<section class=\"error\" role=\"alert\" id=\"import-report\"><h2>The import failed</h2><p>\(job.message ?? "")</p></section>"
        case .done:
            guard let report = job.report else { return .empty }
            if report.alreadyImported {
                return "<section id=\"import-report\"><h2>Report</h2><p>Already imported (same content): nothing to do.</p></section>"
            }
            let rows: [[HTML]] = [
                ["Records read", "\(Figure.format(Double(report.records)))"],
                ["Samples added", "\(Figure.format(Double(report.samplesInserted)))"],
                ["Samples already stored", "\(Figure.format(Double(report.samplesAlreadyStored)))"],
                ["Samples replaced by a newer version", "\(report.samplesReplaced)"],
                ["Workouts added", "\(report.workoutsInserted)"],
                ["Malformed elements skipped", "\(report.skippedCount)"],
                ["Export date", "\(report.exportDate ?? "–")"],
                ["Time", "\(Figure.format(report.elapsedSeconds)) s"],
            ]
            return """
                <section id="import-report" aria-labelledby="report-h"><h2 id="report-h">Report</h2>
                \(ConsolePage.table(id: "import-table", ["What", "How many"], rows))</section>
                """
        }
    }

    /// `POST /import/upload`: the body (export.zip) streamed to a 0600 file in the data directory, never held in
    /// memory; refused with a clear message, and nothing kept, when it is too large or not a zip. The import then runs
    /// in the background; answers 202 `{"job": …}`.
    func upload(_ request: Request) async -> Response {
        if let refusal = originRefusal(request) { return refusal }
        guard let session = await session(request) else {
            return failure(HealthError(.unauthenticated, "sign in again: run `healthbridge console`"), status: .unauthorized, json: true)
        }
        guard ConsoleSessions.matches(request.headers[HTTPField.Name("X-CSRF-Token")!], session.csrf) else {
            return failure(HealthError(.notAuthorized, "the CSRF token is missing or wrong: reload the page; nothing was imported"),
                           status: .forbidden, json: true)
        }
        let limit = configuration.maxUploadBytes
        let tooLarge = HealthError(.payloadTooLarge, "the file is larger than \(Self.byteString(limit)); nothing was imported")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            return failure(tooLarge, status: .contentTooLarge, json: true)
        }
        guard let id = imports.start() else {
            return failure(HealthError(.conflict, "an import is already running; wait for it to finish"), status: .conflict, json: true)
        }
        let directory = home.directory.appendingPathComponent(Self.uploadDirectory, isDirectory: true)
        let file = directory.appendingPathComponent("upload-\(id).zip")
        func fail(_ error: HealthError, _ status: HTTPResponse.Status) -> Response {
            try? FileManager.default.removeItem(at: file)
            imports.update(id) { $0.state = .failed; $0.message = error.message }
            return failure(error, status: status, json: true)
        }
        do {
            try PrivateFile.createDirectory(directory)
            guard let fd = try? PrivateFile.create(file.path, replacing: true) else { return fail(HealthError(.storeUnavailable, "cannot write the upload in the data directory"), .internalServerError) }
            var total = 0
            var head: [UInt8] = []
            var failed = false
            do {
                for try await chunk in request.body {
                    total += chunk.readableBytes
                    if total > limit { failed = true; break }
                    if head.count < 4 { head += chunk.readableBytesView.prefix(4 - head.count) }
                    let written = chunk.withUnsafeReadableBytes { bytes -> Bool in
                        guard let base = bytes.baseAddress else { return true }
                        var offset = 0
                        while offset < bytes.count {
                            let n = write(fd, base + offset, bytes.count - offset)
                            if n <= 0 { return false }
                            offset += n
                        }
                        return true
                    }
                    guard written else {
                        close(fd)
                        return fail(HealthError(.storeUnavailable, "the upload could not be written (disk full?); nothing was imported"), .internalServerError)
                    }
                }
            } catch {
                close(fd)
                return fail(HealthError(.invalidArgument, "the upload was interrupted; nothing was imported"), .badRequest)
            }
            close(fd)
            if failed { return fail(tooLarge, .contentTooLarge) }
            guard head == [0x50, 0x4B, 0x03, 0x04] else {
                return fail(HealthError(.importRejected, "this is not a zip file: choose the export.zip the Health app made; nothing was imported"),
                            .unsupportedMediaType)
            }
        } catch {
            return fail(HealthError(.storeUnavailable, "cannot write the upload in the data directory"), .internalServerError)
        }
        logger.info("console: import started", metadata: ["job": "\(id)"])
        let service = service
        let jobs = imports
        let log = logger
        Task {
            do {
                let report = try await service.importAppleHealthExport(file, logger: log) { progress in
                    jobs.update(id) { $0.fraction = progress.fraction; $0.records = progress.records }
                }
                jobs.update(id) { $0.state = .done; $0.fraction = 1; $0.report = report; $0.records = report.records }
                log.info("console: import finished", metadata: ["job": "\(id)"])
            } catch {
                let message = (error as? HealthError)?.message ?? "\(error)"
                jobs.update(id) { $0.state = .failed; $0.message = message }
                log.error("console: import failed", metadata: ["job": "\(id)"])
            }
            try? FileManager.default.removeItem(at: file)
        }
        return json(["job": id], status: .accepted)
    }

    /// `GET /import/status?job=…`: the job's progress as JSON.
    func importStatus(_ request: Request) async -> Response {
        guard await session(request) != nil else {
            return failure(HealthError(.unauthenticated, "sign in again: run `healthbridge console`"), status: .unauthorized, json: true)
        }
        let query = ConsoleForm(urlEncoded: request.uri.query ?? "")
        guard let id = query.value("job"), let job = imports.job(id) else {
            return failure(HealthError(.notFound, "no such import"), status: .notFound, json: true)
        }
        return json(ConsoleImports.Status(job: id, state: job.state, percent: (job.fraction * 1000).rounded() / 10,
                                          records: job.records, message: job.message))
    }
}
