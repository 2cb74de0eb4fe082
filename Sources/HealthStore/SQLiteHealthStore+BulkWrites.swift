import Foundation
import GRDB

/// The store's bulk-write state: how many runs are open, and the checkpointer while any is.
struct BulkWriteState {
    var depth = 0
    var checkpointer: WALCheckpointer?
    /// The checkpointer's thresholds in WAL pages (tests lower them).
    var backgroundFrames = WALCheckpointer.defaultBackgroundFrames
    var writerFrames = WALCheckpointer.defaultWriterFrames
    /// Checkpoints the ended runs' checkpointers ran, in the background and on the writer.
    var backgroundCheckpoints = 0
    var writerCheckpoints = 0
}

extension SQLiteHealthStore {
    /// Moves WAL checkpoints off the writer until ``endBulkWrites()`` (file stores; in memory there is no WAL).
    ///
    /// ```swift
    /// await store.beginBulkWrites()
    /// defer { Task { await store.endBulkWrites() } }
    /// for batch in batches { try await store.save(batch) }
    /// ```
    public func beginBulkWrites() async {
        guard case .file(let url) = location else { return }
        let thresholds = bulkWrites.withLock { state -> (Int32, Int32)? in
            state.depth += 1
            return state.depth == 1 ? (state.backgroundFrames, state.writerFrames) : nil
        }
        guard let (backgroundFrames, writerFrames) = thresholds else { return }
        do {
            let checkpointer = try WALCheckpointer(path: url.path, logger: logger, backgroundFrames: backgroundFrames,
                                                   writerFrames: writerFrames)
            bulkWrites.withLock { $0.checkpointer = checkpointer }
            try await writer.writeWithoutTransaction { db in try checkpointer.install(on: db) }
        } catch {
            // Only slower: SQLite's own auto-checkpoint stays in place.
            logger.debug("background checkpoints unavailable", metadata: ["error": "\(error)"])
        }
    }

    /// Gives the writer SQLite's auto-checkpoint back once the last open run ends, after copying what the run left
    /// in the WAL on the checkpointer's thread.
    public func endBulkWrites() async {
        let last = bulkWrites.withLock { state -> WALCheckpointer?? in
            guard state.depth > 0 else { return nil }
            state.depth -= 1
            guard state.depth == 0 else { return nil }
            defer { state.checkpointer = nil }
            return .some(state.checkpointer)
        }
        guard case .some(let ended) = last, let checkpointer = ended else { return }
        do {
            try await writer.writeWithoutTransaction { db in try checkpointer.uninstall(from: db) }
        } catch {
            logger.debug("could not restore the auto-checkpoint", metadata: ["error": "\(error)"])
        }
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                checkpointer.finish()
                continuation.resume()
            }
        }
        bulkWrites.withLock { state in
            state.backgroundCheckpoints += checkpointer.backgroundCheckpoints.load(ordering: .relaxed)
            state.writerCheckpoints += checkpointer.writerCheckpoints.load(ordering: .relaxed)
        }
        logger.debug("bulk writes ended", metadata: [
            "backgroundCheckpoints": "\(checkpointer.backgroundCheckpoints.load(ordering: .relaxed))",
            "writerCheckpoints": "\(checkpointer.writerCheckpoints.load(ordering: .relaxed))"])
    }
}
