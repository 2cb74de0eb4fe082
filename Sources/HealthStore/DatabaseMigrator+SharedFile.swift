import Foundation
import GRDB

extension DatabaseMigrator {
    /// Applies the migrations to a database file that another process may be creating or upgrading at the same
    /// moment (an import and a server started together, two CLI commands run side by side).
    ///
    /// A migration of ours can then fail on a table the other process has just created; it is tried again after a
    /// short pause, and the database is usable as soon as every migration is applied, whoever applied it.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: path, configuration: config)
    /// try migrator.migrateSharedFile(pool)
    /// ```
    ///
    /// - Throws: the last migration error when the migrations are still incomplete after
    ///   ``SharedDatabaseFile/defaultTimeout``.
    public func migrateSharedFile(_ writer: any DatabaseWriter) throws {
        let deadline = ContinuousClock.now + SharedDatabaseFile.defaultTimeout
        var attempts = 0
        while true {
            do {
                try migrate(writer)
                return
            } catch {
                attempts += 1
                if (try? writer.read({ try hasCompletedMigrations($0) })) == true { return }
                guard ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: min(0.05 * Double(attempts), 0.25) * Double.random(in: 0.5...1.5))
            }
        }
    }
}
