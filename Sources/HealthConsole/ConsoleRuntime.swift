import HTTPTypes
import ExportClient
import Foundation
import HealthModel

/// Where the running console listens, written by `serve` (`<home>/console.json`, 0600) so that `healthbridge console`
/// in another terminal can print a login link to it.
public struct ConsoleRuntime: Codable, Sendable, Equatable {
    /// `http://127.0.0.1:8080`.
    public var origin: String
    public var pid: Int

    public static let fileName = "console.json"

    public init(origin: String, pid: Int) {
        self.origin = origin
        self.pid = pid
    }

    public func save(home: URL) {
        guard let data = try? JSONEncoder.wire.encode(self) else { return }
        try? PairedServerStore.writePrivate(data, to: home.appendingPathComponent(Self.fileName))
    }

    /// The record of a console whose process still runs, if any.
    public static func load(home: URL) -> ConsoleRuntime? {
        guard let data = try? Data(contentsOf: home.appendingPathComponent(fileName)),
              let info = try? JSONDecoder().decode(ConsoleRuntime.self, from: data) else { return nil }
        return kill(pid_t(info.pid), 0) == 0 || errno == EPERM ? info : nil
    }
}
