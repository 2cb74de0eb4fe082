import Foundation
import Synchronization
import Testing
import HealthModel
import HealthStore

/// SQLite only: the store file itself (foreign, corrupt or newer files, permissions, the WAL, racing opens).
@Suite struct FileStoreTests {
    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUntouched() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("notes.txt")
            let text = Data("These are my notes, not a database.\nSecond line.\n".utf8)
            try text.write(to: url)
            let error = #expect(throws: HealthError.self) { try SQLiteHealthStore(location: .file(url)) }
            #expect(error?.code == .storeUnavailable)
            let unchanged = try Data(contentsOf: url) == text
            #expect(unchanged)
            // No journal or WAL was created beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
        }
    }

    @Test func aShortNonSQLiteFileIsRefusedToo() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("short.db")
            let bytes = Data("SQLite".utf8)
            try bytes.write(to: url)
            let error = #expect(throws: HealthError.self) { try SQLiteHealthStore(location: .file(url)) }
            #expect(error?.code == .storeUnavailable)
            let unchanged = try Data(contentsOf: url) == bytes
            #expect(unchanged)
        }
    }

    @Test func aCorruptSQLiteFileIsRefusedAndLeftUntouched() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("corrupt.sqlite")
            var bytes = Data("SQLite format 3\0".utf8)
            bytes.append(Data(repeating: 0xAB, count: 4096 - 16))
            try bytes.write(to: url)
            let error = #expect(throws: HealthError.self) { try SQLiteHealthStore(location: .file(url)) }
            #expect(error?.code == .storeUnavailable)
            let unchanged = try Data(contentsOf: url) == bytes
            #expect(unchanged)
        }
    }

    @Test func anotherApplicationsSQLiteDatabaseIsRefusedAndLeftUntouched() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("notes.sqlite")
            try SQLiteFixtures.foreignDatabase.write(to: url)
            let error = #expect(throws: HealthError.self) { try SQLiteHealthStore(location: .file(url)) }
            #expect(error?.code == .storeUnavailable)
            let after = try Data(contentsOf: url)
            let unchanged = after == SQLiteFixtures.foreignDatabase
            #expect(unchanged, "the file changed: \(after.count) bytes now, was \(SQLiteFixtures.foreignDatabase.count)")
        }
    }

    @Test func aStoreFromANewerVersionIsRefusedAndLeftUntouched() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            try SQLiteFixtures.newerStore.write(to: url)
            let error = #expect(throws: HealthError.self) { try SQLiteHealthStore(location: .file(url)) }
            #expect(error?.code == .storeUnavailable)
            let after = try Data(contentsOf: url)
            let unchanged = after == SQLiteFixtures.newerStore
            #expect(unchanged, "the file changed: \(after.count) bytes now, was \(SQLiteFixtures.newerStore.count)")
        }
    }

    @Test func anEmptyFileBecomesAStore() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("empty.sqlite")
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
            let sample = qty(0, 60, 42)
            do {
                let store = try SQLiteHealthStore(location: .file(url))
                #expect(try await store.save([sample]).inserted == 1)
            }
            let header = try FileHandle(forReadingFrom: url).read(upToCount: 16)
            #expect(header == Data("SQLite format 3\0".utf8))
            let reopened = try SQLiteHealthStore(location: .file(url))
            #expect(try await all(reopened) == [sample])
        }
    }

    @Test func theStoreFileIsCreatedPrivate() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            let store = try SQLiteHealthStore(location: .file(url))
            _ = try await store.save([qty(0, 60, 1)])
            #expect(try permissions(url) == 0o600)
        }
    }

    @Test func theWriteAheadLogIsAsPrivateAsTheStore() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            let store = try SQLiteHealthStore(location: .file(url))
            _ = try await store.save([qty(0, 60, 1)])
            // While the store is open, its WAL holds the health data just saved.
            for suffix in ["-wal", "-shm"] {
                let side = URL(fileURLWithPath: url.path + suffix)
                if FileManager.default.fileExists(atPath: side.path) {
                    let mode = try permissions(side)
                    #expect(mode == 0o600, "\(suffix) has mode \(String(mode, radix: 8))")
                }
            }
            _ = store
        }
    }

    @Test func dataSurvivesReopening() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            let samples = [qty(0, 60, 1), qty(60, 120, 2)]
            do {
                let store = try SQLiteHealthStore(location: .file(url))
                _ = try await store.save(samples)
                _ = try await store.delete(uuids: [samples[0].uuid])
            }
            let reopened = try SQLiteHealthStore(location: .file(url))
            #expect(try await all(reopened) == [samples[1]])
            #expect(try await reopened.currentAnchor() == 3)
            #expect(try await reopened.changes(since: 2, types: nil, limit: 10).deleted.map(\.uuid) == [samples[0].uuid])
            // Saving the surviving sample again through the reopened store is still recognised as a duplicate.
            #expect(try await reopened.save(samples) == SaveResult(inserted: 1, ignored: 1))
        }
    }

    /// Processes opening one new store file at the same moment (CLI commands run side by side on a new data
    /// directory) all get the store: SQLite answers `SQLITE_BUSY` at once, without waiting, to all but one of the
    /// connections that switch the new file to WAL, and the store tries again instead of failing.
    @Test func storesOpenedAtOnceOnANewFileAllOpen() async throws {
        try await withTemporaryDirectory { dir in
            for round in 0..<40 {
                let url = dir.appendingPathComponent("race-\(round).sqlite")
                let results = await withCheckedContinuation { (continuation: CheckedContinuation<[String?], Never>) in
                    // Threads of their own, released together: the opens are synchronous and must overlap.
                    let count = 12
                    let start = DispatchSemaphore(value: 0)
                    let group = DispatchGroup()
                    let outcomes = OutcomeList(count: count)
                    for index in 0..<count {
                        group.enter()
                        Thread.detachNewThread {
                            start.wait()
                            do {
                                let store = try SQLiteHealthStore(location: .file(url))
                                _ = store
                                outcomes.set(index, nil)
                            } catch {
                                outcomes.set(index, "\(error)")
                            }
                            group.leave()
                        }
                    }
                    for _ in 0..<count { start.signal() }
                    group.notify(queue: .global()) { continuation.resume(returning: outcomes.all) }
                }
                #expect(results.allSatisfy { $0 == nil }, "round \(round): \(results.compactMap { $0 })")
            }
        }
    }
}

/// One slot per thread for ``FileStoreTests/storesOpenedAtOnceOnANewFileAllOpen()``.
private final class OutcomeList: Sendable {
    let slots: Mutex<[String?]>
    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }
    func set(_ index: Int, _ value: String?) { slots.withLock { $0[index] = value } }
    var all: [String?] { slots.withLock { $0 } }
}
