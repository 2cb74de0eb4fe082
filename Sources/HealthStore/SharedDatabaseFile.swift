import Foundation
import GRDB

/// Opening a database file that other processes may be opening, creating or migrating at the same moment: two CLI
/// commands run side by side on a new data directory, an import started beside a running server.
///
/// SQLite waits for a lock held by another connection (the busy timeout) in most places, but not everywhere:
/// switching a new file to WAL (`PRAGMA journal_mode = WAL`, which `DatabasePool` runs when it opens) and upgrading a
/// read transaction to a write after another process committed return `SQLITE_BUSY` at once, because waiting there
/// could deadlock. Those are the moments two processes opening one new file collide. ``openingWhileBusy(timeout:_:)``
/// tries such a step again, with a short growing pause, until it succeeds or the busy timeout has passed.
///
/// ```swift
/// let pool = try SharedDatabaseFile.openingWhileBusy {
///     try DatabasePool(path: path, configuration: config)
/// }
/// ```
public enum SharedDatabaseFile {
    /// How long a step is tried again: the same ten seconds as the connections' busy timeout.
    public static let defaultTimeout: Duration = .seconds(10)

    /// Runs `body`, and runs it again while it fails with `SQLITE_BUSY` or `SQLITE_LOCKED`, for at most `timeout`.
    ///
    /// - Throws: the first error that is not a busy error, or the last busy error once `timeout` has passed.
    public static func openingWhileBusy<T>(timeout: Duration = defaultTimeout, _ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + timeout
        var pause = 0.005
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                guard ContinuousClock.now < deadline else { throw error }
                // Jitter keeps processes that collided once from colliding again in step.
                Thread.sleep(forTimeInterval: pause * Double.random(in: 0.5...1.5))
                pause = min(pause * 2, 0.1)
            }
        }
    }
}
