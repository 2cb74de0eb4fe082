import Foundation
import HealthAPI
import HealthSupport

/// The server this machine is paired with: where it is, the certificate fingerprint every connection must present,
/// and the client token. Kept in `<directory>/paired-server.json`, mode 0600, in a directory of mode 0700.
public struct PairedServer: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    /// SHA-256 of the server certificate, 64 lowercase hex digits.
    public var fingerprint: String
    /// The bearer token (secret).
    public var token: String
    public var clientId: String
    public var clientName: String
    public var deviceName: String?
    public var pairedAt: String
    /// Set when paired as an app (HealthBridgeKit): the server treats this client as `app:<appId>`.
    public var appId: String?

    public init(host: String, port: Int, fingerprint: String, token: String, clientId: String, clientName: String,
                deviceName: String?, pairedAt: String, appId: String? = nil) {
        self.host = host; self.port = port; self.fingerprint = fingerprint; self.token = token
        self.clientId = clientId; self.clientName = clientName; self.deviceName = deviceName; self.pairedAt = pairedAt
        self.appId = appId
    }
}

/// Reads and writes the paired-server record with owner-only permissions.
public struct PairedServerStore: Sendable {
    public var directory: URL
    public static let fileName = "paired-server.json"

    public init(directory: URL) { self.directory = directory }

    public var fileURL: URL { directory.appendingPathComponent(Self.fileName) }

    public func load() throws -> PairedServer? {
        let path = fileURL.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        try Self.tightenPermissions(directory: directory, file: fileURL)
        let data = try Data(contentsOf: fileURL)
        do {
            return try JSONDecoder().decode(PairedServer.self, from: data)
        } catch {
            throw PairedAPIClientError.notPaired("\(path) is not a paired-server record (\(error)); pair again")
        }
    }

    /// Writes the record atomically: a 0600 temporary file renamed over the old one, in a 0700 directory.
    public func save(_ record: PairedServer) throws {
        try Self.ensureDirectory(directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(record)
        try Self.writePrivate(data, to: fileURL)
    }

    public func remove() throws {
        if FileManager.default.fileExists(atPath: fileURL.path) { try FileManager.default.removeItem(at: fileURL) }
    }

    /// Creates `directory` with mode 0700 from the start (`mkdir(…, 0700)`; missing parents get the usual mode), or
    /// sets 0700 on an existing one.
    public static func ensureDirectory(_ directory: URL) throws {
        try PrivateFile.createDirectory(directory)
    }

    /// Writes `data` to `url` with mode 0600 from the first byte (never briefly world-readable).
    public static func writePrivate(_ data: Data, to url: URL) throws {
        do {
            try PrivateFile.write(data, to: url, createDirectory: false)
        } catch let error as PrivateFileError {
            throw PairedAPIClientError.invalidArgument(error.message)
        }
    }

    /// Puts the directory back to 0700 and the file to 0600 if someone loosened them.
    static func tightenPermissions(directory: URL, file: URL) throws {
        try PrivateFile.tightenDirectory(directory.path)
        try PrivateFile.tightenFile(file.path)
    }
}
