import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner may read, 0600 from their first byte: created with `open(…, O_CREAT | O_EXCL, 0600)` (the
/// umask can only take bits away), `fchmod`-ed to exactly 0600 before anything is written, fsync'd, then renamed
/// over the target. There is no moment at which another user could open them. Failures are ``PrivateFileError``s.
///
/// ```swift
/// try PrivateFile.write(Data(token.utf8), to: home.file("mcp-token"))   // 0600, in a 0700 directory
/// ```
public enum PrivateFile {
    /// Replaces `url` with `data` atomically. Creates the parent directory (0700) when missing, unless
    /// `createDirectory` is false (a path the person named: a missing directory is then an error).
    public static func write(_ data: Data, to url: URL, createDirectory: Bool = true) throws {
        let directory = url.deletingLastPathComponent()
        if createDirectory, !FileManager.default.fileExists(atPath: directory.path) { try self.createDirectory(directory) }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = try create(temporary.path)
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do {
            try data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = writeBytes(fd, base + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw error("cannot write \(temporary.path)", path: temporary.path)
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw error("cannot sync \(temporary.path)", path: temporary.path) }
            closed = true
            guard close(fd) == 0 else { throw error("cannot close \(temporary.path)", path: temporary.path) }
            guard rename(temporary.path, url.path) == 0 else { throw error("cannot write \(url.path)", path: url.path) }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Creates an empty file at `path` with mode 0600 if none exists (an existing file is left as it is, and tightened
    /// to 0600). Returns true when the file was created.
    @discardableResult
    public static func createIfMissing(_ path: String) throws -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            guard errno == EEXIST else { throw error("cannot create \(path)", path: path) }
            chmod(path, 0o600)
            return false
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw error("cannot set the mode of \(path)", path: path) }
        return true
    }

    /// A new file open for writing, mode exactly 0600 whatever the umask; the caller closes the descriptor. With
    /// `replacing`, a file already at `path` is removed first (never opened: it may have a wider mode).
    ///
    /// ```swift
    /// let fd = try PrivateFile.create(upload.path, replacing: true)
    /// defer { close(fd) }
    /// ```
    public static func create(_ path: String, replacing: Bool = false) throws -> Int32 {
        if replacing, unlink(path) != 0, errno != ENOENT { throw error("cannot replace \(path)", path: path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw error("cannot create \(path)", path: path) }
        guard fchmod(fd, 0o600) == 0 else {
            let failure = error("cannot set the mode of \(path)", path: path)
            close(fd)
            unlink(path)
            throw failure
        }
        return fd
    }

    /// The failure of the last system call (`errno`), for `path`.
    static func error(_ what: String, path: String? = nil) -> PrivateFileError {
        PrivateFileError(path: path ?? "", message: "\(what): \(String(cString: strerror(errno)))")
    }

    /// Creates the directory `url` with mode 0700 from the start (missing parents get the usual mode): it is made with
    /// `mkdir(…, 0700)`, which the umask can only narrow, then set to exactly 0700 — never first created wider and
    /// changed after, as `FileManager.createDirectory(…, attributes:)` does. An existing directory is tightened.
    ///
    /// ```swift
    /// try PrivateFile.createDirectory(URL(fileURLWithPath: "/home/me/.local/share/healthbridge"))
    /// ```
    public static func createDirectory(_ url: URL) throws {
        let path = url.path
        let parent = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: parent.path) {
            do {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            } catch {
                throw PrivateFileError(path: parent.path, message: "cannot create \(parent.path): \(error.localizedDescription)")
            }
        }
        guard mkdir(path, 0o700) == 0 else {
            guard errno == EEXIST else { throw self.error("cannot create \(path)", path: path) }
            try tightenDirectory(path)
            return
        }
        guard chmod(path, 0o700) == 0 else { throw self.error("cannot restrict \(path) to its owner (0700)", path: path) }
    }

    /// Tightens an existing file that others may read or write to 0600 (only when it belongs to this user). Returns
    /// true when the mode was changed; a missing file is left missing.
    ///
    /// ```swift
    /// try PrivateFile.tightenFile(keyURL.path)   // a key someone widened to 0644 is 0600 again
    /// ```
    @discardableResult
    public static func tightenFile(_ path: String) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw error("cannot inspect \(path)", path: path)
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 != 0 else { return false }
        guard chmod(path, 0o600) == 0 else { throw error("cannot restrict \(path) to its owner (0600)", path: path) }
        return true
    }

    /// Tightens an existing directory that others may read or enter to 0700 (only when it belongs to this user).
    /// Returns true when the mode was changed.
    @discardableResult
    public static func tightenDirectory(_ path: String) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { throw error("cannot inspect \(path)", path: path) }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 != 0 else { return false }
        guard chmod(path, 0o700) == 0 else { throw error("cannot restrict \(path) to its owner (0700)", path: path) }
        return true
    }
}

@inline(__always)
private func writeBytes(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #else
    return Glibc.write(fd, buffer, count)
    #endif
}
