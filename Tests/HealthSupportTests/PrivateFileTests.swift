import Foundation
import Testing
import HealthSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files 0600 and directories 0700 whatever the umask; wider existing ones tightened; failures name the path.
@Suite("PrivateFile modes", .serialized)
struct PrivateFileTests {
    static func mode(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int(info.st_mode & 0o777)
    }

    static func withScratch(_ body: (URL) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hb-support-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let previous = umask(0)
        defer { umask(previous) }
        try body(url)
    }

    @Test func writeMakesA0600FileInA0700Directory() throws {
        try Self.withScratch { scratch in
            let file = scratch.appendingPathComponent("keys/secret")
            try PrivateFile.write(Data("one".utf8), to: file)
            #expect(Self.mode(file.path) == 0o600)
            #expect(Self.mode(file.deletingLastPathComponent().path) == 0o700)
            try PrivateFile.write(Data("two".utf8), to: file)
            #expect(try String(contentsOf: file, encoding: .utf8) == "two")
            #expect(Self.mode(file.path) == 0o600)
            // No temporary file is left beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["secret"])
        }
    }

    @Test func writeWithoutCreatingTheDirectoryFailsWithThePath() throws {
        try Self.withScratch { scratch in
            let file = scratch.appendingPathComponent("missing/secret")
            #expect(throws: PrivateFileError.self) { try PrivateFile.write(Data(), to: file, createDirectory: false) }
            #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path))
        }
    }

    @Test func createIfMissingAndTightenFile() throws {
        try Self.withScratch { scratch in
            try PrivateFile.createDirectory(scratch)
            let path = scratch.appendingPathComponent("store.sqlite").path
            #expect(try PrivateFile.createIfMissing(path))
            #expect(Self.mode(path) == 0o600)
            #expect(chmod(path, 0o644) == 0)
            #expect(try !PrivateFile.createIfMissing(path))
            #expect(Self.mode(path) == 0o600)
            #expect(chmod(path, 0o640) == 0)
            #expect(try PrivateFile.tightenFile(path))
            #expect(Self.mode(path) == 0o600)
            #expect(try !PrivateFile.tightenFile(path))
            #expect(try !PrivateFile.tightenFile(path + "-missing"))
        }
    }

    @Test func createReplacingOpensANew0600File() throws {
        try Self.withScratch { scratch in
            try PrivateFile.createDirectory(scratch)
            let path = scratch.appendingPathComponent("upload.zip").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o666]))
            #expect(throws: PrivateFileError.self) { _ = try PrivateFile.create(path) }
            let fd = try PrivateFile.create(path, replacing: true)
            close(fd)
            #expect(Self.mode(path) == 0o600)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        }
    }

    @Test func directoriesAre0700AndWideOnesAreTightened() throws {
        try Self.withScratch { scratch in
            let directory = scratch.appendingPathComponent("a/b/home")
            try PrivateFile.createDirectory(directory)
            #expect(Self.mode(directory.path) == 0o700)
            #expect(chmod(directory.path, 0o755) == 0)
            try PrivateFile.createDirectory(directory)
            #expect(Self.mode(directory.path) == 0o700)
            #expect(chmod(directory.path, 0o750) == 0)
            #expect(try PrivateFile.tightenDirectory(directory.path))
            #expect(Self.mode(directory.path) == 0o700)
        }
    }

    @Test func theDataHomeIs0700AndRefusesAFile() throws {
        try Self.withScratch { scratch in
            let home = try HealthBridgeHome.resolve(environment: ["HEALTHBRIDGE_HOME": scratch.appendingPathComponent("home").path])
            #expect(Self.mode(home.directory.path) == 0o700)
            #expect(home.storeURL.lastPathComponent == "health.sqlite")
            let xdg = try HealthBridgeHome.resolve(environment: ["XDG_DATA_HOME": scratch.path])
            #expect(xdg.directory.lastPathComponent == "healthbridge")
            let file = scratch.appendingPathComponent("plain")
            try PrivateFile.write(Data(), to: file)
            #expect {
                try HealthBridgeHome.resolve(environment: ["HEALTHBRIDGE_HOME": file.path])
            } throws: { error in
                (error as? PrivateFileError)?.message == "\(file.path) exists and is not a directory"
            }
        }
    }
}
