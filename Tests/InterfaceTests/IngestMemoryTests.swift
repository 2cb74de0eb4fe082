import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 21, finding 3: the Health Auto Export reader turned every array element into a ~200-byte point before any
/// check, so a 4 MB body of zeros added 454 MB of peak memory (a 64 MB body, about 7 GB). The push is now read and
/// checked one point at a time: the peak of an import of junk stays near that of an empty payload.
@Suite struct IngestMemoryTests {
    /// Runs `healthbridge import FILE --json` in a child of its own and answers its exit status and peak resident
    /// memory, in KiB (`wait4`'s `ru_maxrss`: this child's alone, whatever else the test process runs).
    static func importPeak(_ file: URL) throws -> (status: Int32, peakKiB: Int) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-memory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let arguments = [CLI.binary.path, "import", file.path, "--json", "--home", home.path]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, CLI.binary.path, &actions, nil, &argv, environ)
        try #require(spawned == 0, "posix_spawn failed: \(spawned)")
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            try #require(errno == EINTR, "wait4 failed: \(errno)")
        }
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, Int(usage.ru_maxrss))
    }

    static func payload(_ elements: String, count: Int) -> String {
        let data = Array(repeating: elements, count: count).joined(separator: ",")
        return #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[\#(data)]}]}}"#
    }

    @Test func aBodyOfJunkCostsNoMoreMemoryThanAnEmptyOne() async throws {
        _ = try await World.home   // the shared world's binary checks
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary.path))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hb-junk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.json"), junk = folder.appendingPathComponent("junk.json")
        try Data(Self.payload("0", count: 1).utf8).write(to: empty)
        // 1 Mi elements, 2 MiB of body: before the fix about 200 MiB of points were held before the first check.
        try Data(Self.payload("0", count: 1 << 20).utf8).write(to: junk)

        let base = try Self.importPeak(empty)
        let heavy = try Self.importPeak(junk)
        #expect(base.status == 0 && heavy.status == 0)
        let added = heavy.peakKiB - base.peakKiB
        #expect(added < 48 * 1024, "a 2 MiB junk payload added \(added / 1024) MiB of peak memory")
    }
}
