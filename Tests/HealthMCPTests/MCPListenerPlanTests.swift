import HealthMCP
import HealthModel
import Testing

/// Issue 26: how `serve` exposes MCP, from its flags: plain HTTP beyond loopback is refused, TLS names the https
/// resource, `--mcp-public-url` wins, and the console stays on loopback whatever the MCP listener's address.
struct MCPListenerPlanTests {
    static let lan: @Sendable (String) -> String = { _ in "192.168.1.20" }

    @Test(arguments: ["0.0.0.0", "::", "192.168.1.20", "fe80::1"])
    func plainHTTPBeyondLoopbackIsRefused(bind: String) {
        #expect {
            _ = try MCPListenerPlan(bind: bind, port: 8080, tls: false, publicResource: nil, advertisedHost: Self.lan)
        } throws: { error in
            let error = error as? HealthError
            return error?.code == .invalidArgument && error?.argument == "mcp-bind"
                && error?.message.contains("--mcp-tls") == true && error?.message.contains("--mcp-public-url") == true
        }
    }

    @Test func loopbackStaysAsBefore() throws {
        let plan = try MCPListenerPlan(bind: "127.0.0.1", port: 8080, tls: false, publicResource: nil, advertisedHost: Self.lan)
        #expect(plan.endpointURL == "http://127.0.0.1:8080/mcp")
        #expect(plan.oauthResource == "http://127.0.0.1:8080/mcp")
        #expect(plan.anonymous(staticToken: false))
        #expect(!plan.anonymous(staticToken: true))
        #expect(plan.loopbackOnly && !plan.needsStoredToken)
        let localhost = try MCPListenerPlan(bind: "localhost", port: 9, tls: false, publicResource: nil, advertisedHost: Self.lan)
        #expect(localhost.endpointURL == "http://127.0.0.1:9/mcp")
        let v6 = try MCPListenerPlan(bind: "::1", port: 9, tls: false, publicResource: nil, advertisedHost: Self.lan)
        #expect(v6.endpointURL == "http://[::1]:9/mcp")
    }

    @Test func tlsNamesTheHTTPSResourceAgentsUse() throws {
        let concrete = try MCPListenerPlan(bind: "10.77.0.1", port: 18081, tls: true, publicResource: nil, advertisedHost: Self.lan)
        #expect(concrete.agentHost == "10.77.0.1")
        #expect(concrete.oauthResource == "https://10.77.0.1:18081/mcp")
        #expect(!concrete.anonymous(staticToken: false) && !concrete.loopbackOnly && concrete.needsStoredToken)
        let wildcard = try MCPListenerPlan(bind: "0.0.0.0", port: 8080, tls: true, publicResource: nil, advertisedHost: Self.lan)
        #expect(wildcard.endpointURL == "https://192.168.1.20:8080/mcp")
        // TLS on loopback: OAuth (or the static token), never anonymous.
        let loopback = try MCPListenerPlan(bind: "127.0.0.1", port: 8443, tls: true, publicResource: nil, advertisedHost: Self.lan)
        #expect(loopback.oauthResource == "https://127.0.0.1:8443/mcp" && !loopback.anonymous(staticToken: false))
    }

    @Test func thePublicURLWins() throws {
        let plan = try MCPListenerPlan(bind: "0.0.0.0", port: 8080, tls: true, publicResource: "https://health.example.org/mcp",
                                       advertisedHost: Self.lan)
        #expect(plan.oauthResource == "https://health.example.org/mcp")
        let proxied = try MCPListenerPlan(bind: "127.0.0.1", port: 8080, tls: false,
                                          publicResource: "https://health.example.org/mcp", advertisedHost: Self.lan)
        #expect(!proxied.loopbackOnly && !proxied.anonymous(staticToken: false))
        // A proxy beyond loopback without TLS here is allowed: the proxy speaks TLS.
        #expect(throws: Never.self) {
            _ = try MCPListenerPlan(bind: "0.0.0.0", port: 8080, tls: false, publicResource: "https://h.example/mcp",
                                    advertisedHost: Self.lan)
        }
    }

    /// A public URL's host decides whether browsers' Origin is held to localhost: read with `URL` (brackets,
    /// user info, ports, percent-encoded zones).
    @Test(arguments: [("https://[::1]:8443/mcp", true), ("https://user@127.0.0.1:8443/mcp", true),
                      ("http://localhost/mcp", true), ("https://health.example.org/mcp", false),
                      ("https://[fe80::1%25eth0]:8443/mcp", false), ("https://10.0.0.5:8080/mcp", false)])
    func aPublicURLsHostDecidesLoopbackOnly(url: String, loopback: Bool) throws {
        let plan = try MCPListenerPlan(bind: "127.0.0.1", port: 8080, tls: false, publicResource: url, advertisedHost: Self.lan)
        #expect(plan.loopbackOnly == loopback, "\(url)")
    }

    @Test func theConsoleStaysOnLoopback() throws {
        typealias Place = MCPListenerPlan.ConsolePlacement
        let loopback = try MCPListenerPlan(bind: "127.0.0.1", port: 8080, tls: false, publicResource: nil, advertisedHost: Self.lan)
        #expect(loopback.console(consoleHost: "127.9.8.7", fallback: false) == Place(host: "127.9.8.7", ownListener: true, port: 8080))
        // The fallback shares the plain loopback MCP listener, as before.
        #expect(loopback.console(consoleHost: "127.0.0.1", fallback: true) == Place(host: "127.0.0.1", ownListener: false, port: 8080))
        #expect(loopback.console(consoleHost: "127.0.0.1", fallback: false) == Place(host: "127.0.0.1", ownListener: false, port: 8080))

        // MCP beyond loopback: the console on its own loopback listener, never shared, never beyond loopback.
        let concrete = try MCPListenerPlan(bind: "10.77.0.1", port: 18081, tls: true, publicResource: nil, advertisedHost: Self.lan)
        #expect(concrete.console(consoleHost: "127.9.8.7", fallback: false) == Place(host: "127.9.8.7", ownListener: true, port: 18081))
        #expect(concrete.console(consoleHost: "127.0.0.1", fallback: true) == Place(host: "127.0.0.1", ownListener: true, port: 18081))
        // On every address the MCP listener holds its port on loopback too: the console takes a free port.
        for bind in ["0.0.0.0", "::"] {
            let wildcard = try MCPListenerPlan(bind: bind, port: 8080, tls: true, publicResource: nil, advertisedHost: Self.lan)
            for fallback in [false, true] {
                let place = wildcard.console(consoleHost: fallback ? "127.0.0.1" : "127.9.8.7", fallback: fallback)
                #expect(place.ownListener && place.port == 0 && place.host.hasPrefix("127."))
            }
        }
        // TLS on loopback: the console never shares the TLS listener.
        let tlsLoopback = try MCPListenerPlan(bind: "127.0.0.1", port: 8443, tls: true, publicResource: nil, advertisedHost: Self.lan)
        #expect(tlsLoopback.console(consoleHost: "127.0.0.1", fallback: true) == Place(host: "127.0.0.1", ownListener: true, port: 0))
        #expect(tlsLoopback.console(consoleHost: "127.9.8.7", fallback: false) == Place(host: "127.9.8.7", ownListener: true, port: 8443))
    }
}
