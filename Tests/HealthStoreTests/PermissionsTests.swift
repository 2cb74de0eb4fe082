import Foundation
import HealthModel
import HealthSupport
import Synchronization
import Testing
@testable import HealthStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 17, finding 9: the data directory is 0700 even when it already existed wider, and secrets and the store are
/// 0600 from their first byte whatever the umask.
/// SQLite only: file and directory modes of the data home and the store file.
@Suite("Permissions", .serialized)
struct PermissionsTests {
    static func mode(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int(info.st_mode & 0o777)
    }

    static func temporaryDirectory(mode: mode_t) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hb-perm-\(UUID().uuidString)")
        guard mkdir(url.path, 0o700) == 0, chmod(url.path, mode) == 0 else { throw POSIXError(.EIO) }
        return url
    }

    @Test func anExistingWideDataDirectoryIsTightened() throws {
        let directory = try Self.temporaryDirectory(mode: 0o755)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(Self.mode(directory.path) == 0o755)
        let home = try HealthBridgeHome.resolve(environment: ["HEALTHBRIDGE_HOME": directory.path])
        #expect(home.directory.path == directory.path)
        #expect(Self.mode(directory.path) == 0o700)
    }

    /// A data directory that does not exist yet is made 0700 from the start: with umask 0, a watcher polling its parent
    /// never sees one of 40 new homes open to others (Foundation's `createDirectory(…, attributes:)` makes it 0777 first
    /// and narrows it after).
    @Test func aNewDataDirectoryIsOwnerOnlyFromTheStart() throws {
        let parent = try Self.temporaryDirectory(mode: 0o700)
        defer { try? FileManager.default.removeItem(at: parent) }
        let previous = umask(0)
        defer { umask(previous) }
        let watching = ManagedAtomicFlag()
        let exposed = Watcher(directory: parent.path, running: watching)
        let watcher = Thread { exposed.run() }
        watcher.start()
        for index in 0..<40 {
            let home = try HealthBridgeHome.resolve(environment: ["HEALTHBRIDGE_HOME": parent.appendingPathComponent("home-\(index)").path])
            #expect(Self.mode(home.directory.path) == 0o700)
        }
        watching.stop()
        while !exposed.finished { usleep(1000) }
        #expect(exposed.seen.isEmpty, "open to others at some moment: \(exposed.seen.sorted())")
    }

    /// With a permissive umask (0), every file the store and the secrets helper create is still 0600, and a
    /// watcher polling the directory while they are written never sees a file others could read.
    @Test func filesAreOwnerOnlyFromTheFirstByte() async throws {
        let directory = try Self.temporaryDirectory(mode: 0o700)
        defer { try? FileManager.default.removeItem(at: directory) }
        let previous = umask(0)
        defer { umask(previous) }
        let watching = ManagedAtomicFlag()
        let exposed = Watcher(directory: directory.path, running: watching)
        let watcher = Thread { exposed.run() }
        watcher.start()
        defer { watching.stop() }
        for index in 0..<50 {
            try PrivateFile.write(Data("secret \(index)\n".utf8), to: directory.appendingPathComponent("mcp-token"))
        }
        let store = try SQLiteHealthStore(location: .file(directory.appendingPathComponent("health.sqlite")))
        _ = try await store.typeSummaries()
        watching.stop()
        while !exposed.finished { usleep(1000) }
        #expect(exposed.seen.isEmpty, "readable by others at some moment: \(exposed.seen)")
        for name in ["mcp-token", "health.sqlite", "health.sqlite-wal", "health.sqlite-shm"] {
            let path = directory.appendingPathComponent(name).path
            #expect(Self.mode(path) == 0o600, "\(name)")
        }
        #expect(try String(contentsOf: directory.appendingPathComponent("mcp-token"), encoding: .utf8) == "secret 49\n")
    }
}

/// A stop flag for the watcher thread.
final class ManagedAtomicFlag: Sendable {
    private let running = Mutex(true)
    func stop() { running.withLock { $0 = false } }
    var isRunning: Bool { running.withLock { $0 } }
}

/// Polls a directory and records every file seen with group or other permission bits.
final class Watcher: Sendable {
    private let state = Mutex<(found: Set<String>, done: Bool)>(([], false))
    let directory: String
    let running: ManagedAtomicFlag

    init(directory: String, running: ManagedAtomicFlag) { self.directory = directory; self.running = running }

    var seen: Set<String> { state.withLock { $0.found } }
    var finished: Bool { state.withLock { $0.done } }

    func run() {
        while running.isRunning {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                var info = stat()
                if stat(directory + "/" + name, &info) == 0, info.st_mode & 0o077 != 0 {
                    _ = state.withLock { $0.found.insert(name) }
                }
            }
        }
        state.withLock { $0.done = true }
    }
}
