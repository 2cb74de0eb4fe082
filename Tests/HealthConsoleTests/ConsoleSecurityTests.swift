import HealthAPI
import PairedAPI
import Foundation
@testable import HealthConsole
import HealthModel
import HealthService
import Testing

/// The console's gate: one-time login keys, the session cookie, Host (DNS rebinding), Origin and CSRF on every
/// change, and uploads that are too large or not a zip. Each refusal is clear and changes nothing.
@Suite("Console security")
struct ConsoleSecurityTests {
    @Test func aLoginKeyWorksOnceAndSetsAStrictHttpOnlyCookie() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let key = try h.state.issueConsoleKey()
        let first = try await h.send("GET", "/login?key=\(key)")
        #expect(first.status == 303)
        #expect(first.header("Location") == "/")
        let cookie = try #require(first.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(!cookie.contains(key))
        let pair = String(cookie.split(separator: ";")[0])
        let overview = try await h.send("GET", "/", headers: [("Cookie", pair)])
        #expect(overview.status == 200)
        #expect(overview.body.contains("<h1>Overview</h1>"))

        let replay = try await h.send("GET", "/login?key=\(key)")
        #expect(replay.status == 401)
        #expect(replay.header("Set-Cookie") == nil)
        #expect(replay.body.contains("already used"))
    }

    @Test func anExpiredOrUnknownKeyIsRefused() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let expired = try h.state.issueConsoleKey(lifetime: -1)
        #expect(try await h.send("GET", "/login?key=\(expired)").status == 401)
        #expect(try await h.send("GET", "/login?key=not-a-key").status == 401)
        #expect(try await h.send("GET", "/login").status == 401)
    }

    @Test func pagesNeedTheSession() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        for path in ["/", "/data", "/sources", "/access", "/pairing", "/audit", "/import"] {
            let reply = try await h.send("GET", path)
            #expect(reply.status == 401, "\(path)")
            #expect(reply.body.contains("healthbridge console"))
        }
        let forged = try await h.send("GET", "/", headers: [("Cookie", "hb_console=forged")])
        #expect(forged.status == 401)
    }

    @Test func aForeignHostIsRefusedEvenWithTheSession() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()
        for host in ["evil.example", "evil.example:\(h.port)", "127.0.0.1.evil.example:\(h.port)", "127.0.0.1:\(h.port + 1)"] {
            let reply = try await h.send("GET", "/", host: host, headers: [("Cookie", cookie)])
            #expect(reply.status == 403, "\(host)")
            #expect(reply.body.contains("Host header must name this console"))
        }
        #expect(try await h.send("GET", "/", host: "localhost:\(h.port)", headers: [("Cookie", cookie)]).status == 200)
        // A login key presented through a rebound name is not even looked at: it still works afterwards.
        let key = try h.state.issueConsoleKey()
        #expect(try await h.send("GET", "/login?key=\(key)", host: "evil.example:\(h.port)").status == 403)
        #expect(try await h.send("GET", "/login?key=\(key)").status == 303)
    }

    @Test func aForgedCrossSitePostChangesNothing() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let app = h.service.acting(as: try Principal(parsing: "app:com.example.diet"))
        let filed = try #require(try await app.requestAccess(AccessRequestInput(
            read: ["bodyMass"], write: ["dietaryEnergyConsumed"], reasons: ["bodyMass": "Track your weight trend"])).request)
        let (cookie, csrf) = try await h.signIn()
        let form = Array("id=\(filed.id)&decision=approve&csrf=\(csrf)".utf8)
        let formType = ("Content-Type", "application/x-www-form-urlencoded")

        let crossSite = try await h.send("POST", "/access/decide", headers: [
            ("Cookie", cookie), ("Origin", "https://evil.example"), formType], body: form)
        #expect(crossSite.status == 403)
        #expect(crossSite.body.contains("nothing was changed"))
        let noOrigin = try await h.send("POST", "/access/decide", headers: [("Cookie", cookie), formType], body: form)
        #expect(noOrigin.status == 403)
        let fetchSite = try await h.send("POST", "/access/decide", headers: [
            ("Cookie", cookie), ("Origin", h.origin), ("Sec-Fetch-Site", "cross-site"), formType], body: form)
        #expect(fetchSite.status == 403)
        let noToken = try await h.send("POST", "/access/decide", headers: [("Cookie", cookie), ("Origin", h.origin), formType],
                                       body: Array("id=\(filed.id)&decision=approve".utf8))
        #expect(noToken.status == 403)
        #expect(noToken.body.contains("CSRF"))
        let noSession = try await h.send("POST", "/access/decide", headers: [("Origin", h.origin), formType], body: form)
        #expect(noSession.status == 401)
        #expect(try await h.service.accessRequests(status: .pending).requests.map(\.id) == [filed.id])

        let own = try await h.send("POST", "/access/decide", headers: [("Cookie", cookie), ("Origin", h.origin), formType],
                                   body: form)
        #expect(own.status == 303)
        #expect(try await h.service.accessRequests(status: .pending).requests.isEmpty)
        #expect(try await h.service.grants(for: try Principal(parsing: "app:com.example.diet")).read.allows("bodyMass"))
        // Deciding again is a conflict, said plainly.
        let again = try await h.send("POST", "/access/decide", headers: [("Cookie", cookie), ("Origin", h.origin), formType],
                                     body: form)
        #expect(again.status == 409)
        #expect(again.body.contains("already approved"))
    }

    @Test func oversizedAndNonZipUploadsAreRefusedAndKeepNothing() async throws {
        let h = try await ConsoleHarness.start(maxUploadBytes: 4096)
        defer { h.stop() }
        let (cookie, csrf) = try await h.signIn()
        let before = try await h.service.types().types.map(\.count)
        let headers = [("Cookie", cookie), ("Origin", h.origin), ("X-CSRF-Token", csrf), ("Content-Type", "application/zip")]

        let large = try await h.send("POST", "/import/upload", headers: headers, body: [0x50, 0x4B, 3, 4] + [UInt8](repeating: 0, count: 5000))
        #expect(large.status == 413)
        #expect(large.body.contains("HEALTH_PAYLOAD_TOO_LARGE"))
        let text = try await h.send("POST", "/import/upload", headers: headers, body: Array("<HealthData/>".utf8))
        #expect(text.status == 415)
        #expect(text.body.contains("not a zip"))
        let noToken = try await h.send("POST", "/import/upload", headers: Array(headers.prefix(2)), body: [0x50, 0x4B, 3, 4])
        #expect(noToken.status == 403)
        let crossSite = try await h.send("POST", "/import/upload",
                                         headers: [("Cookie", cookie), ("Origin", "http://evil.example"), ("X-CSRF-Token", csrf)],
                                         body: [0x50, 0x4B, 3, 4])
        #expect(crossSite.status == 403)

        let uploads = h.home.directory.appendingPathComponent("console-uploads")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []).isEmpty)
        #expect(try await h.service.types().types.map(\.count) == before)
    }

    @Test func revokingAPairedDeviceFromTheConsole() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let (code, _) = try h.state.issuePairingCode()
        guard case .paired(_, let clientID) = try await h.state.redeem(code: code, clientName: "Phone") else {
            Issue.record("pairing failed")
            return
        }
        let (cookie, csrf) = try await h.signIn()
        let page = try await h.send("GET", "/access", headers: [("Cookie", cookie)])
        #expect(page.body.contains("device:\(clientID)"))
        let reply = try await h.send("POST", "/access/revoke-device", headers: [
            ("Cookie", cookie), ("Origin", h.origin), ("Content-Type", "application/x-www-form-urlencoded")],
                                     body: Array("id=\(clientID)&csrf=\(csrf)".utf8))
        #expect(reply.status == 303)
        #expect(try h.state.clients().first { $0.id == clientID }?.isRevoked == true)
    }

    @Test func answersCarryASafetyNet() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()
        let reply = try await h.send("GET", "/", headers: [("Cookie", cookie)])
        #expect(reply.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(reply.header("Referrer-Policy") == "same-origin")
        #expect(reply.header("Cache-Control") == "no-store")
        #expect(reply.header("X-Frame-Options") == "DENY")
    }
}

extension ConsoleSecurityTests {
    @Test func signingOutEndsTheSession() async throws {
        let h = try await ConsoleHarness.start()
        defer { h.stop() }
        let (cookie, csrf) = try await h.signIn()
        let out = try await h.send("POST", "/logout", headers: [
            ("Cookie", cookie), ("Origin", h.origin), ("Content-Type", "application/x-www-form-urlencoded")],
                                   body: Array("csrf=\(csrf)".utf8))
        #expect(out.status == 200)
        #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(try await h.send("GET", "/", headers: [("Cookie", cookie)]).status == 401)
    }
}

extension ConsoleSecurityTests {
    @Test func ownAuthorities() {
        #expect(Console.isOwnAuthority("127.0.0.1:8080", port: 8080))
        #expect(Console.isOwnAuthority("LOCALHOST:8080", port: 8080))
        #expect(Console.isOwnAuthority("[::1]:8080", port: 8080))
        #expect(Console.isOwnAuthority("127.0.0.2:8080", port: 8080, boundHost: "127.0.0.2"))
        #expect(!Console.isOwnAuthority("127.0.0.2:8080", port: 8080))
        #expect(!Console.isOwnAuthority("127.0.0.1:8081", port: 8080))
        #expect(!Console.isOwnAuthority("127.0.0.1", port: 8080))
        #expect(!Console.isOwnAuthority("localhost.evil.example:8080", port: 8080))
        #expect(!Console.isOwnAuthority("[::1]x:8080", port: 8080))
        #expect(!Console.isOwnAuthority("127.0.0.1:8080:1", port: 8080))
    }
}
