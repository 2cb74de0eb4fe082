import Foundation
import HealthSupport

/// Which gateway URLs the node may connect to. `wss://` anywhere; plain-text `ws://` only to this machine (localhost,
/// 127.0.0.0/8, ::1), unless the person passes `--allow-insecure-gateway`: beyond loopback, `ws://` would send the
/// gateway token, the device proof and every health answer readable by anyone on the path.
public enum GatewayURLPolicy {
    /// The flag that allows `ws://` beyond loopback, named so nobody passes it by accident.
    public static let insecureFlag = "--allow-insecure-gateway"

    public enum Violation: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not `ws://HOST[:PORT]` or `wss://HOST[:PORT]`.
        case malformed(String)
        /// `ws://` to a host that is not loopback, without the flag.
        case plainTextBeyondLoopback(host: String)

        public var description: String {
            switch self {
            case .malformed(let url):
                "the gateway URL must be ws://HOST:PORT or wss://HOST:PORT, got '\(url)'"
            case .plainTextBeyondLoopback(let host):
                "refusing plain-text ws:// to \(host), which is not this machine: the gateway token and every health answer would cross the network unencrypted. Use wss://, or pass \(GatewayURLPolicy.insecureFlag) if you accept that risk"
            }
        }
    }

    /// Checks `url`; returns true when it is plain text beyond loopback (allowed only because `allowInsecure`), so
    /// the caller can warn loudly.
    @discardableResult
    public static func check(_ url: String, allowInsecure: Bool) throws(Violation) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "ws" || scheme == "wss", let host = components.host, !host.isEmpty else {
            throw .malformed(url)
        }
        guard scheme == "ws", !Loopback.isLoopback(host) else { return false }
        guard allowInsecure else { throw .plainTextBeyondLoopback(host: host) }
        return true
    }
}
