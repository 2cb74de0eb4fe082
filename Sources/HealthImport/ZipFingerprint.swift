import Crypto
import Foundation

/// A fast identity of an export.zip for recognising a re-import without hashing the whole file: SHA-256 of the file
/// size and the zip's central directory with its end record. The central directory lists every entry with its
/// CRC-32 and sizes, so two zips with the same fingerprint hold the same content (barring CRC collisions on every
/// entry at once); `--force` reads a file again whatever it says.
///
/// Only plain zips are fingerprinted (nil for ZIP64 archives, a central directory that does not add up, or other
/// files): the full content hash is used for them.
///
/// ```swift
/// if let key = ZipFingerprint.key(of: url) { … store.setting("import.zip." + key) … }
/// ```
enum ZipFingerprint {
    static func key(of url: URL) -> String? {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 22 else { return nil }
        // The end-of-central-directory record: 22 bytes plus a comment of at most 65,535.
        let tailLength = min(size, 22 + 65_535)
        guard (try? handle.seek(toOffset: size - tailLength)) != nil,
              let tail = try? handle.read(upToCount: Int(tailLength)), tail.count == Int(tailLength) else { return nil }
        let bytes = [UInt8](tail)
        func uint32(_ at: Int) -> UInt64 {
            UInt64(bytes[at]) | UInt64(bytes[at + 1]) << 8 | UInt64(bytes[at + 2]) << 16 | UInt64(bytes[at + 3]) << 24
        }
        guard let record = stride(from: bytes.count - 22, through: 0, by: -1).first(where: {
            bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x05 && bytes[$0 + 3] == 0x06
        }) else { return nil }
        let directorySize = uint32(record + 12), directoryOffset = uint32(record + 16)
        let recordOffset = size - tailLength + UInt64(record)
        // ZIP64 (0xFFFFFFFF markers) or a directory that does not end where the record starts: no fingerprint.
        guard directorySize != 0xFFFF_FFFF, directoryOffset != 0xFFFF_FFFF,
              directoryOffset + directorySize == recordOffset else { return nil }
        guard (try? handle.seek(toOffset: directoryOffset)) != nil,
              let directory = try? handle.read(upToCount: Int(directorySize)), directory.count == Int(directorySize)
        else { return nil }
        var hasher = SHA256()
        hasher.update(data: Data("zip:\(size):".utf8))
        hasher.update(data: directory)
        hasher.update(data: tail[tail.startIndex.advanced(by: record)...])
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
