import Foundation
import FuzzSupport
@testable import HealthImport

/// The attachment reader's zip directory (``ZipDirectory``) over arbitrary bytes written to a file: the end record,
/// ZIP64 records, directory entries and their extra fields, local headers and zlib's inflate. Errors and nil
/// are fine; crashes, overreads and huge allocations are not.
let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-zip-\(getpid()).zip")

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard (try? Data(bytes).write(to: path)) != nil, let directory = ZipDirectory(url: path) else { return 0 }
    var limits = ArchiveLimits()
    limits.maximumEntrySize = 1 << 20  // as readFile bounds what it reads
    for entry in directory.listed {
        _ = try? directory.read(entry, limits: limits)
    }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
