import Foundation
import HealthModel
import HealthSupport

/// How `healthbridge serve` exposes the MCP endpoint, decided from its flags before anything listens: the scheme,
/// the URL agents use, OAuth's resource, whether anonymous loopback access stays, and where the web console goes.
///
/// The rule (issue 26): loopback keeps working without OAuth, as before; beyond loopback the endpoint needs TLS,
/// either its own (`--mcp-tls`, the server's identity) or a TLS proxy or tunnel in front (`--mcp-public-url`).
/// Plain HTTP beyond loopback is refused.
///
/// ```swift
/// let plan = try MCPListenerPlan(bind: "0.0.0.0", port: 8080, tls: true, publicResource: nil,
///                                advertisedHost: { _ in "192.168.1.20" })
/// plan.endpointURL     // "https://192.168.1.20:8080/mcp"
/// plan.oauthResource   // "https://192.168.1.20:8080/mcp"
/// ```
public struct MCPListenerPlan: Sendable, Equatable {
    /// The address the listener binds.
    public var bind: String
    public var port: Int
    /// The listener speaks TLS itself.
    public var tls: Bool
    /// The resource of `--mcp-public-url` (already normalised), when given.
    public var publicResource: String?
    /// The host agents use: the bind address when it is a concrete one (`localhost` as 127.0.0.1), for 0.0.0.0 or
    /// :: the advertised LAN address.
    public var agentHost: String

    /// Plans the listener; throws ``HealthError/Code/invalidArgument`` for plain HTTP beyond loopback.
    /// - Parameter advertisedHost: the LAN address agents reach for a wildcard bind (the paired API's rule).
    public init(bind: String, port: Int, tls: Bool, publicResource: String?,
                advertisedHost: (String) -> String) throws(HealthError) {
        if !Loopback.isLoopback(bind), !tls, publicResource == nil {
            throw HealthError(.invalidArgument, Self.plainBeyondLoopbackMessage(bind: bind), argument: "mcp-bind")
        }
        self.bind = bind
        self.port = port
        self.tls = tls
        self.publicResource = publicResource
        switch bind {
        case "localhost": agentHost = "127.0.0.1"
        case "0.0.0.0", "::": agentHost = advertisedHost(bind)
        default: agentHost = bind
        }
    }

    /// Why `serve` refuses plain HTTP on `bind`, and what to pass instead.
    public static func plainBeyondLoopbackMessage(bind: String) -> String {
        "the MCP endpoint would listen on \(bind), beyond loopback, in plain HTTP: tokens and health data would cross the network unencrypted. Pass --mcp-tls (TLS with this server's own certificate) or put a TLS reverse proxy or tunnel in front and pass --mcp-public-url https://…"
    }

    /// The bind address is loopback.
    public var isLoopback: Bool { Loopback.isLoopback(bind) }

    /// The endpoint's URL as agents reach this listener directly: `https://` with TLS.
    public var endpointURL: String {
        let host = agentHost.contains(":") ? "[\(agentHost)]" : agentHost
        return "\(tls ? "https" : "http")://\(host):\(port)/mcp"
    }

    /// OAuth's resource: `--mcp-public-url`'s when given (it wins), else the endpoint's own URL (https with TLS, the
    /// loopback http URL without).
    public var oauthResource: String { publicResource ?? endpointURL }

    /// Requests without any token are served (the owner's loopback listener of before): loopback, no TLS, no public
    /// URL and no static token.
    public func anonymous(staticToken: Bool) -> Bool { isLoopback && !tls && publicResource == nil && !staticToken }

    /// Browsers' Origin is checked against localhost (DNS rebinding): the listener and its public URL are loopback.
    public var loopbackOnly: Bool {
        isLoopback && (publicResource.map { Loopback.isLoopback(Self.host(ofURL: $0)) } ?? true)
    }

    /// The owner's static bearer token is generated (and kept in the data directory) when none is given.
    public var needsStoredToken: Bool { !isLoopback }

    /// Where the web console listens.
    public struct ConsolePlacement: Sendable, Equatable {
        /// Its loopback address.
        public var host: String
        /// On a listener of its own; false: at `/` of the MCP listener (the fallback, loopback MCP only).
        public var ownListener: Bool
        /// Its listener's port: the MCP port's number, or 0 (any free port) where the MCP listener holds that port on
        /// every address.
        public var port: Int

        public init(host: String, ownListener: Bool, port: Int) {
            self.host = host; self.ownListener = ownListener; self.port = port
        }
    }

    /// The console's place: on its own loopback listener at `consoleHost` (this install's own loopback address, or
    /// 127.0.0.1 when `fallback`), whatever the MCP listener's address, so that the consent page is reachable on
    /// this machine. It shares the MCP listener only when that is on loopback, at that very address, in plain HTTP
    /// (never beyond loopback, never on the TLS listener).
    public func console(consoleHost: String, fallback: Bool) -> ConsolePlacement {
        let wildcard = bind == "0.0.0.0" || bind == "::"
        let port = wildcard ? 0 : self.port
        if isLoopback, !tls {
            if fallback { return .init(host: bind == "localhost" ? "127.0.0.1" : bind, ownListener: false, port: self.port) }
            if consoleHost == bind { return .init(host: consoleHost, ownListener: false, port: self.port) }
            return .init(host: consoleHost, ownListener: true, port: self.port)
        }
        // TLS on loopback at the console's very address: the console takes any free port there.
        let sameAddress = consoleHost == bind || (bind == "localhost" && consoleHost == "127.0.0.1")
        return .init(host: consoleHost, ownListener: true, port: sameAddress ? 0 : port)
    }

    /// The host of `url` without brackets or percent-encoding (`https://[::1]:8443/mcp` → `::1`); empty when `url` is
    /// not a URL.
    static func host(ofURL url: String) -> String {
        URL(string: url)?.host(percentEncoded: false) ?? ""
    }
}
