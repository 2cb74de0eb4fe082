import Foundation
import HealthModel
import HealthXML
import ZIPFoundation

/// Limits that keep a hostile archive from exhausting the disk, the memory or the time of an import.
public struct ArchiveLimits: Sendable, Hashable {
    /// The largest uncompressed entry accepted.
    public var maximumEntrySize: UInt64 = 64 << 30
    /// The largest compression ratio accepted for entries over ``ratioThreshold`` bytes. Real exports compress
    /// 10–30×; a decompression bomb, thousands of times.
    public var maximumRatio: UInt64 = 200
    public var ratioThreshold: UInt64 = 16 << 20

    public init() {}
}

/// What `healthbridge import` was pointed at: an export.zip, an unzipped export folder, or a bare export.xml.
///
/// The main XML is found by content (its root element is `HealthData`), whatever its localised name; `export_cda.xml`
/// and `__MACOSX/` entries are ignored. Zips are read as streams, never extracted to disk.
struct ExportInput {
    enum Kind {
        case xml(URL)
        case folder(root: URL, main: URL)
        case zip(url: URL, archive: Archive, main: Entry, root: String)
    }

    let kind: Kind
    let url: URL
    let limits: ArchiveLimits

    /// What an import's content hash covers.
    enum HashSubject: Sendable {
        /// The zip or XML file.
        case file(URL)
        /// A folder's main XML, and the names and sizes of the other files.
        case folder(root: URL, main: URL)
    }

    var hashSubject: HashSubject {
        switch kind {
        case .xml(let url), .zip(let url, _, _, _): .file(url)
        case .folder(let root, let main): .folder(root: root, main: main)
        }
    }

    /// The main XML's size in bytes (uncompressed).
    var mainSize: UInt64 {
        switch kind {
        case .xml(let url), .folder(_, let url):
            return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? UInt64) ?? 0
        case .zip(_, _, let main, _):
            return main.uncompressedSize
        }
    }

    var mainName: String {
        switch kind {
        case .xml(let url), .folder(_, let url): url.lastPathComponent
        case .zip(_, _, let main, _): main.path
        }
    }

    static func open(_ url: URL, limits: ArchiveLimits = ArchiveLimits()) throws -> ExportInput {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw HealthError(.importRejected, "\(url.path) does not exist")
        }
        if isDirectory.boolValue {
            return try openFolder(url, limits: limits)
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw HealthError(.importRejected, "cannot read \(url.path): permission denied")
        }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        try? handle.close()
        if magic.starts(with: [0x50, 0x4B]) {
            return try openZip(url, limits: limits)
        }
        guard try isHealthExport(fileAt: url) else {
            throw HealthError(.importRejected,
                              "\(url.lastPathComponent) is not an Apple Health export (its root element is not <HealthData>); nothing was imported")
        }
        return ExportInput(kind: .xml(url), url: url, limits: limits)
    }

    static func openFolder(_ root: URL, limits: ArchiveLimits) throws -> ExportInput {
        let fm = FileManager.default
        var candidates: [URL] = []
        for base in [root, root.appendingPathComponent("apple_health_export")] {
            guard let names = try? fm.contentsOfDirectory(atPath: base.path) else { continue }
            for name in names.sorted() where name.lowercased().hasSuffix(".xml") && name.lowercased() != "export_cda.xml" {
                candidates.append(base.appendingPathComponent(name))
            }
        }
        for candidate in candidates where try isHealthExport(fileAt: candidate) {
            return ExportInput(kind: .folder(root: candidate.deletingLastPathComponent(), main: candidate), url: root,
                               limits: limits)
        }
        throw HealthError(.importRejected,
                          "no Apple Health export in \(root.path): no .xml file with a <HealthData> root (looked at \(candidates.count)); nothing was imported")
    }

    static func openZip(_ url: URL, limits: ArchiveLimits) throws -> ExportInput {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw HealthError(.importRejected, "\(url.lastPathComponent) is not a readable zip archive: \(error)")
        }
        var candidates: [Entry] = []
        for entry in archive {
            let path = entry.path
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            // Either separator, as archives made on Windows use backslashes; a drive letter (`C:`) is absolute too.
            let parts = path.split(whereSeparator: { $0 == "/" || $0 == "\\" })
            let driveLetter = path.count >= 2 && path.dropFirst().first == ":"
            if path.hasPrefix("/") || path.hasPrefix("\\") || parts.contains("..") || driveLetter {
                throw HealthError(.importRejected,
                                  "the zip entry '\(path)' points outside the archive (zip slip); nothing was imported")
            }
            if path.hasPrefix("__MACOSX/") || components.contains("__MACOSX") { continue }
            try checkLimits(entry, limits: limits)
            let name = components.last.map(String.init)?.lowercased() ?? ""
            if entry.type == .file, name.hasSuffix(".xml"), name != "export_cda.xml" { candidates.append(entry) }
        }
        for entry in candidates where try isHealthExport(entry: entry, in: archive) {
            let root = entry.path.split(separator: "/").dropLast().joined(separator: "/")
            return ExportInput(kind: .zip(url: url, archive: archive, main: entry, root: root), url: url, limits: limits)
        }
        throw HealthError(.importRejected,
                          "\(url.lastPathComponent) holds no Apple Health export (no .xml entry with a <HealthData> root among \(candidates.count)); nothing was imported")
    }

    static func checkLimits(_ entry: Entry, limits: ArchiveLimits) throws {
        try checkLimits(path: entry.path, size: entry.uncompressedSize, packed: entry.compressedSize, limits: limits)
    }

    /// Refuses an entry that would unpack over the size limit or by a bomb's ratio (the sizes the zip declares).
    static func checkLimits(path: String, size: UInt64, packed: UInt64, limits: ArchiveLimits) throws {
        let packed = max(1, packed)
        if size > limits.maximumEntrySize {
            throw HealthError(.importRejected,
                              "the zip entry '\(path)' would unpack to \(size) bytes, over the \(limits.maximumEntrySize)-byte limit; nothing was imported")
        }
        if size > limits.ratioThreshold, size / packed > limits.maximumRatio {
            throw HealthError(.importRejected,
                              "the zip entry '\(path)' unpacks \(size / packed)× its size: a decompression bomb, refused; nothing was imported")
        }
    }

    /// Reads the start of a document until its first element and tells whether it is `HealthData`.
    static func isHealthExport(fileAt url: URL) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        var probe = RootProbe()
        while !probe.done, let data = try handle.read(upToCount: 64 << 10), !data.isEmpty {
            probe.feed(data)
            if probe.consumed > 8 << 20 { break }
        }
        return probe.isHealthData
    }

    static func isHealthExport(entry: Entry, in archive: Archive) throws -> Bool {
        var probe = RootProbe()
        do {
            _ = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: true) { data in
                probe.feed(data)
                if probe.done || probe.consumed > 8 << 20 { throw RootProbe.Stop() }
            }
        } catch is RootProbe.Stop {
        } catch {
            return false
        }
        return probe.isHealthData
    }

    /// Streams the main XML in chunks, enforcing the archive limits on the bytes actually produced.
    func readMain(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch kind {
        case .xml(let url), .folder(_, let url):
            guard let handle = FileHandle(forReadingAtPath: url.path) else {
                throw HealthError(.importRejected, "cannot read \(url.path)")
            }
            defer { try? handle.close() }
            while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
                try data.withUnsafeBytes { try body($0) }
            }
        case .zip(_, let archive, let main, _):
            var produced: UInt64 = 0
            let cap = min(limits.maximumEntrySize, max(main.uncompressedSize, 1) + (1 << 20))
            do {
                // ZIPFoundation computes CRC-32 in Swift where zlib's module is unavailable (Linux), which costs more
                // than inflating; a damaged entry still fails to inflate or to parse, and is reported as such.
                _ = try archive.extract(main, bufferSize: 1 << 20, skipCRC32: true) { data in
                    produced += UInt64(data.count)
                    if produced > cap {
                        throw HealthError(.importRejected,
                                          "the zip entry '\(main.path)' unpacks to more than its declared size; refused as a decompression bomb")
                    }
                    try data.withUnsafeBytes { try body($0) }
                }
            } catch let error as HealthError {
                throw error
            } catch let error as XMLScanError {
                throw error
            } catch let error as ImportStopped {
                throw error
            } catch {
                throw HealthError(.importMalformed, "cannot read '\(main.path)' from the zip: \(error)")
            }
        }
    }

    /// The same input opened again, with its own file handle: for a second reading thread.
    func reopened() throws -> ExportInput {
        guard case .zip(let zipURL, _, let main, let root) = kind else { return self }
        let archive: Archive
        do {
            archive = try Archive(url: zipURL, accessMode: .read)
        } catch {
            throw HealthError(.importRejected, "\(zipURL.lastPathComponent) is not a readable zip archive: \(error)")
        }
        return ExportInput(kind: .zip(url: zipURL, archive: archive, main: main, root: root), url: url, limits: limits)
    }

    /// The zip's entries by path, for many lookups: `archive[path]` walks the whole central directory every time.
    /// Empty for a folder or a bare XML.
    /// The zip's central directory read by ``ZipDirectory`` (nil for a folder, a bare XML, or a zip it cannot read).
    func zipDirectory() -> ZipDirectory? {
        guard case .zip(let url, _, _, _) = kind else { return nil }
        return ZipDirectory(url: url)
    }

    func entryIndex() -> [String: Entry] {
        guard case .zip(_, let archive, _, _) = kind else { return [:] }
        var index: [String: Entry] = [:]
        for entry in archive where entry.type == .file { index[entry.path] = entry }
        return index
    }

    /// A file of the export by its path relative to the export root (`/workout-routes/route_….gpx` or
    /// `workout-routes/route_….gpx`); nil when absent. Limited to `maximumSize` bytes. `index`: the zip's
    /// ``entryIndex()``, when the caller reads many files.
    /// `directory`: the zip's ``ZipDirectory``, to read the file whole with zlib instead of streaming it
    /// through ZIPFoundation (the attachment reader's thousands of routes).
    func readFile(_ relative: String, maximumSize: Int = 256 << 20, index: [String: Entry]? = nil,
                  directory: ZipDirectory? = nil) throws -> Data? {
        let trimmed = relative.hasPrefix("/") ? String(relative.dropFirst()) : relative
        guard !trimmed.split(separator: "/").contains("..") else { return nil }
        switch kind {
        case .xml(let url):
            let file = url.deletingLastPathComponent().appendingPathComponent(trimmed)
            return try? readLimited(file, maximumSize)
        case .folder(let root, _):
            return try? readLimited(root.appendingPathComponent(trimmed), maximumSize)
        case .zip(_, let archive, _, let root):
            let path = root.isEmpty ? trimmed : root + "/" + trimmed
            guard let entry = index.map({ $0[path] }) ?? archive[path] else { return nil }
            try Self.checkLimits(entry, limits: limits)
            guard entry.uncompressedSize <= UInt64(maximumSize) else { return nil }
            if let directory, let raw = directory[path], raw.uncompressedSize == entry.uncompressedSize {
                return try directory.read(raw, limits: limits)
            }
            var data = Data()
            data.reserveCapacity(Int(entry.uncompressedSize))
            // As for the main XML: no CRC-32 in Swift (slower than inflating); a damaged entry fails to inflate or
            // to parse, and is reported.
            _ = try archive.extract(entry, bufferSize: 1 << 18, skipCRC32: true) { chunk in
                data.append(chunk)
                if data.count > maximumSize { throw HealthError(.importRejected, "'\(path)' is larger than declared") }
            }
            return data
        }
    }

    private func readLimited(_ url: URL, _ maximumSize: Int) throws -> Data? {
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size <= maximumSize else { return nil }
        return try Data(contentsOf: url)
    }

    /// The files of the export under a folder (e.g. `electrocardiograms`), relative to the export root.
    func files(under folder: String) -> [String] {
        switch kind {
        case .xml(let url):
            return listFolder(url.deletingLastPathComponent(), folder)
        case .folder(let root, _):
            return listFolder(root, folder)
        case .zip(_, let archive, _, let root):
            let prefix = (root.isEmpty ? "" : root + "/") + folder + "/"
            return archive.filter { $0.type == .file && $0.path.hasPrefix(prefix) && !$0.path.contains("__MACOSX") }
                .map { String($0.path.dropFirst(root.isEmpty ? 0 : root.count + 1)) }
                .sorted()
        }
    }

    private func listFolder(_ root: URL, _ folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }
}

/// Thrown by a handler to stop reading.
struct ImportStopped: Error {}

/// Finds a document's first element by feeding the scanner until it appears.
struct RootProbe {
    struct Stop: Error {}
    var scanner = XMLScanner()
    var done = false
    var isHealthData = false
    var consumed = 0

    mutating func feed(_ data: Data) {
        guard !done else { return }
        consumed += data.count
        var found: Bool? = nil
        data.withUnsafeBytes { bytes in
            try? scanner.feed(bytes) { event in
                if found != nil { return }
                if case .startElement(let element) = event {
                    found = element.name == "HealthData"
                    throw Stop()
                }
            }
        }
        if let found {
            done = true
            isHealthData = found
        }
    }
}
