import AsyncHTTPClient
import Foundation
import HealthModel
import HealthSupport
import Logging
import NIOCore
import NIOSSL

/// A client's metadata as its Client ID Metadata Document states it (the fields the server uses).
public struct ClientMetadata: Sendable, Equatable {
    public var clientID: String
    public var name: String
    public var redirectURIs: [String]
}

/// Fetches and checks Client ID Metadata Documents: the `client_id` is an `https` URL with a path (or, when
/// `allowLoopback` is on, an `http` URL on a loopback address, for local apps and tests), whose JSON document names
/// the same `client_id` and at least one redirect URI. The fetch follows no redirect, gives up after `timeout`, reads
/// at most `maxBytes`, and refuses addresses on private, link-local or loopback networks named literally (unless
/// loopback is allowed). A host name that resolves to a private address is not caught here: put the server behind a
/// proxy that cannot reach your LAN if that matters. `https` trusts the system's roots and `trustRoots` (an internal CA
/// or a test's self-signed certificate, `serve --oauth-client-ca FILE`).
///
/// ```swift
/// let fetcher = ClientMetadataFetcher(allowLoopback: false)
/// let metadata = try await fetcher.fetch("https://app.example/oauth/client.json")
/// ```
public struct ClientMetadataFetcher: Sendable {
    public var allowLoopback: Bool
    public var timeout: TimeAmount
    public var maxBytes: Int
    public var logger: Logger
    /// Certificate authorities trusted beside the system's for `https` documents.
    public var trustRoots: ClientTrustRoots?

    public init(allowLoopback: Bool, timeout: TimeAmount = .seconds(5), maxBytes: Int = 64 << 10,
                trustRoots: ClientTrustRoots? = nil,
                logger: Logger = Logger(label: "healthbridge.oauth", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.allowLoopback = allowLoopback; self.timeout = timeout; self.maxBytes = maxBytes; self.logger = logger
        self.trustRoots = trustRoots
    }

    /// Whether `clientID` has the shape of a metadata document URL this server would fetch.
    public func isMetadataURL(_ clientID: String) -> Bool { (try? check(clientID)) != nil }

    /// The URL checked: scheme, host, path, no user info or fragment, no literal private address.
    func check(_ clientID: String) throws(HealthError) -> URL {
        guard clientID.utf8.count <= 2048, let components = URLComponents(string: clientID), let scheme = components.scheme,
              let host = components.host, !host.isEmpty, let url = components.url else {
            throw HealthError(.invalidArgument, "client_id is not a URL", argument: "client_id")
        }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            throw HealthError(.invalidArgument, "a client_id URL has no user, password or fragment", argument: "client_id")
        }
        guard !components.path.isEmpty, components.path != "/" else {
            throw HealthError(.invalidArgument, "a client_id URL names a document: it needs a path", argument: "client_id")
        }
        let loopback = Loopback.isLoopback(host)
        switch scheme.lowercased() {
        case "https":
            if loopback && !allowLoopback {
                throw HealthError(.invalidArgument, "a client_id on this machine's loopback is not accepted", argument: "client_id")
            }
        case "http":
            guard loopback, allowLoopback else {
                throw HealthError(.invalidArgument, "a client_id URL must be https", argument: "client_id")
            }
        default:
            throw HealthError(.invalidArgument, "a client_id URL must be https", argument: "client_id")
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if !loopback, let bytes = Loopback.addressBytes(bare), Self.isPrivate(bytes) {
            throw HealthError(.invalidArgument, "a client_id URL may not name a private or link-local address", argument: "client_id")
        }
        return url
    }

    /// RFC 1918, link-local, CGNAT, unspecified, and IPv6 unique-local and link-local addresses.
    static func isPrivate(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 {
            return bytes[0] == 10 || bytes[0] == 0 || (bytes[0] == 172 && (16...31).contains(bytes[1]))
                || (bytes[0] == 192 && bytes[1] == 168) || (bytes[0] == 169 && bytes[1] == 254)
                || (bytes[0] == 100 && (64...127).contains(bytes[1]))
        }
        guard bytes.count == 16 else { return true }
        if bytes.allSatisfy({ $0 == 0 }) { return true }
        if bytes[0] & 0xFE == 0xFC { return true }                      // fc00::/7
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return isPrivate(Array(bytes[12..<16]))                    // ::ffff:a.b.c.d
        }
        return false
    }

    /// Fetches and checks the document of `clientID`. Every failure is `HEALTH_INVALID_ARGUMENT` naming `client_id`.
    public func fetch(_ clientID: String) async throws(HealthError) -> ClientMetadata {
        let url = try check(clientID)
        let data: Data
        do {
            data = try await get(url)
        } catch let error as HealthError {
            throw error
        } catch where Self.isTLSFailure(error) {
            logger.notice("client metadata fetch: TLS failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            throw HealthError(.invalidArgument, "the server of the client's metadata document is not trusted (TLS failed: "
                              + "an unknown certificate authority? serve --oauth-client-ca FILE trusts an internal one)",
                              argument: "client_id")
        } catch {
            logger.notice("client metadata fetch failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            throw HealthError(.invalidArgument, "the client's metadata document could not be fetched", argument: "client_id")
        }
        return try Self.parse(data, clientID: clientID)
    }

    func get(_ url: URL) async throws -> Data {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: timeout, read: timeout))
        configuration.decompression = .disabled
        // One try: a refused connection or a failed handshake answers at once instead of retrying until the timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { tls.additionalTrustRoots = [.certificates(trustRoots.certificates)] }
        configuration.tlsConfiguration = tls
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await client.execute(request, timeout: timeout)
            guard response.status == .ok else {
                throw HealthError(.invalidArgument, "the client's metadata document answered HTTP \(response.status.code)",
                                  argument: "client_id")
            }
            let buffer = try await response.body.collect(upTo: maxBytes)
            try await client.shutdown()
            return Data(buffer.readableBytesView)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Whether the fetch failed in the TLS handshake (an untrusted or mismatched certificate, no common cipher).
    static func isTLSFailure(_ error: any Error) -> Bool {
        error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError
    }

    /// Checks a document: a JSON object whose `client_id` is exactly the URL it came from, with 1 to 16 redirect URIs
    /// (each `https`, or `http` on loopback, or a private-use scheme of a native app), and no client secret.
    static func parse(_ data: Data, clientID: String) throws(HealthError) -> ClientMetadata {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HealthError(.invalidArgument, "the client's metadata document is not a JSON object", argument: "client_id")
        }
        guard object["client_id"] as? String == clientID else {
            throw HealthError(.invalidArgument, "the client's metadata document names another client_id", argument: "client_id")
        }
        guard let uris = object["redirect_uris"] as? [String], (1...16).contains(uris.count),
              uris.allSatisfy(isAcceptableRedirect) else {
            throw HealthError(.invalidArgument, "the client's metadata document needs 1 to 16 valid redirect_uris",
                              argument: "client_id")
        }
        if let method = object["token_endpoint_auth_method"] as? String, method != "none" {
            throw HealthError(.invalidArgument, "only public clients (token_endpoint_auth_method none) are supported",
                              argument: "client_id")
        }
        if object["client_secret"] != nil {
            throw HealthError(.invalidArgument, "a metadata document may not carry a client_secret", argument: "client_id")
        }
        let fallback = URLComponents(string: clientID)?.host ?? clientID
        let name = (object["client_name"] as? String).map { String($0.prefix(100)) }.flatMap { $0.isEmpty ? nil : $0 }
        return ClientMetadata(clientID: clientID, name: name ?? fallback, redirectURIs: uris)
    }

    /// `https`, `http` on loopback (RFC 8252 §7.3), or a private-use scheme (`com.example.app:/cb`, RFC 8252 §7.1);
    /// never a fragment, `javascript:` or `data:`.
    static func isAcceptableRedirect(_ uri: String) -> Bool {
        guard uri.utf8.count <= 2048, let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
              components.fragment == nil else { return false }
        switch scheme {
        case "https": return components.host.map { !$0.isEmpty } ?? false
        case "http": return components.host.map(Loopback.isLoopback) ?? false
        case "javascript", "data", "file", "vbscript", "about", "blob": return false
        default: return scheme.contains(".")
        }
    }
}
