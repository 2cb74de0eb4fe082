import Foundation

/// A private file or directory (``PrivateFile``, ``HealthBridgeHome``) could not be created, written or restricted:
/// the path and what the system said, e.g. `cannot create /home/me/.local/share/healthbridge: Permission denied`.
/// Layers with an error vocabulary of their own map it (the service's `HealthError` says `HEALTH_STORE_UNAVAILABLE`
/// with the same message).
///
/// ```swift
/// do { try PrivateFile.write(data, to: url) } catch let error as PrivateFileError { print(error.message) }
/// ```
public struct PrivateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or directory concerned.
    public var path: String
    /// The whole sentence: what failed, on which path, and the system's reason (`strerror`).
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { message }
}
