import HealthModel
import HealthSupport

extension HealthError {
    /// A ``PrivateFileError`` in the one vocabulary: `HEALTH_STORE_UNAVAILABLE` with the same message.
    package init(_ error: PrivateFileError) {
        self.init(.storeUnavailable, error.message)
    }

    /// Runs `body` (private files, the data home), answering a ``PrivateFileError`` as `HEALTH_STORE_UNAVAILABLE`.
    ///
    /// ```swift
    /// try HealthError.mappingPrivateFile { try PrivateFile.write(data, to: url) }
    /// ```
    package static func mappingPrivateFile<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PrivateFileError {
            throw HealthError(error)
        }
    }
}
