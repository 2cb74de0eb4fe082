import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel
import HealthSupport
import Logging
import Synchronization

/// A HealthKit-style client of a paired `healthbridge serve`: the diet app's `HealthKitManager` (seed §2–5) with the
/// same method names and shapes, over the HTTPS API with certificate pinning.
///
/// Pair once; the credentials (server address, certificate fingerprint, token) go to a file you name, mode 0600,
/// written atomically, and later launches reuse it. The client is paired as an app: the server treats it as the
/// principal `app:<appId>`, whose grants the owner gives by approving its access request
/// (`healthbridge access approve ID`). As in HealthKit, an app learns whether it may write a type, never whether it
/// may read one: a read it was not granted looks like no data.
///
/// ```swift
/// let manager = try HealthBridgeManager(appId: "com.example.diet", credentialsFile: support.appendingPathComponent("healthbridge.json"))
/// if !manager.isAvailable {
///     try await manager.pair(host: "127.0.0.1", port: 8443, code: "K7M2-9QXP", fingerprint: "ab12…")
/// }
/// try await manager.requestOnboardingAuthorization()
/// if let (weight, date) = try await manager.fetchLatestWeight() { print(weight, date) }
/// ```
public final class HealthBridgeManager: Sendable {
    /// The app's reverse-DNS id (`com.example.diet`): its principal on the server is `app:<appId>`.
    public let appId: String
    /// Where the credentials are kept (0600).
    public let credentialsFile: URL
    /// How long one request may take (long-polls add their wait).
    public let timeout: Duration
    let logger: Logger
    private let paired: Mutex<PairedServer?>
    /// The observer tasks of ``setupObserverQueries()``.
    let observerTasks = Mutex<[Task<Void, Never>]>([])
    /// The anchor per type up to which ``setupObserverQueries()`` has posted, kept beside the credentials.
    let observerAnchors: Mutex<[String: String]>

    /// The default logger: silent (a library never prints unless the app hands it a logger).
    public static let silentLogger = Logger(label: "HealthBridgeKit", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Opens the client; reads the credentials file when it exists. Logs (never a health value) go to `logger`.
    ///
    /// ```swift
    /// let manager = try HealthBridgeManager(appId: "com.example.diet", credentialsFile: URL(fileURLWithPath: "diet/healthbridge.json"))
    /// ```
    public init(appId: String, credentialsFile: URL, timeout: Duration = .seconds(30),
                logger: Logger = HealthBridgeManager.silentLogger) throws(HealthBridgeError) {
        guard PairRequest.isValidAppId(appId) else {
            throw .unavailable(HealthBridgeFailure(code: .invalidArgument,
                                                   message: "appId must be 1 to 128 letters, digits, '.', '-' or '_'",
                                                   isTransient: false))
        }
        self.appId = appId
        self.credentialsFile = credentialsFile
        self.timeout = timeout
        self.logger = logger
        observerAnchors = Mutex(Self.loadObserverAnchors(credentialsFile))
        do {
            paired = Mutex(try Self.loadCredentials(credentialsFile))
        } catch {
            throw .unavailable(HealthBridgeFailure(message: "cannot read \(credentialsFile.path): \(error)", isTransient: false))
        }
    }

    /// Whether the client is paired with a server (HealthKit's `isHealthDataAvailable()`).
    ///
    /// ```swift
    /// if !manager.isAvailable { try await manager.pair(qrPayload: scanned) }
    /// ```
    public var isAvailable: Bool { paired.withLock { $0 != nil } }

    /// The paired server (nil until paired).
    public var server: PairedServer? { paired.withLock { $0 } }

    // MARK: Pairing

    /// Pairs with a server: checks its certificate against `fingerprint` before sending the one-time `code`, then
    /// keeps the credentials in ``credentialsFile`` (0600, atomic). The code must be one the owner issued for this
    /// app (`healthbridge pair-code --app <appId>`, or the console's Pairing page): the server refuses any other with
    /// ``HealthBridgeError/notAuthorized(_:)`` (`HEALTH_NOT_AUTHORIZED`), so no client can pose as this app.
    ///
    /// ```swift
    /// try await manager.pair(host: "127.0.0.1", port: 8443, code: "K7M2-9QXP", fingerprint: "3f…c1", clientName: "Diet app")
    /// ```
    @discardableResult
    public func pair(host: String, port: Int, code: String, fingerprint: String,
                     clientName: String = "HealthBridgeKit app") async throws(HealthBridgeError) -> PairedServer {
        let record: PairedServer
        do {
            record = try await PairedAPIRemote.pair(host: host, port: port, fingerprint: fingerprint, code: code,
                                                 clientName: clientName, appId: appId, timeout: timeout)
            try Self.saveCredentials(record, to: credentialsFile)
        } catch {
            throw HealthBridgeError.wrap(error, .query)
        }
        paired.withLock { $0 = record }
        logger.info("paired with HealthBridge", metadata: ["client": "\(record.clientId)"])
        return record
    }

    /// Pairs from the QR code's payload (`healthbridge pair-code --json --app <appId>`):
    /// `{host, port, fingerprint, code, expires, appId}`. A payload issued for another app (or for a device) is
    /// refused before anything is sent.
    ///
    /// ```swift
    /// try await manager.pair(qrPayload: scannedText)
    /// ```
    @discardableResult
    public func pair(qrPayload: String, clientName: String = "HealthBridgeKit app") async throws(HealthBridgeError) -> PairedServer {
        guard let payload = try? JSONDecoder().decode(PairingPayload.self, from: Data(qrPayload.utf8)) else {
            throw .unavailable(HealthBridgeFailure(code: .invalidArgument,
                                                   message: "not a pairing payload: expected {host, port, fingerprint, code, expires}",
                                                   isTransient: false))
        }
        guard payload.appId == appId else {
            throw .notAuthorized(HealthBridgeFailure(
                code: .notAuthorized,
                message: payload.appId.map { "this pairing code was issued for the app \($0), not \(appId)" }
                    ?? "this pairing code is for a device; the owner issues one for this app with `healthbridge pair-code --app \(appId)`",
                isTransient: false))
        }
        return try await pair(host: payload.host, port: payload.port, code: payload.code,
                              fingerprint: payload.fingerprint, clientName: clientName)
    }

    /// Forgets the pairing (removes the credentials file). The server still lists the client until
    /// `healthbridge clients revoke`.
    ///
    /// ```swift
    /// try manager.unpair()
    /// ```
    public func unpair() throws {
        if FileManager.default.fileExists(atPath: credentialsFile.path) {
            try FileManager.default.removeItem(at: credentialsFile)
        }
        paired.withLock { $0 = nil }
    }

    // MARK: Credentials

    static func loadCredentials(_ url: URL) throws -> PairedServer? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        // Owner-only, whatever someone did to it.
        try? PrivateFile.tightenFile(url.path)
        return try JSONDecoder().decode(PairedServer.self, from: Data(contentsOf: url))
    }

    static func saveCredentials(_ record: PairedServer, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) { try PairedServerStore.ensureDirectory(directory) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try PairedServerStore.writePrivate(try encoder.encode(record), to: url)
    }

    // MARK: Requests

    func client(timeout: Duration? = nil) throws(HealthBridgeError) -> (PinnedHTTPSClient, String) {
        guard let server = paired.withLock({ $0 }) else {
            throw .unavailable(HealthBridgeFailure(message: "not paired with a HealthBridge server: call pair(…) first",
                                                   isTransient: false))
        }
        return (PinnedHTTPSClient(host: server.host, port: server.port, fingerprint: server.fingerprint,
                                  timeout: timeout ?? self.timeout), server.token)
    }

    /// Sends one request and decodes a 2xx answer as `Result`; error answers throw ``PairedAPIClientError``.
    func call<Result: Decodable>(_ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
                                 timeout: Duration? = nil, as type: Result.Type) async throws -> Result {
        let (http, token) = try client(timeout: timeout)
        var target = PairedAPIProtocol.basePath + "/" + path
        if !query.isEmpty {
            target += "?" + query.map { "\($0.0)=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        }
        var headers = [("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let reply = try await http.send(method: method, path: target, headers: headers, body: body)
        guard (200..<300).contains(reply.status) else { throw PairedAPIRemote.error(from: reply) }
        return try PairedAPIRemote.decode(Result.self, reply)
    }

    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~,:")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
