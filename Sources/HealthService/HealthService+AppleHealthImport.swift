import Foundation
import HealthImport
import HealthModel
import Logging

extension HealthService {
    /// Imports an Apple Health export (export.zip, an unzipped export folder, or a bare export.xml) into the store
    /// (owner only): streamed, idempotent and crash-safe (``ExportImporter``), through the store's bulk path when it
    /// has one. A file imported before is recognised and not read again unless `options.force`.
    ///
    /// ```swift
    /// let report = try await service.importAppleHealthExport(URL(fileURLWithPath: "export.zip"), logger: logger) {
    ///     print($0.fraction)
    /// }
    /// ```
    public func importAppleHealthExport(_ url: URL, options: ImportOptions = ImportOptions(), logger: Logger,
                                        progress: (@Sendable (ImportProgress) -> Void)? = nil) async throws -> ImportReport {
        try requireOwner("import an export")
        return try await ExportImporter(store: store, options: options, logger: logger).run(url, progress: progress)
    }
}
