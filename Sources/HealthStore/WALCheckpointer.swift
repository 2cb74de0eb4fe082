import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// Copies the write-ahead log into the database on a thread of its own while a bulk write (an import) runs, so that
/// the writer never waits for a checkpoint's fsyncs.
///
/// SQLite's default auto-checkpoint runs on the writer, inside the commit that crosses 1,000 WAL pages: it copies
/// them into the database and syncs both files (synchronous = NORMAL), and the next batch waits. On a ten-year
/// export that is hundreds of checkpoints and about 1.6 s of fsync on the critical path. While installed, this
/// replaces it with a WAL hook on the writer connection that only *asks* for a checkpoint: a second connection runs
/// `PASSIVE` checkpoints (which never block the writer or readers) on a utility queue.
///
/// A passive checkpoint cannot reset the log — SQLite restarts the WAL from its beginning only when a write
/// transaction starts with every frame already copied, which a background copier racing a busy writer rarely
/// allows. So the WAL is bounded on the writer too: past ``writerFrames`` pages (8,000 by default) the hook runs one passive checkpoint
/// itself. By then the background copier has done most of the copying and syncing, so it is short, and the next
/// transaction starts the log afresh.
///
/// Crash safety is SQLite's own: every commit is in the WAL; a kill leaves a WAL that the next open replays.
///
/// ```swift
/// let checkpointer = try WALCheckpointer(path: url.path, logger: logger)
/// try await writer.writeWithoutTransaction { db in try checkpointer.install(on: db) }
/// … many write transactions …
/// try await writer.writeWithoutTransaction { db in try checkpointer.uninstall(from: db) }
/// checkpointer.finish()
/// ```
final class WALCheckpointer: Sendable {
    /// WAL pages after which a commit asks for a background checkpoint (SQLite's auto-checkpoint default).
    static let defaultBackgroundFrames: Int32 = 1_000
    /// WAL pages after which the writer checkpoints itself, so that the log starts again (128 MiB of 16 KiB pages).
    static let defaultWriterFrames: Int32 = 8_000

    let backgroundFrames: Int32
    let writerFrames: Int32
    /// Checkpoints run by the background queue and by the writer (its bound), for tests and logs.
    let backgroundCheckpoints = Atomic<Int>(0)
    let writerCheckpoints = Atomic<Int>(0)

    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "healthbridge.store.checkpoint", qos: .utility)
    /// A checkpoint is queued and has not started: further requests coalesce into it.
    private let requested = Atomic<Bool>(false)
    private let logger: Logger

    init(path: String, logger: Logger, backgroundFrames: Int32 = defaultBackgroundFrames,
         writerFrames: Int32 = defaultWriterFrames) throws {
        self.backgroundFrames = backgroundFrames
        self.writerFrames = writerFrames
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.label = "healthbridge.checkpoint"
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        connection = try DatabaseQueue(path: path, configuration: config)
        self.logger = logger
    }

    /// Replaces the writer connection's auto-checkpoint with this checkpointer's hook. Call on the writer.
    func install(on db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Gives the writer connection SQLite's default auto-checkpoint back (which removes this hook). Call on the
    /// writer; after it returns the hook is never called again.
    func uninstall(from db: Database) throws {
        sqlite3_wal_hook(db.sqliteConnection, nil, nil)
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 1000")
    }

    /// Runs the last checkpoint (what the writer committed since the previous one) and waits for it, then closes the
    /// connection: the import's final commits are copied here rather than by the writer's next auto-checkpoint.
    func finish() {
        queue.sync { self.checkpoint() }
        try? connection.close()
    }

    /// Called by the hook after each commit, on the writer, with the number of pages in the WAL.
    fileprivate func committed(frames: Int32, db: OpaquePointer?) {
        if frames >= writerFrames {
            // Busy when the background copier holds the checkpoint lock: the next commit tries again.
            if sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
                writerCheckpoints.add(1, ordering: .relaxed)
            }
        } else if frames >= backgroundFrames, !requested.exchange(true, ordering: .acquiringAndReleasing) {
            queue.async { self.checkpoint() }
        }
    }

    private func checkpoint() {
        requested.store(false, ordering: .releasing)
        do {
            try connection.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
            backgroundCheckpoints.add(1, ordering: .relaxed)
        } catch {
            // A checkpoint that could not run leaves the frames in the WAL: the writer's bound (or the next open)
            // copies them. Nothing is lost.
            logger.debug("background checkpoint skipped", metadata: ["error": "\(error)"])
        }
    }
}

/// SQLite's WAL hook: `context` is the installed ``WALCheckpointer`` (unretained; the store keeps it alive until
/// ``WALCheckpointer/uninstall(from:)`` has run on the writer).
private func walHook(_ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                     _ frames: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames, db: db)
    return SQLITE_OK
}
