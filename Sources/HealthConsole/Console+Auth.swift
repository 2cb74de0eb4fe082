import HTTPTypes
import Crypto
import Foundation
import HealthSupport
import HealthModel
import HealthHTTP
import HealthService
import HealthSupport
import Hummingbird

/// One signed-in owner: the session cookie's hash and the CSRF token its forms carry.
struct ConsoleSession: Sendable {
    var id: String
    var csrf: String
    var expires: Date
}

/// The console's sessions, in memory: a restart of `serve` signs everyone out. Only a session token's hash is kept.
actor ConsoleSessions {
    static let cookieName = "hb_console"
    static let maxSessions = 16

    let lifetime: TimeInterval
    private var sessions: [String: ConsoleSession] = [:]

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    /// Starts a session; returns the token for the cookie (only its hash is kept).
    func start(now: Date = Date()) -> (token: String, session: ConsoleSession) {
        sessions = sessions.filter { $0.value.expires > now }
        if sessions.count >= Self.maxSessions, let oldest = sessions.min(by: { $0.value.expires < $1.value.expires }) {
            sessions.removeValue(forKey: oldest.key)
        }
        let token = RandomToken.make()
        let session = ConsoleSession(id: Self.hash(token), csrf: RandomToken.make(), expires: now.addingTimeInterval(lifetime))
        sessions[session.id] = session
        return (token, session)
    }

    func find(token: String, now: Date = Date()) -> ConsoleSession? {
        let id = Self.hash(token)
        guard let session = sessions[id] else { return nil }
        guard session.expires > now else {
            sessions.removeValue(forKey: id)
            return nil
        }
        return session
    }

    func end(_ session: ConsoleSession) { sessions.removeValue(forKey: session.id) }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Constant-time comparison of a presented secret with the expected one.
    static func matches(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        return ConstantTime.equals(given, expected)
    }
}

extension Console {
    /// `GET /login?key=…`: redeems a one-time key and sets the session cookie (HttpOnly, SameSite=Strict, no
    /// `Domain`: host-only, for the console's own address), then goes to the overview. A used, expired or unknown key
    /// is refused with how to get a fresh one.
    func login(_ request: Request) async -> Response {
        let key = ConsoleForm(urlEncoded: request.uri.query ?? "").value("key") ?? ""
        let redeemed: Bool
        do {
            redeemed = try await service.redeemConsoleKey(key)
        } catch {
            logger.error("console login: cannot read the access state", metadata: ["error": "\(error)"])
            return failure(HealthError(.storeUnavailable, "the login could not be checked"))
        }
        guard redeemed else {
            logger.notice("console login refused: unknown, used or expired key")
            return failure(HealthError(.unauthenticated,
                                       "This login link was already used, has expired or is not valid. Run `healthbridge console` for a fresh one."),
                           status: .unauthorized)
        }
        let (token, _) = await sessions.start()
        logger.info("console login")
        return redirect("/", cookie: "\(ConsoleSessions.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(configuration.sessionLifetime))")
    }

    /// The session named by the request's cookie, if valid.
    func session(_ request: Request) async -> ConsoleSession? {
        for token in request.cookieValues(named: ConsoleSessions.cookieName) {
            if let session = await sessions.find(token: token) { return session }
        }
        return nil
    }

    func loginRequired() -> Response {
        failure(HealthError(.unauthenticated,
                            "Sign in with the one-time link `healthbridge serve` printed, or run `healthbridge console` for a fresh one."),
                status: .unauthorized)
    }

    /// 403 unless `Host` names the console itself, on the console's port: its own loopback address, or on the shared
    /// 127.0.0.1 also `localhost` and `[::1]`. A page reached through another name (DNS rebinding), or a session cookie
    /// carried to another loopback name, never answers. The middleware of every console route, before anything else.
    func hostCheck<Context: RequestContext>() -> HostCheckMiddleware<Context> {
        HostCheckMiddleware(allows: { [self] authority in
            Self.isOwnAuthority(authority, port: port, boundHost: configuration.host)
        }, refusal: { [self] _ in
            logger.notice("console: request with a foreign Host refused")
            let names = Self.isSharedLoopback(configuration.host) ? "127.0.0.1, localhost or [::1]" : configuration.host
            return failure(HealthError(.notAuthorized,
                                       "Forbidden: the Host header must name this console (\(names) on port \(port)); open \(origin)/"),
                           status: .forbidden)
        })
    }

    /// The names every local server shares: a console bound to one of them answers to all of them.
    static func isSharedLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "localhost", "::1"].contains(host.lowercased())
    }

    /// True for the loopback address the console is bound to, on its port; for a console on the shared 127.0.0.1 (or
    /// `localhost`, `::1`), any of `127.0.0.1`, `localhost` and `[::1]`. A console on an address of its own answers to
    /// that address only: its session cookie is host-only for it, and no other name may present it.
    static func isOwnAuthority(_ authority: String, port: Int, boundHost: String = "127.0.0.1") -> Bool {
        let text = authority.trimmingCharacters(in: .whitespaces).lowercased()
        var host = text
        var givenPort: Int?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { givenPort = Int(rest.dropFirst()) } else if !rest.isEmpty { return false }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else { return false }
            host = String(text[..<colon])
            givenPort = Int(text[text.index(after: colon)...])
            if givenPort == nil { return false }
        }
        let own = host == boundHost.lowercased() || (isSharedLoopback(boundHost) && isSharedLoopback(host))
        guard own else { return false }
        return (givenPort ?? 80) == port
    }

    /// 403 unless a state-changing request comes from the console's own pages: `Origin` must be `http://` plus the
    /// request's own (already checked) Host, and `Sec-Fetch-Site`, when the browser sends it, `same-origin`.
    func originRefusal(_ request: Request) -> Response? {
        let origin = request.headers[HTTPField.Name("Origin")!]
        let fetchSite = request.headers[HTTPField.Name("Sec-Fetch-Site")!]
        let expected = "http://" + (request.head.authority ?? "").lowercased()
        guard let origin, origin.lowercased() == expected, fetchSite == nil || fetchSite == "same-origin" else {
            logger.notice("console: cross-origin request refused")
            return failure(HealthError(.notAuthorized,
                                       "Forbidden: a change must come from the console's own page (Origin \(expected)); nothing was changed"),
                           status: .forbidden)
        }
        return nil
    }
}
