import Foundation
import GRDB
import HealthModel
import HealthSupport
import Logging
import Synchronization

/// The embedded default ``HealthStore``: SQLite through GRDB, with the bulk path of an import (``BulkImportStore``).
///
/// A file store runs in WAL mode with one writer and many readers, so queries are never blocked by an import.
/// Types, units and sources are interned as small integers; samples are keyed for range scans by (type, start) with a
/// covering index for the statistics path; every write bumps a monotonic change sequence (the anchor), and deletions
/// leave tombstones.
///
/// ```swift
/// let home = try HealthBridgeHome.resolve()
/// let store = try SQLiteHealthStore(location: .file(home.storeURL))
/// let result = try await store.save(samples)
/// ```
public final class SQLiteHealthStore: BulkImportStore {
    let writer: any DatabaseWriter
    let logger: Logger
    let location: StoreLocation
    let interned = Mutex(InternTable())
    let observers = Mutex(ObserverTable())
    /// Open bulk-write runs (imports) and their WAL checkpointer: see ``beginBulkWrites()``.
    let bulkWrites = Mutex(BulkWriteState())

    /// Opens (creating if needed) the store at `location`.
    ///
    /// - Throws: ``HealthError`` `.storeUnavailable` when the file is not a HealthBridge store, is corrupt, is locked
    ///   by another writer for longer than the busy timeout, or was written by a newer HealthBridge. Nothing is
    ///   overwritten in any of those cases.
    public init(location: StoreLocation, logger: Logger = Logger(label: "healthbridge.store")) throws {
        self.location = location
        self.logger = logger
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.label = "healthbridge"
        config.prepareDatabase { db in
            try db.execute(sql: """
                PRAGMA synchronous = NORMAL;
                PRAGMA temp_store = MEMORY;
                PRAGMA cache_size = -65536;
                PRAGMA mmap_size = 268435456;
                """)
        }
        do {
            switch location {
            case .inMemory:
                writer = try DatabaseQueue(configuration: config)
            case .file(let url):
                try Self.checkExistingFile(url)
                try Self.prepareFile(url)
                writer = try SharedDatabaseFile.openingWhileBusy { try DatabasePool(path: url.path, configuration: config) }
                for suffix in ["", "-wal", "-shm"] {
                    _ = try? PrivateFile.tightenFile(url.path + suffix)
                }
            }
            try Self.migrate(writer)
        } catch let error as HealthError {
            throw error
        } catch let error as PrivateFileError {
            throw HealthError(error)
        } catch let error as DatabaseError {
            throw Self.storeError(error, location: location)
        } catch {
            throw HealthError(.storeUnavailable, "cannot open the store: \(error)")
        }
    }

    /// Applies the migrations (see ``GRDB/DatabaseMigrator/migrateSharedFile(_:)``: another process may be
    /// creating the same store).
    static func migrate(_ writer: any DatabaseWriter) throws {
        try migrator.migrateSharedFile(writer)
    }

    /// A convenience for tests: a fresh in-memory store.
    public static func inMemory(logger: Logger = Logger(label: "healthbridge.store")) throws -> SQLiteHealthStore {
        try SQLiteHealthStore(location: .inMemory, logger: logger)
    }

    static func checkExistingFile(_ url: URL) throws {
        let fm = FileManager.default
        guard fm.fileExists(atPath: url.path) else { return }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw HealthError(.storeUnavailable, "cannot read \(url.path): permission denied")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return }  // an empty file becomes a new store
        guard header == Data("SQLite format 3\0".utf8) else {
            throw HealthError(.storeUnavailable,
                              "\(url.path) is not a HealthBridge store (not an SQLite database); nothing was changed")
        }
    }

    /// Creates a missing store file with mode 0600 (SQLite gives the WAL and shared-memory files the main file's
    /// mode), and refuses an existing database that is not a HealthBridge store or was written by a newer version —
    /// before opening it for writing, since switching to WAL mode already rewrites the header.
    static func prepareFile(_ url: URL) throws {
        let fm = FileManager.default
        let size = (try? fm.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard fm.fileExists(atPath: url.path), size > 0 else {
            // 0600 from the first byte (the WAL and shared-memory files take this mode when SQLite creates them).
            try PrivateFile.createIfMissing(url.path)
            // 16 KiB pages: fewer B-tree pages to touch per insert and per range scan. The page size is fixed when
            // the database is first written, so set it before the pool switches the file to WAL.
            var creatorConfig = Configuration()
            creatorConfig.busyMode = .timeout(10)
            try SharedDatabaseFile.openingWhileBusy {
                let creator = try DatabaseQueue(path: url.path, configuration: creatorConfig)
                try creator.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL")
                }
                try creator.close()
            }
            return
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        let probe = try DatabaseQueue(path: url.path, configuration: config)
        try probe.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            if tables.isEmpty { return }
            // A store another process is creating right now has the migrations table and nothing applied yet.
            let applied = tables.contains("grdb_migrations")
                ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : nil
            guard let applied, applied.isEmpty ? tables == ["grdb_migrations"] : tables.contains("samples") else {
                throw HealthError(.storeUnavailable,
                                  "\(url.path) is an SQLite database of another application, not a HealthBridge store; nothing was changed")
            }
            if try migrator.hasBeenSuperseded(db) {
                throw HealthError(.storeUnavailable,
                                  "\(url.path) was written by a newer HealthBridge; upgrade healthbridge to open it (nothing was changed)")
            }
        }
        try probe.close()
    }

    static func storeError(_ error: DatabaseError, location: StoreLocation) -> HealthError {
        let path: String
        switch location {
        case .file(let url): path = url.path
        case .inMemory: path = "in-memory store"
        }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return HealthError(.storeUnavailable, "\(path) is locked by another process; try again when it finishes")
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return HealthError(.storeUnavailable, "\(path) is corrupt or not a HealthBridge store; nothing was changed")
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
            return HealthError(.storeUnavailable, "cannot open \(path) for writing: \(error.message ?? "permission denied")")
        case .SQLITE_FULL:
            return HealthError(.storeUnavailable, "the disk holding \(path) is full")
        default:
            return HealthError(.storeUnavailable, "\(path): \(error.message ?? "\(error)")")
        }
    }

    /// Runs a write transaction, mapping database errors and keeping the intern cache consistent on failure.
    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do {
            return try await writer.write(body)
        } catch let error as HealthError {
            interned.withLock { $0 = InternTable() }
            throw error
        } catch let error as DatabaseError {
            interned.withLock { $0 = InternTable() }
            throw Self.storeError(error, location: location)
        }
    }

    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do {
            return try await writer.read(body)
        } catch let error as DatabaseError {
            throw Self.storeError(error, location: location)
        }
    }
}
