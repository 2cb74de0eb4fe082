import Crypto
import Foundation
import HealthModel
import HealthSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The node's Ed25519 device identity, created once and kept in the data directory (mode 0600).
///
/// The gateway knows the node by `deviceId`, the lowercase hex SHA-256 of the raw 32-byte public key; a new identity
/// is a new node that the gateway operator must approve again, so the file is never replaced silently.
///
/// ```swift
/// let identity = try DeviceIdentity.loadOrCreate(at: home.file(DeviceIdentity.fileName))
/// let proof = try identity.proof(payload: DeviceAuthPayload.v3(...), signedAt: challenge.ts, nonce: challenge.nonce)
/// ```
public struct DeviceIdentity: Sendable, Hashable {
    /// The raw 32-byte Ed25519 private key.
    let privateKeyRaw: Data
    /// The raw 32-byte Ed25519 public key.
    public let publicKeyRaw: Data
    public let deviceId: String
    public let createdAtMs: Int64

    public static let fileName = "openclaw-device.json"

    /// A new random identity (not persisted).
    public static func generate(now: Date = Date()) -> DeviceIdentity {
        let key = Curve25519.Signing.PrivateKey()
        return DeviceIdentity(privateKeyRaw: key.rawRepresentation, publicKeyRaw: key.publicKey.rawRepresentation,
                              deviceId: deviceId(publicKey: key.publicKey.rawRepresentation),
                              createdAtMs: Int64(now.timeIntervalSince1970 * 1000))
    }

    /// An identity from a raw private key.
    public init(privateKey raw: Data, createdAtMs: Int64 = 0) throws {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        self.init(privateKeyRaw: key.rawRepresentation, publicKeyRaw: key.publicKey.rawRepresentation,
                  deviceId: Self.deviceId(publicKey: key.publicKey.rawRepresentation), createdAtMs: createdAtMs)
    }

    init(privateKeyRaw: Data, publicKeyRaw: Data, deviceId: String, createdAtMs: Int64) {
        self.privateKeyRaw = privateKeyRaw; self.publicKeyRaw = publicKeyRaw; self.deviceId = deviceId
        self.createdAtMs = createdAtMs
    }

    /// Lowercase hex SHA-256 of the raw public key.
    public static func deviceId(publicKey raw: Data) -> String {
        SHA256.hash(data: raw).map { String(format: "%02x", $0) }.joined()
    }

    /// The public key, base64url without padding.
    public var publicKeyBase64URL: String { Base64URL.encode(publicKeyRaw) }

    /// Signs `payload` (UTF-8); the signature is base64url without padding.
    public func sign(_ payload: String) throws -> String {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: privateKeyRaw)
        return Base64URL.encode(try key.signature(for: Data(payload.utf8)))
    }

    /// The `device` object of `connect`.
    public func proof(payload: String, signedAt: Int64, nonce: String) throws -> DeviceProof {
        DeviceProof(id: deviceId, publicKey: publicKeyBase64URL, signature: try sign(payload), signedAt: signedAt,
                    nonce: nonce)
    }

    // MARK: Persistence

    struct File: Codable {
        var version: Int
        var deviceId: String
        var publicKey: String
        var privateKey: String
        var createdAtMs: Int64
    }

    /// Loads the identity at `url`, creating it (mode 0600, written atomically) when the file does not exist.
    ///
    /// - Throws: ``HealthError`` `.storeUnavailable` when the file exists but cannot be read or does not hold a valid
    ///   identity — it is never overwritten, since a new identity means pairing the node again.
    public static func loadOrCreate(at url: URL) throws -> DeviceIdentity {
        let fm = FileManager.default
        if fm.fileExists(atPath: url.path) {
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw HealthError(.storeUnavailable, "cannot read the device identity \(url.path): \(error.localizedDescription)")
            }
            guard let file = try? JSONDecoder().decode(File.self, from: data), file.version == 1,
                  let raw = Base64URL.decode(file.privateKey),
                  let identity = try? DeviceIdentity(privateKey: raw, createdAtMs: file.createdAtMs),
                  identity.deviceId == file.deviceId else {
                throw HealthError(.storeUnavailable, "\(url.path) is not a valid device identity; move it away to create a new one (the gateway will then see a new node to approve)")
            }
            // Keep the key private even if someone widened the mode.
            _ = try? PrivateFile.tightenFile(url.path)
            return identity
        }
        let identity = generate()
        let file = File(version: 1, deviceId: identity.deviceId, publicKey: identity.publicKeyBase64URL,
                        privateKey: Base64URL.encode(identity.privateKeyRaw), createdAtMs: identity.createdAtMs)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(file)
        try HealthError.mappingPrivateFile { try PrivateFile.write(data, to: url) }
        return identity
    }
}

/// The strings a device signs for `connect`, exactly as the gateway rebuilds them.
public enum DeviceAuthPayload {
    /// `v2|deviceId|clientId|clientMode|role|scopes|signedAtMs|token|nonce`.
    public static func v2(deviceId: String, clientId: String, clientMode: String, role: String, scopes: [String],
                          signedAtMs: Int64, token: String?, nonce: String) -> String {
        ["v2", deviceId, clientId, clientMode, role, scopes.joined(separator: ","), String(signedAtMs), token ?? "",
         nonce].joined(separator: "|")
    }

    /// v2's fields plus `|platform|deviceFamily`, both trimmed and ASCII-lowercased.
    public static func v3(deviceId: String, clientId: String, clientMode: String, role: String, scopes: [String],
                          signedAtMs: Int64, token: String?, nonce: String, platform: String?,
                          deviceFamily: String?) -> String {
        ["v3", deviceId, clientId, clientMode, role, scopes.joined(separator: ","), String(signedAtMs), token ?? "",
         nonce, normalizeMetadata(platform), normalizeMetadata(deviceFamily)].joined(separator: "|")
    }

    /// Trims whitespace and lowercases ASCII letters only (`"  İOS "` → `"İos"`), as upstream does.
    public static func normalizeMetadata(_ value: String?) -> String {
        guard let value else { return "" }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return String(String.UnicodeScalarView(trimmed.unicodeScalars.map { scalar in
            (65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }))
    }
}

/// Signature versions of the `connect` device proof.
public enum DeviceSignatureVersion: String, Sendable, Hashable, CaseIterable {
    case v2, v3
}


/// The device tokens gateways issue in `hello-ok.auth.deviceToken`, kept per gateway (mode 0600) and sent as
/// `auth.token` on later connects.
public struct DeviceAuthStore: Sendable {
    public var url: URL

    public static let fileName = "openclaw-device-auth.json"

    public init(url: URL) { self.url = url }

    public struct Entry: Codable, Sendable, Hashable {
        public var deviceId: String
        public var role: String
        public var token: String
        public var scopes: [String]
        public var updatedAtMs: Int64
    }

    struct File: Codable {
        var version: Int = 1
        var gateways: [String: Entry] = [:]
    }

    /// The key a gateway's token is kept under: scheme, host and port, lowercased.
    public static func gatewayKey(_ gatewayURL: String) -> String {
        guard let components = URLComponents(string: gatewayURL), let host = components.host else {
            return gatewayURL.lowercased()
        }
        let scheme = (components.scheme ?? "ws").lowercased()
        let port = components.port ?? (scheme == "wss" || scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host.lowercased()):\(port)"
    }

    func load() -> File {
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else {
            return File()
        }
        return file
    }

    /// The stored token for this gateway, device and role.
    public func token(gateway: String, deviceId: String, role: String) -> String? {
        guard let entry = load().gateways[Self.gatewayKey(gateway)], entry.deviceId == deviceId, entry.role == role else {
            return nil
        }
        return entry.token
    }

    public func store(token: String, gateway: String, deviceId: String, role: String, scopes: [String]) throws {
        var file = load()
        let key = Self.gatewayKey(gateway)
        if let entry = file.gateways[key], entry.token == token, entry.deviceId == deviceId, entry.role == role { return }
        file.gateways[key] = Entry(deviceId: deviceId, role: role, token: token, scopes: scopes,
                                   updatedAtMs: Int64(Date().timeIntervalSince1970 * 1000))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(file)
        try HealthError.mappingPrivateFile { try PrivateFile.write(data, to: url) }
    }

    public func clear(gateway: String) throws {
        var file = load()
        guard file.gateways.removeValue(forKey: Self.gatewayKey(gateway)) != nil else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(file)
        try HealthError.mappingPrivateFile { try PrivateFile.write(data, to: url) }
    }
}
