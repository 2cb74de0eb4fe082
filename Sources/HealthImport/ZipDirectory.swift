import CZlibInflate
import Foundation
import HealthModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of an export.zip as its central directory lists them, read once, and each file's bytes read whole with
/// one `pread` and inflated with zlib (raw DEFLATE, one `inflate` call) into a buffer of the declared size.
///
/// The attachment reader uses it for the thousands of small files of a runner's export (GPX routes): ZIPFoundation
/// streams every entry through 256 KiB chunks, each a new zero-filled `Data` copied onto the result; this does one read
/// and one inflate per file into a buffer of the declared size. The main XML still streams through
/// ZIPFoundation (it is gigabytes; this reads a file whole).
///
/// Written by hand: ZIPFoundation does not expose where an entry's data starts. Only what an Apple export uses is
/// read — stored (0) and deflated (8) entries, ZIP64 sizes and offsets; anything else (an encrypted entry, another
/// method, a directory that does not parse) is left to ZIPFoundation by returning nil.
///
/// ```swift
/// if let directory = ZipDirectory(url: zipURL), let entry = directory["apple_health_export/workout-routes/r.gpx"] {
///     let data = try directory.read(entry, limits: ArchiveLimits())
/// }
/// ```
final class ZipDirectory {
    struct Entry: Sendable, Hashable {
        var path: String
        var method: UInt16
        var flags: UInt16
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
    }

    /// A file of the zip that cannot be read: its data lies outside the zip, or does not inflate.
    struct Damaged: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private let descriptor: Int32
    private let fileSize: UInt64
    private var entries: [String: Entry] = [:]
    /// One zlib stream for every file of the zip, reset between files (`inflateReset` keeps its 32 KiB window).
    private var stream = z_stream()
    private var streamReady = false

    /// Reads the central directory of the zip at `url`; nil when the file cannot be opened or its directory does not
    /// parse (the caller reads through ZIPFoundation instead).
    init?(url: URL) {
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 22 else {
            close(descriptor)
            return nil
        }
        fileSize = UInt64(info.st_size)
        guard let entries = Self.readDirectory(descriptor, fileSize: fileSize) else {
            close(descriptor)
            return nil
        }
        self.entries = entries
    }

    deinit {
        if streamReady { inflateEnd(&stream) }
        close(descriptor)
    }

    subscript(path: String) -> Entry? { entries[path] }

    /// Every entry it can read (stored or deflated, not encrypted), in no particular order.
    var listed: [Entry] { Array(entries.values) }

    /// The entry's bytes: stored ones as they are, deflated ones inflated into exactly `uncompressedSize` bytes.
    /// - Throws: ``HealthError`` `.importRejected` for an entry over `limits` (as the ZIPFoundation path does: the
    ///   import stops), and ``Damaged`` for data that cannot be read or does not inflate to its declared size (the
    ///   caller reports that file and goes on, as for a damaged entry read through ZIPFoundation).
    func read(_ entry: Entry, limits: ArchiveLimits) throws -> Data {
        try ExportInput.checkLimits(path: entry.path, size: entry.uncompressedSize, packed: entry.compressedSize,
                                    limits: limits)
        guard entry.uncompressedSize <= UInt64(Int32.max) else {
            throw HealthError(.importRejected, "the zip entry '\(entry.path)' is too large to read whole; nothing was imported")
        }
        guard entry.compressedSize <= fileSize, entry.localHeaderOffset <= fileSize - 30 else {
            throw Damaged("'\(entry.path)': its data lies outside the zip")
        }
        // The local header repeats the name and has an extra field of its own length: the data follows them.
        let header = try bytes(at: entry.localHeaderOffset, count: 30)
        guard Self.uint32(header, 0) == 0x0403_4B50 else {
            throw Damaged("'\(entry.path)': no local file header where the directory points")
        }
        let dataOffset = entry.localHeaderOffset + 30 + UInt64(Self.uint16(header, 26)) + UInt64(Self.uint16(header, 28))
        guard dataOffset <= fileSize, entry.compressedSize <= fileSize - dataOffset else {
            throw Damaged("'\(entry.path)': its data lies outside the zip")
        }
        let packed = try bytes(at: dataOffset, count: Int(entry.compressedSize))
        if entry.method == 0 {
            guard entry.compressedSize == entry.uncompressedSize else {
                throw Damaged("'\(entry.path)': a stored entry whose sizes differ")
            }
            return packed
        }
        var output = Data(count: Int(entry.uncompressedSize))
        guard try inflateWhole(packed, into: &output) else {
            throw Damaged("'\(entry.path)': the compressed data is damaged or does not unpack to its declared \(entry.uncompressedSize) bytes")
        }
        return output
    }

    /// Inflates raw DEFLATE data (a zip entry's method 8) into exactly `output.count` bytes: true when the stream ended
    /// there, false when it is damaged, longer or shorter than declared.
    private func inflateWhole(_ packed: Data, into output: inout Data) throws -> Bool {
        if streamReady {
            guard inflateReset(&stream) == Z_OK else { return false }
        } else {
            // Negative window bits: raw DEFLATE, no zlib header (as a zip stores it).
            guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw HealthError(.internalError, "zlib: cannot start an inflate stream (out of memory?)")
            }
            streamReady = true
        }
        guard !packed.isEmpty else { return false }  // a DEFLATE stream is never empty, even for zero bytes
        let expected = output.count
        // One spare byte past the declared size: data that inflates longer than declared is told apart from data
        // that ends exactly there (and a zero-byte file still gets a buffer with an address).
        output.count = expected + 1
        defer { output.count = expected }
        let status: Int32 = packed.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                guard let source = input.bindMemory(to: UInt8.self).baseAddress,
                      let target = out.bindMemory(to: UInt8.self).baseAddress else { return Z_BUF_ERROR }
                stream.next_in = UnsafeMutablePointer(mutating: source)
                stream.avail_in = UInt32(input.count)
                stream.next_out = target
                stream.avail_out = UInt32(out.count)
                let status = inflate(&stream, Z_FINISH)
                stream.next_in = nil
                stream.next_out = nil
                return status
            }
        }
        return status == Z_STREAM_END && Int(stream.total_out) == expected
    }

    private func bytes(at offset: UInt64, count: Int) throws -> Data {
        guard let data = Self.readExactly(descriptor, offset, count, fileSize: fileSize) else {
            throw Damaged("the zip ends before its data (truncated?)")
        }
        return data
    }

    // MARK: The central directory

    static func uint16(_ data: Data, _ at: Int) -> UInt16 {
        let base = data.startIndex + at
        return UInt16(data[base]) | UInt16(data[base + 1]) << 8
    }

    static func uint32(_ data: Data, _ at: Int) -> UInt32 {
        UInt32(uint16(data, at)) | UInt32(uint16(data, at + 2)) << 16
    }

    static func uint64(_ data: Data, _ at: Int) -> UInt64 {
        UInt64(uint32(data, at)) | UInt64(uint32(data, at + 4)) << 32
    }

    /// `count` bytes at `offset`, or nil when the file holds fewer.
    private static func readExactly(_ fd: Int32, _ offset: UInt64, _ count: Int, fileSize: UInt64) -> Data? {
        guard count >= 0, offset <= fileSize, UInt64(count) <= fileSize - offset else { return nil }
        var data = Data(count: count)
        let done = data.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < count {
                let n = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            return done
        }
        return done == count ? data : nil
    }

    /// The entries by path, or nil when the end record, the ZIP64 record or a directory entry does not add up.
    static func readDirectory(_ fd: Int32, fileSize: UInt64) -> [String: Entry]? {
        let tailLength = Int(min(fileSize, 22 + 65_535))
        guard let tail = readExactly(fd, fileSize - UInt64(tailLength), tailLength, fileSize: fileSize) else { return nil }
        guard let record = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
            uint32(tail, $0) == 0x0605_4B50
        }) else { return nil }
        var count = UInt64(uint16(tail, record + 10))
        var size = UInt64(uint32(tail, record + 12))
        var offset = UInt64(uint32(tail, record + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            // ZIP64: the locator (20 bytes) stands just before the end record and points to the ZIP64 end record.
            guard record >= 20, uint32(tail, record - 20) == 0x0706_4B50 else { return nil }
            let zip64Offset = uint64(tail, record - 20 + 8)
            guard let zip64 = readExactly(fd, zip64Offset, 56, fileSize: fileSize), uint32(zip64, 0) == 0x0606_4B50 else {
                return nil
            }
            count = uint64(zip64, 32)
            size = uint64(zip64, 40)
            offset = uint64(zip64, 48)
        }
        guard size <= 1 << 30, let directory = readExactly(fd, offset, Int(size), fileSize: fileSize) else { return nil }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(Int(min(count, UInt64(directory.count / 46))))
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, uint32(directory, at) == 0x0201_4B50 else { return nil }
            let nameLength = Int(uint16(directory, at + 28))
            let extraLength = Int(uint16(directory, at + 30))
            let commentLength = Int(uint16(directory, at + 32))
            let end = at + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else { return nil }
            let base = directory.startIndex + at
            let path = String(decoding: directory[(base + 46)..<(base + 46 + nameLength)], as: UTF8.self)
            var entry = Entry(path: path, method: uint16(directory, at + 10), flags: uint16(directory, at + 8),
                              compressedSize: UInt64(uint32(directory, at + 20)),
                              uncompressedSize: UInt64(uint32(directory, at + 24)),
                              localHeaderOffset: UInt64(uint32(directory, at + 42)))
            // ZIP64 extra field (0x0001): the 64-bit values, in this order, of those whose 32-bit field is full.
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = uint16(directory, extra), length = Int(uint16(directory, extra + 2))
                guard extra + 4 + length <= extraEnd else { return nil }
                if id == 0x0001 {
                    var field = extra + 4
                    func next() -> UInt64? {
                        guard field + 8 <= extra + 4 + length else { return nil }
                        defer { field += 8 }
                        return uint64(directory, field)
                    }
                    if entry.uncompressedSize == 0xFFFF_FFFF { guard let v = next() else { return nil }; entry.uncompressedSize = v }
                    if entry.compressedSize == 0xFFFF_FFFF { guard let v = next() else { return nil }; entry.compressedSize = v }
                    if entry.localHeaderOffset == 0xFFFF_FFFF { guard let v = next() else { return nil }; entry.localHeaderOffset = v }
                }
                extra += 4 + length
            }
            // Encrypted entries and methods other than stored and deflated are ZIPFoundation's to refuse.
            if entry.flags & 1 == 0, entry.method == 0 || entry.method == 8, !path.hasSuffix("/") {
                entries[path] = entry
            }
            at = end
        }
        return entries
    }
}
