import Foundation
import HealthModel
import HealthStore
import ZIPFoundation

/// What the attachment thread read.
struct AttachmentOutcome: Sendable {
    var points = 0
    var files = 0
    var electrocardiograms = 0
    /// Time spent reading, inflating and scanning GPX files (not waiting for the XML or for the saver).
    var seconds = 0.0
    /// The thread's CPU time for the same work.
    var cpuSeconds = 0.0
    var missing: [String] = []
    /// GPX files with unreadable track points (each kept with the points that could be read).
    var problems: [ImportReport.Skipped] = []
}

/// Reads the export's attachments on a thread of its own while the main XML is still streaming: first the
/// electrocardiogram CSVs (``ECGReader``), then the GPX route files as the XML names them (``RouteQueue``). The archive
/// is opened a second time (its own file handle) and its central directory read by ``ZipDirectory``, which reads each
/// file whole and inflates it with zlib; routes are scanned into columns with ``GPXReader``, and what was read goes to the saver in batches of about ``pointsPerBatch`` points.
///
/// Safety of `@unchecked Sendable`: the job owns its reopened `input` (a zip archive of its own, never shared with
/// the parse thread) and is used by the attachment thread only, from `start()` until `run` returns.
final class AttachmentJob: @unchecked Sendable {
    static let pointsPerBatch = 100_000

    let input: ExportInput
    let queue: RouteQueue

    init(input: ExportInput, queue: RouteQueue) {
        self.input = input
        self.queue = queue
    }

    func run(flush: (ImportBatch) throws -> Void) throws -> AttachmentOutcome {
        var outcome = AttachmentOutcome()
        let index = input.entryIndex()
        let directory = input.zipDirectory()
        var electrocardiograms = ImportBatch()
        for path in input.files(under: "electrocardiograms") where path.lowercased().hasSuffix(".csv") {
            let data: Data?
            do {
                data = try input.readFile(path, index: index, directory: directory)
            } catch let error as HealthError {
                throw error  // over the limits: refused, as for the main XML
            } catch {
                outcome.problems.append(ImportReport.Skipped(element: "Electrocardiogram", line: 0, offset: 0,
                                                             reason: "\(path): cannot be read from the zip: \(error)"))
                continue
            }
            if let data, let document = ECGReader.document(data, path: path) {
                electrocardiograms.documents.append(document)
                outcome.electrocardiograms += 1
            }
        }
        if !electrocardiograms.documents.isEmpty { try flush(electrocardiograms) }
        var batch = ImportBatch()
        var pending = 0
        while let item = queue.next() {
            let (route, path) = item
            let started = ContinuousClock.now
            let startedCPU = ThreadPriority.threadCPUSeconds()
            let data: Data
            do {
                guard let read = try input.readFile(path, index: index, directory: directory) else {
                    outcome.missing.append(path)
                    continue
                }
                data = read
            } catch let error as HealthError {
                throw error  // a decompression bomb or an entry over the limits: refused, as for the main XML
            } catch {
                outcome.problems.append(ImportReport.Skipped(element: "GPX file", line: 0, offset: 0,
                                                             reason: "\(path): cannot be read from the zip: \(error)"))
                continue
            }
            let (columns, scan) = GPXReader.columns(data)
            outcome.seconds += Self.seconds(since: started)
            outcome.cpuSeconds += ThreadPriority.threadCPUSeconds() - startedCPU
            outcome.files += 1
            outcome.points += columns.count
            if scan.skipped > 0 || (scan.points == 0 && !data.isEmpty) {
                let reason = scan.points == 0 && scan.skipped == 0
                    ? "\(path): no track point found (not a GPX track file?)"
                    : "\(path): \(scan.skipped) track points skipped, \(scan.points) kept; first: \(scan.firstProblem ?? "")"
                outcome.problems.append(ImportReport.Skipped(element: "GPX file", line: 0, offset: 0, reason: reason))
            }
            batch.routes.append((route, columns))
            pending += columns.count
            if pending >= Self.pointsPerBatch {
                try flush(batch)
                batch = ImportBatch()
                pending = 0
            }
        }
        if !batch.routes.isEmpty { try flush(batch) }
        return outcome
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
