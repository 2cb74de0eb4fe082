import Foundation
import HealthSupport
@testable import HealthConsole
import Testing

/// The security review's finding 10 (issue 21): cookies are not port-scoped, so a console on 127.0.0.1 would hand its
/// session cookie to every other web server on 127.0.0.1. The console has a loopback address of its own; its cookie
/// is host-only for that address, and a request naming any other host is refused even with the cookie.
@Suite struct ConsoleAddressTests {
    @Test func theSessionCookieIsNotValidFor127001OnAnotherPort() async throws {
        // The address `serve` gives this install's console.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hb-address-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let resolved = ConsoleAddress.resolve(home: directory)
        #expect(resolved.fallbackReason == nil, "Linux routes 127.0.0.0/8 to loopback: \(resolved.fallbackReason ?? "")")
        let address = resolved.host
        #expect(address != "127.0.0.1")
        let h = try await ConsoleHarness.start(days: 1, address: address)
        defer { h.stop() }
        #expect(try await h.console.loginURL().hasPrefix("http://\(address):\(h.port)/login?key="),
                "the login link opens the console's own address")
        let key = try h.state.issueConsoleKey()
        let login = try await h.send("GET", "/login?key=\(key)")
        let setCookie = try #require(login.header("Set-Cookie"))
        // No Domain attribute: a host-only cookie, which a browser sends back to the console's address only, never to
        // 127.0.0.1 or localhost on any port.
        #expect(!setCookie.lowercased().contains("domain="))
        let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
        #expect(try await h.send("GET", "/", headers: [("Cookie", cookie)]).status == 200)
        // A cookie carried (or replayed) to the shared loopback names is refused, on the console's port or another.
        for host in ["127.0.0.1:\(h.port)", "localhost:\(h.port)", "[::1]:\(h.port)", "127.0.0.1:\(h.port + 1)",
                     "127.0.0.1", "\(address):\(h.port + 1)"] {
            let reply = try await h.send("GET", "/", host: host, headers: [("Cookie", cookie)])
            #expect(reply.status == 403, "Host \(host) must not reach the console")
            #expect(reply.body.contains("Host header must name this console"))
            let form = try await h.send("POST", "/logout", host: host,
                                        headers: [("Cookie", cookie), ("Origin", "http://\(host)")])
            #expect(form.status == 403)
        }
        // The login link works on the console's own address only.
        let other = try h.state.issueConsoleKey()
        #expect(try await h.send("GET", "/login?key=\(other)", host: "127.0.0.1:\(h.port)").status == 403)
        #expect(try await h.send("GET", "/login?key=\(other)").status == 303, "the key was not used up by the refusal")
    }

    @Test func eachInstallKeepsALoopbackAddressOfItsOwn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hb-address-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let address = try ConsoleAddress.loadOrCreate(home: directory)
        let bytes = address.split(separator: ".").compactMap { Int($0) }
        #expect(bytes.count == 4 && bytes[0] == 127 && bytes[1] != 0, "outside 127.0.0.0/16 (127.0.0.1, 127.0.0.53): \(address)")
        #expect(try ConsoleAddress.loadOrCreate(home: directory) == address, "kept across runs")
        let file = directory.appendingPathComponent(ConsoleAddress.fileName)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(ConsoleAddress.canBind(address))
        // A file that does not hold a loopback address is replaced, never bound.
        try Data("0.0.0.0\n".utf8).write(to: file)
        let fresh = try ConsoleAddress.loadOrCreate(home: directory)
        #expect(Loopback.isIPv4Loopback(fresh) && fresh != "0.0.0.0")
        #expect(!Loopback.isIPv4Loopback("127.evil.example.com") && !Loopback.isIPv4Loopback("127.1"))
        // On an address of its own the console answers to that name only; on 127.0.0.1 to the shared names.
        #expect(Console.isOwnAuthority("\(address):8080", port: 8080, boundHost: address))
        #expect(!Console.isOwnAuthority("127.0.0.1:8080", port: 8080, boundHost: address))
        #expect(!Console.isOwnAuthority("localhost:8080", port: 8080, boundHost: address))
        #expect(Console.isOwnAuthority("localhost:8080", port: 8080, boundHost: "127.0.0.1"))
    }
}
