import ArgumentParser
import Foundation
import HealthAutoExport
import HealthImport
import HealthModel
import HealthService

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an Apple Health export (export.zip, an unzipped export folder, export.xml) or a Health Auto Export JSON file.",
        discussion: """
            On the iPhone: Health → your picture → Export All Health Data. Importing the same file again is recognised by
            its content and takes under a second; a newer export adds only what is new. Malformed elements are skipped,
            counted and listed in the report (or stop the import with --strict).
            A JSON file written by the Health Auto Export app is recognised by its content and stored as the receiver
            stores pushes (same mapping, same report, exactly once).
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "Path to export.zip, the apple_health_export folder, or export.xml.") var path: String
    @Flag(help: "Stop at the first malformed element, with a non-zero exit.") var strict = false
    @Flag(help: "Read the file again even if it was imported before (adds only what is missing).") var force = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        if let (payload, healthConnect) = try Self.healthAutoExportFile(path) {
            try await importHealthAutoExport(payload, healthConnect: healthConnect)
            return
        }
        let sqlite = try await store.openStore()
        let importer = ExportImporter(store: sqlite, options: ImportOptions(strict: strict, force: force),
                                      logger: CLILog.logger)
        let interactive = isatty(STDERR_FILENO) == 1
        let report = try await importer.run(URL(fileURLWithPath: path)) { progress in
            guard interactive else { return }
            let eta = progress.etaSeconds.map { String(format: "%.0f s left", $0) } ?? ""
            Output.stderr(String(format: "\u{1B}[1A\u{1B}[2K%5.1f%%  %.0f MB/s  %@ records/s  %@",
                                 progress.fraction * 100, progress.bytesPerSecond / 1_048_576,
                                 Output.number(progress.recordsPerSecond), eta))
        }
        if json {
            try Output.json(report)
            return
        }
        if report.alreadyImported {
            print("Already imported (same content, SHA-256 \(report.contentHash.prefix(12))…): nothing to do. Use --force to read it again.")
            return
        }
        print("Imported \(report.path)" + (report.exportVersion.map { " (export version \($0))" } ?? "")
              + " in \(String(format: "%.1f", report.elapsedSeconds)) s — \(Output.number(report.recordsPerSecond)) records/s\n")
        Output.table(["element", "read"], report.elements.sorted { $0.key < $1.key }.map { [$0.key, Output.number(Double($0.value))] })
        print("")
        Output.table(["record type", "read"], report.recordTypes.sorted { $0.value > $1.value }.prefix(25).map {
            [$0.key, Output.number(Double($0.value))]
        })
        if report.recordTypes.count > 25 { print("… and \(report.recordTypes.count - 25) more types (see --json)") }
        print("\nsamples: \(Output.number(Double(report.samplesInserted))) new, \(Output.number(Double(report.samplesAlreadyStored))) already stored, \(report.samplesReplaced) replaced by a newer version; workouts: \(report.workoutsInserted) new; route points: \(Output.number(Double(report.routePoints)))")
        if !report.routesMissing.isEmpty {
            print("files referred to but missing from the export: \(report.routesMissing.joined(separator: ", "))")
        }
        if report.skippedCount > 0 {
            print("\nskipped \(report.skippedCount) malformed element(s):")
            for item in report.skipped.prefix(20) {
                print("  line \(item.line), byte \(item.offset): \(item.element): \(item.reason)")
            }
            if report.skippedCount > 20 { print("  … (see --json for the first 200)") }
        }
    }

    /// The file's bytes when it is a Health Auto Export payload or a Health Connect one as HC Webhook sends it
    /// (recognised by their content), and whether it is the latter; nil for any other file.
    static func healthAutoExportFile(_ path: String) throws -> ([UInt8], healthConnect: Bool)? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let prefix = [UInt8](try handle.read(upToCount: 4096) ?? Data())
        let healthConnect = !HAEPayloadReader.recognises(prefix) && HealthConnectPayloadReader.recognises(prefix)
        guard HAEPayloadReader.recognises(prefix) || healthConnect else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= IngestBatch.maxBytes else {
            throw HealthError(.payloadTooLarge, "a Health Auto Export file is at most \(IngestBatch.maxBytes / 1_048_576) MB")
        }
        return (prefix + [UInt8](try handle.readToEnd() ?? Data()), healthConnect)
    }

    func importHealthAutoExport(_ payload: [UInt8], healthConnect: Bool = false) async throws {
        let service = try await store.openService()
        let started = Date()
        let batch = healthConnect ? try HealthConnectPayloadReader().batch(payload) : try HAEPayloadReader().batch(payload)
        let report = try await service.ingest(batch)
        if json {
            try Output.json(report)
            return
        }
        print("Imported the \(healthConnect ? "Health Connect" : "Health Auto Export") file \(path) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s\n")
        Output.table(["type", "items"], report.types.sorted { $0.key < $1.key }.map { [$0.key, Output.number(Double($0.value))] })
        print("\nobjects: \(report.inserted) new, \(report.unchanged) already stored, \(report.replaced) replaced by a newer total; route points: \(Output.number(Double(report.routePoints)))")
        if !report.unknown.isEmpty {
            print("kept aside (unknown to HealthBridge): " + report.unknown.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", "))
        }
        for (metric, count) in report.rejected.sorted(by: { $0.key < $1.key }) {
            print("not stored: \(count) item(s) of \(metric): \(report.reasons[metric] ?? "")")
        }
    }
}
