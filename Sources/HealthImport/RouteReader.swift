import Dispatch
import Foundation
import HealthModel
import HealthStore
import Synchronization
import ZIPFoundation

/// The GPX files to read, in the order the XML names them: filled by the parse thread, emptied by the route thread.
final class RouteQueue: Sendable {
    private struct State {
        var items: [(route: UUID, path: String)] = []
        var head = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// One signal per item pushed, and one for `close()`.
    private let available = DispatchSemaphore(value: 0)

    func push(_ route: UUID, path: String) {
        state.withLock { $0.items.append((route, path)) }
        available.signal()
    }

    /// No more items: `next()` returns nil once the queue is empty.
    func close() {
        state.withLock { $0.closed = true }
        available.signal()
    }

    /// The next route to read, waiting for one; nil when the queue is closed and empty.
    func next() -> (route: UUID, path: String)? {
        while true {
            available.wait()
            let (item, closed) = state.withLock { state -> ((route: UUID, path: String)?, Bool) in
                guard state.head < state.items.count else { return (nil, state.closed) }
                let item = state.items[state.head]
                state.head += 1
                if state.head > 1_024, state.head * 2 > state.items.count {
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
                return (item, false)
            }
            if let item { return item }
            if closed {
                available.signal()  // every later call returns nil too
                return nil
            }
        }
    }
}

/// What the route thread read.
struct RouteOutcome: Sendable {
    var points = 0
    var files = 0
    /// Time spent reading, inflating and scanning GPX files (not waiting for the XML or for the saver).
    var seconds = 0.0
    var missing: [String] = []
    /// GPX files with unreadable track points (each kept with the points that could be read).
    var problems: [ImportReport.Skipped] = []
}

/// Reads the GPX route files on a thread of its own while the main XML is still streaming: the archive is opened a
/// second time (its own file handle), each file is inflated and scanned into columns (``GPXReader``), and routes go to
/// the saver in batches of about ``pointsPerBatch`` points.
///
/// Safety of `@unchecked Sendable`: the job owns its reopened `input` (a zip archive of its own, never shared with
/// the parse thread) and is used by the route thread only, from `start()` until `run` returns.
final class RouteJob: @unchecked Sendable {
    static let pointsPerBatch = 250_000

    let input: ExportInput
    let queue: RouteQueue

    init(input: ExportInput, queue: RouteQueue) {
        self.input = input
        self.queue = queue
    }

    func run(flush: (ImportBatch) throws -> Void) throws -> RouteOutcome {
        var outcome = RouteOutcome()
        let index = input.entryIndex()
        var batch = ImportBatch()
        var pending = 0
        while let item = queue.next() {
            let (route, path) = item
            let started = ContinuousClock.now
            let data: Data
            do {
                guard let read = try input.readFile(path, index: index) else {
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
