import Foundation
import HealthAPI
import HealthModel
import HealthStore

/// The imports the store remembers (each finished import keeps its report under `import.sha256.<hash>`).
extension HealthService {
    /// Finished imports, the most recent export first (owner only).
    ///
    /// ```swift
    /// let last = try await service.imports().imports.first
    /// ```
    public func imports() async throws -> ImportsResult {
        try requireOwner("see the imports")
        let stored = try await store.settings(prefix: "import.sha256.")
        let decoder = JSONDecoder()
        let records = stored.compactMap { _, text in try? decoder.decode(ImportRecord.self, from: Data(text.utf8)) }
        return ImportsResult(imports: records.sorted { ($0.exportDate ?? "", $0.contentHash) > ($1.exportDate ?? "", $1.contentHash) })
    }
}
