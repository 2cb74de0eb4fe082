import Foundation
import FuzzSupport
import HealthImport
import HealthStore
import Logging

/// Logs nothing below critical: a line per input would slow the fuzzer down.
let quiet: Logger = {
    var logger = Logger(label: "fuzz.import")
    logger.logLevel = .critical
    return logger
}()

/// The whole importer (XML scanner, parser, builders, store) over arbitrary bytes written as an `export.xml`, into an
/// in-memory store: any input may be refused with an error, none may crash.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-export-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("export.xml")
    guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes)) else { return 0 }
    let done = DispatchSemaphore(value: 0)
    Task {
        defer { done.signal() }
        guard let store = try? SQLiteHealthStore.inMemory() else { return }
        var options = ImportOptions()
        options.batchSize = 64
        _ = try? await ExportImporter(store: store, options: options, logger: quiet).run(file)
    }
    done.wait()
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
