import Foundation

/// What the Pairing page needs of the paired API, which `serve` runs beside the console: the certificate
/// fingerprint clients pin, where the API listens now (nil when it does not run) and the address a pairing code's
/// payload carries when it does not. The console does not know the paired API: `serve` supplies this value.
///
/// ```swift
/// let pairing = ConsolePairing(fingerprint: { try ServerIdentity.loadOrCreate(home: home).0.fingerprint },
///                              listening: { RuntimeInfo.load(home: home).map { .init(host: $0.host, port: $0.port) } },
///                              fallback: { .init(host: "192.168.1.20", port: 8443) })
/// let console = Console(service: service, home: home, configuration: .init(port: 8080), pairing: pairing, logger: logger)
/// ```
public struct ConsolePairing: Sendable {
    /// A host and port of the paired API.
    public struct Address: Sendable, Hashable {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The SHA-256 fingerprint of the certificate the paired API presents (created on first use).
    public var fingerprint: @Sendable () throws -> String
    /// Where the paired API listens now; nil when no server runs for this data directory.
    public var listening: @Sendable () -> Address?
    /// The address a new code's payload carries when no server runs.
    public var fallback: @Sendable () -> Address

    public init(fingerprint: @escaping @Sendable () throws -> String, listening: @escaping @Sendable () -> Address?,
                fallback: @escaping @Sendable () -> Address) {
        self.fingerprint = fingerprint
        self.listening = listening
        self.fallback = fallback
    }
}
