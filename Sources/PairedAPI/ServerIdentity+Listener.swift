import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import SwiftASN1
import X509

extension ServerIdentity {
    /// `base` wrapped in TLS with this identity (the paired API's configuration: TLS 1.2+, AEAD suites only), for
    /// another listener of the same server, such as `serve --mcp-tls`'s MCP endpoint.
    ///
    /// ```swift
    /// let server = try identity.httpsServer(HealthMCPHTTP.httpServer(), shutdownTimeout: .milliseconds(100))
    /// ```
    /// - Parameter shutdownTimeout: how long a closing connection waits for the peer's close_notify.
    public func httpsServer(_ base: HTTPServerBuilder, shutdownTimeout: TimeAmount = .seconds(1)) throws -> HTTPServerBuilder {
        try .tls(base, tlsConfiguration: serverTLSConfiguration(shutdownTimeout: shutdownTimeout))
    }

    /// An HTTP/1.1 listener in TLS with this identity and the paired API's connection guards: at most
    /// `limiter.perAddress` connections from one peer address (the rest closed before any TLS work), and the TLS
    /// handshake plus the first request head within `handshakeTimeout` (``ConnectionAdmission``). For a listener
    /// beyond loopback, such as `serve --mcp-tls`'s MCP endpoint, so that one host can neither take every
    /// connection nor hold connections open without speaking.
    ///
    /// ```swift
    /// let server = try identity.guardedHTTPSServer(limiter: ConnectionLimiter(perAddress: 64))
    /// ```
    public func guardedHTTPSServer(limiter: ConnectionLimiter, handshakeTimeout: Duration = .seconds(10),
                                   idleTimeout: Duration = .seconds(60),
                                   shutdownTimeout: TimeAmount = .seconds(1)) throws -> HTTPServerBuilder {
        let timeout = TimeAmount(handshakeTimeout)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionAdmission(limiter: limiter, handshakeTimeout: timeout)],
            idleTimeout: TimeAmount(idleTimeout))
        return try httpsServer(.http1(configuration: http1), shutdownTimeout: shutdownTimeout)
    }

    /// The certificate's subject alternative names: DNS names as written, IP addresses in their usual text form.
    ///
    /// ```swift
    /// identity.subjectAlternativeNames   // ["localhost", "myhost", "myhost.local", "127.0.0.1", "::1"]
    /// ```
    public var subjectAlternativeNames: [String] {
        guard let certificate = try? Certificate(derEncoded: certificateDER),
              let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            switch name {
            case .dnsName(let text): return text
            case .ipAddress(let octets): return Self.ipText(Array(octets.bytes))
            default: return nil
            }
        }
    }

    /// Whether a client that checks host names accepts this certificate for `host` (a DNS name, case-insensitive,
    /// or an IP address in any text form).
    ///
    /// ```swift
    /// identity.names("10.77.0.1")   // true when the identity was made with that address
    /// ```
    public func names(_ host: String) -> Bool {
        let wanted = Self.ipBytes(host)
        return subjectAlternativeNames.contains { name in
            if let wanted { return Self.ipBytes(name) == wanted }
            return name.lowercased() == host.lowercased()
        }
    }

    /// The host names a new identity should carry when another listener is reached at `hosts` too: the defaults,
    /// `hosts`, and this machine's LAN IPv4 addresses (so that clients checking host names accept any of them).
    public static func hostNames(adding hosts: [String]) -> [String] {
        defaultHostNames() + hosts + MDNSResponder.localIPv4Addresses()
    }

    static func ipText(_ bytes: [UInt8]) -> String? {
        switch bytes.count {
        case 4:
            var address = in_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            return ntop(AF_INET, &address)
        case 16:
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            return ntop(AF_INET6, &address)
        default:
            return nil
        }
    }

    /// inet_ntop into a buffer wider than INET6_ADDRSTRLEN (46).
    private static func ntop<T>(_ family: Int32, _ address: inout T) -> String? {
        let length: socklen_t = 64
        var buffer = [CChar](repeating: 0, count: 64)
        let text = withUnsafePointer(to: &address) { inet_ntop(family, $0, &buffer, length) }
        guard text != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
