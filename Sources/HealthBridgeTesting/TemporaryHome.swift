import Foundation
import HealthSupport

/// A data directory for one test: created 0700 under the system's temporary directory (as a real data home is), and
/// removed by ``remove()`` or at the end of ``with(_:_:)``.
public struct TemporaryHome: Sendable {
    public let url: URL
    public var path: String { url.path }

    /// A new, empty directory `hb-PREFIX-UUID`, mode 0700.
    public init(_ prefix: String = "test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("hb-\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try PrivateFile.createDirectory(url)
    }

    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// Runs `body` with a fresh home and removes it afterwards, whatever happens.
    public static func with<T>(_ prefix: String = "test", _ body: (TemporaryHome) async throws -> T) async throws -> T {
        let home = try TemporaryHome(prefix)
        defer { home.remove() }
        return try await body(home)
    }
}
