import Foundation
import HealthXML

/// An owned, comparable copy of an `XMLEvent`.
enum Recorded: Equatable, CustomStringConvertible {
    case start(name: String, attributes: [String], selfClosing: Bool, offset: Int, line: Int, depth: Int)
    case end(name: String, offset: Int, line: Int, depth: Int)
    case malformed(XMLScanError)

    init(_ event: borrowing XMLEvent) {
        switch event {
        case .startElement(let element):
            self = .start(
                name: element.name.string,
                attributes: element.attributes.map { "\($0.name.string)=\($0.value.string)" },
                selfClosing: element.isSelfClosing,
                offset: element.offset,
                line: element.line,
                depth: element.depth
            )
        case .endElement(let element):
            self = .end(name: element.name.string, offset: element.offset, line: element.line, depth: element.depth)
        case .malformed(let error):
            self = .malformed(error)
        }
    }

    var isMalformed: Bool {
        if case .malformed = self { return true }
        return false
    }

    var error: XMLScanError? {
        if case .malformed(let error) = self { return error }
        return nil
    }

    var name: String? {
        switch self {
        case .start(let name, _, _, _, _, _), .end(let name, _, _, _): return name
        case .malformed: return nil
        }
    }

    var description: String {
        switch self {
        case .start(let name, let attributes, let selfClosing, let offset, let line, let depth):
            return "start(\(name) \(attributes) selfClosing:\(selfClosing) @\(offset) L\(line) d\(depth))"
        case .end(let name, let offset, let line, let depth):
            return "end(\(name) @\(offset) L\(line) d\(depth))"
        case .malformed(let error):
            return "malformed(\(error.kind): \(error))"
        }
    }
}

extension Array where Element == Recorded {
    var malformed: [XMLScanError] { self.compactMap(\.error) }
    var starts: [Recorded] {
        self.filter {
            if case .start = $0 { return true }
            return false
        }
    }
}

/// Feeds `document` cut at `cuts` (sorted offsets), then finishes.
func scan(_ document: [UInt8], cuts: [Int] = [], options: XMLScanner.Options = .init(), finish: Bool = true) -> [Recorded] {
    var scanner = XMLScanner(options: options)
    var events: [Recorded] = []
    var start = 0
    for cut in cuts + [document.count] where cut >= start {
        scanner.feed(Array(document[start..<cut])) { events.append(Recorded($0)) }
        start = cut
    }
    if finish {
        scanner.finish { events.append(Recorded($0)) }
    }
    return events
}

/// Feeds `document` in chunks of `size` bytes, then finishes. Also returns the largest carry-over seen.
func scan(
    _ document: [UInt8],
    chunkSize size: Int,
    options: XMLScanner.Options = .init()
) -> (events: [Recorded], maximumBuffered: Int) {
    var scanner = XMLScanner(options: options)
    var events: [Recorded] = []
    var maximumBuffered = 0
    var start = 0
    document.withUnsafeBytes { all in
        while start < all.count {
            let end = min(start + size, all.count)
            scanner.feed(UnsafeRawBufferPointer(rebasing: all[start..<end])) { events.append(Recorded($0)) }
            maximumBuffered = max(maximumBuffered, scanner.bufferedByteCount)
            start = end
        }
    }
    scanner.finish { events.append(Recorded($0)) }
    return (events, maximumBuffered)
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Offset of the `occurrence`-th (0-based) occurrence of `needle`.
func offset(of needle: String, in document: [UInt8], occurrence: Int = 0) -> Int {
    let target = Array(needle.utf8)
    var found = -1
    var index = 0
    var seen = 0
    while index + target.count <= document.count {
        if Array(document[index..<index + target.count]) == target {
            if seen == occurrence {
                found = index
                break
            }
            seen += 1
        }
        index += 1
    }
    precondition(found >= 0, "test document does not contain \(needle)")
    return found
}

/// 1-based line of `offset`.
func line(at offset: Int, in document: [UInt8]) -> Int {
    1 + document[0..<offset].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
}

/// `/work/shared/fixtures` — `../../../shared/fixtures` from this file (symlinks resolved, so the scratch package
/// that links to this directory finds it too).
let fixturesDirectory: URL = URL(fileURLWithPath: #filePath)
    .resolvingSymlinksInPath()
    .deletingLastPathComponent()
    .appendingPathComponent("../../../shared/fixtures")
    .standardizedFileURL

/// Whether a test of this fixture runs: when the file is there, and always when `HEALTHBRIDGE_REQUIRE_FIXTURES=1`
/// (CI), so that a missing fixture fails the test instead of skipping it.
func fixtureExists(_ name: String) -> Bool {
    ProcessInfo.processInfo.environment["HEALTHBRIDGE_REQUIRE_FIXTURES"] == "1"
        || FileManager.default.isReadableFile(atPath: fixturesDirectory.appendingPathComponent(name).path)
}

/// Streams a fixture through a scanner in chunks of `chunkSize` bytes, as the importer will.
func scanFixture(
    _ name: String,
    chunkSize: Int = 64 * 1024,
    _ handler: (borrowing XMLEvent) throws -> Void
) throws -> XMLScanner {
    let handle = try FileHandle(forReadingFrom: fixturesDirectory.appendingPathComponent(name))
    defer { try? handle.close() }
    var scanner = XMLScanner()
    while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
        try chunk.withUnsafeBytes { try scanner.feed($0, handler) }
    }
    try scanner.finish(handler)
    return scanner
}
