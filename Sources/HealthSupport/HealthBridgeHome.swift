import Foundation

/// Where HealthBridge keeps its data: `$HEALTHBRIDGE_HOME`, else `$XDG_DATA_HOME/healthbridge`, else
/// `~/.local/share/healthbridge`. The directory is created with mode 0700, and an existing one is tightened to 0700;
/// failures are ``PrivateFileError``s.
///
/// ```swift
/// let home = try HealthBridgeHome.resolve()
/// home.storeURL   // …/healthbridge/health.sqlite
/// ```
public struct HealthBridgeHome: Sendable, Hashable {
    public var directory: URL

    public init(directory: URL) { self.directory = directory }

    /// Resolves the directory from the environment and creates it (0700) if needed.
    public static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HealthBridgeHome {
        let url: URL
        if let home = environment["HEALTHBRIDGE_HOME"], !home.isEmpty {
            url = URL(fileURLWithPath: home, isDirectory: true)
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            url = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("healthbridge", isDirectory: true)
        } else {
            let user = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            url = user.appendingPathComponent(".local/share/healthbridge", isDirectory: true)
        }
        let home = HealthBridgeHome(directory: url)
        try home.createIfNeeded()
        return home
    }

    public func createIfNeeded() throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw PrivateFileError(path: directory.path, message: "\(directory.path) exists and is not a directory")
            }
            // A directory created by someone else's tools (0755) would let other users list and read what they can.
            try PrivateFile.tightenDirectory(directory.path)
            return
        }
        // 0700 from the start, whatever the umask.
        try PrivateFile.createDirectory(directory)
    }

    /// The SQLite store file.
    public var storeURL: URL { directory.appendingPathComponent("health.sqlite") }

    /// A file inside the home directory, e.g. a key.
    public func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
}
