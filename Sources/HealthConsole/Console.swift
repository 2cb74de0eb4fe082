import HTTPTypes
import HealthHTTP
import HealthModel
import Foundation
import HealthService
import HealthSupport
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The person's web console: server-rendered pages over ``HealthService`` (its access use cases too), served on the
/// loopback HTTP listener at `/` (`serve` binds it to the install's own loopback address, ``ConsoleAddress``).
///
/// A thin adapter: each page decodes the request, calls the service (acting for the owner: pairing, clients, sharing
/// and the audit log are its use cases too) and renders. Every request must name the console itself in `Host` (DNS rebinding; on an address of its
/// own, no other name is the console, so its cookie is never honoured elsewhere); pages need the owner's
/// session (a cookie set by a one-time login link, see ``ConsoleSessions``); every state-changing request also needs
/// the session's CSRF token and an `Origin` of the console's own.
///
/// ```swift
/// let service = try await HealthService.open(store: store, access: try AccessStore.open(home: home.directory))
/// let console = Console(service: service, home: home, configuration: .init(port: 8080), pairing: pairing, logger: logger)
/// console.addRoutes(to: router)
/// print(try await console.loginURL())
/// ```
public final class Console: Sendable {
    /// What the console needs to know about where it runs.
    public struct Configuration: Sendable {
        /// The port the listener is bound to (0 until known: set it with ``Console/setPort(_:)``).
        public var port: Int
        /// The loopback address the console is bound to, which the login link names. `serve` gives it an address of
        /// its own (``ConsoleAddress``); then `Host` must name exactly that address, so the session cookie — host-only,
        /// cookies are not port-scoped — lives on no name another local server answers. On 127.0.0.1 (the fallback)
        /// `localhost` and `[::1]` are accepted too.
        public var host: String
        /// The largest export.zip accepted by the import page.
        public var maxUploadBytes: Int
        /// The interfaces `serve` runs, for the overview: name and address.
        public var interfaces: [(name: String, address: String)]
        /// How long a session lasts without a new login.
        public var sessionLifetime: TimeInterval

        public init(port: Int, host: String = "127.0.0.1", maxUploadBytes: Int = 8 << 30,
                    interfaces: [(name: String, address: String)] = [], sessionLifetime: TimeInterval = 12 * 3600) {
            self.port = port; self.host = host; self.maxUploadBytes = maxUploadBytes; self.interfaces = interfaces
            self.sessionLifetime = sessionLifetime
        }
    }

    /// Acting for the owner, with the data directory's access state.
    let service: HealthService
    let home: HealthBridgeHome
    let configuration: Configuration
    /// The paired API as the Pairing page sees it (supplied by `serve`).
    let pairing: ConsolePairing
    let logger: Logger
    let sessions: ConsoleSessions
    let imports: ConsoleImports
    private let boundPort: Mutex<Int>
    /// The household (``HouseholdServices``), for the People page: what this person shares and is shared; nil when
    /// the console runs without one (the page says so).
    let household: HouseholdServices?
    /// The id of the person this console is for (`owner`, or the `--person` of `serve`).
    let person: String

    public init(service: HealthService, home: HealthBridgeHome, configuration: Configuration, pairing: ConsolePairing,
                household: HouseholdServices? = nil, person: String = Household.ownerID, logger: Logger) {
        self.household = household
        self.person = person
        self.service = service
        self.home = home
        self.configuration = configuration
        self.pairing = pairing
        self.logger = logger
        self.sessions = ConsoleSessions(lifetime: configuration.sessionLifetime)
        self.imports = ConsoleImports()
        self.boundPort = Mutex(configuration.port)
    }

    /// The port the listener is bound to, once known (when it was asked to bind port 0).
    public func setPort(_ port: Int) { boundPort.withLock { $0 = port } }
    public var port: Int { boundPort.withLock { $0 } }

    /// The console's own origin, e.g. `http://127.0.0.1:8080`.
    public var origin: String { "http://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(port)" }

    /// A fresh one-time login link (valid for `AccessStore.consoleKeyLifetime`, once).
    public func loginURL() async throws -> String {
        "\(origin)/login?key=\(try await service.issueConsoleKey())"
    }

    /// The pages and actions, at `/` beside whatever else the router serves.
    /// Every route sits behind the console's Host check (``hostCheck()``), on a group of its own: whatever else the
    /// router serves keeps its own edge.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let routes = router.group().add(middleware: hostCheck())
        routes.get("/login") { request, _ in await self.login(request) }
        routes.post("/logout") { request, _ in await self.action(request) { session, _ in
            await self.sessions.end(session)
            var response = self.html(ConsolePage.layout(title: "Signed out", current: "", session: nil, body: """
                <h1>Signed out</h1><p>Run <code>healthbridge console</code> for a new one-time link.</p>
                """))
            response.headers[.setCookie] = "\(ConsoleSessions.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
            return response
        } }
        routes.get("/") { request, _ in await self.page(request) { try await self.overviewPage($0) } }
        routes.get("/data") { request, _ in await self.page(request) { try await self.dataPage($0, request: request) } }
        routes.get("/sources") { request, _ in await self.page(request) { try await self.sourcesPage($0) } }
        routes.post("/sources/move") { request, _ in await self.action(request) { _, form in try await self.moveSource(form) } }
        routes.get("/access") { request, _ in await self.page(request) { try await self.accessPage($0) } }
        routes.post("/access/decide") { request, _ in await self.action(request) { _, form in try await self.decide(form) } }
        routes.post("/access/revoke-device") { request, _ in await self.action(request) { _, form in try await self.revokeDevice(form) } }
        routes.post("/access/revoke-grants") { request, _ in await self.action(request) { _, form in try await self.revokeGrants(form) } }
        routes.post("/access/revoke-oauth") { request, _ in await self.action(request) { _, form in try await self.revokeOAuthClient(form) } }
        routes.get("/consent") { request, _ in await self.consentPage(request) }
        routes.post("/consent/decide") { request, _ in await self.action(request) { _, form in try await self.decideConsent(form) } }
        routes.get("/pairing") { request, _ in await self.page(request) { try await self.pairingPage($0, card: nil) } }
        routes.post("/pairing/sharing") { request, _ in await self.action(request) { _, form in try await self.setSharing(form) } }
        routes.post("/pairing/code") { request, _ in await self.action(request) { session, form in try await self.issueCode(session, form: form) } }
        routes.get("/people") { request, _ in await self.page(request) { try await self.peoplePage($0) } }
        routes.get("/people/:person/data") { request, context in
            let person = context.parameters.get("person") ?? ""
            return await self.page(request) { try await self.sharedDataPage($0, request: request, person: person) }
        }
        routes.post("/people/share") { request, _ in await self.action(request) { _, form in try await self.share(form) } }
        routes.post("/people/add") { request, _ in await self.action(request) { _, form in try await self.addPerson(form) } }
        routes.get("/audit") { request, _ in await self.page(request) { try await self.auditPage($0, request: request) } }
        routes.get("/import") { request, _ in await self.page(request) { try await self.importPage($0, request: request) } }
        routes.post("/import/upload") { request, _ in await self.upload(request) }
        routes.get("/import/status") { request, _ in await self.importStatus(request) }
        routes.get("/static/console.css") { request, _ in self.asset(request, ConsoleAssets.css, type: "text/css; charset=utf-8") }
        routes.get("/static/icon.svg") { request, _ in self.asset(request, ConsoleAssets.icon, type: "image/svg+xml") }
        routes.get("/favicon.ico") { request, _ in self.asset(request, ConsoleAssets.icon, type: "image/svg+xml") }
        routes.get("/static/console.js") { request, _ in self.asset(request, ConsoleAssets.js, type: "text/javascript; charset=utf-8") }
    }

    // MARK: Responses

    /// Headers every answer carries: nothing cached, referrers only to the console itself (a login link never leaks;
    /// `no-referrer` would make browsers send `Origin: null` on the console's own forms), no framing, only this
    /// origin's scripts and styles.
    static func baseHeaders(_ contentType: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        fields[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return fields
    }

    func html(_ body: HTML, status: HTTPResponse.Status = .ok, started: ContinuousClock.Instant? = nil) -> Response {
        var headers = Self.baseHeaders("text/html; charset=utf-8")
        if let started {
            let elapsed = ContinuousClock.now - started
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            headers[HTTPField.Name("Server-Timing")!] = String(format: "render;dur=%.2f", ms)
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body.text)))
    }

    func json(_ object: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder().encode(object)) ?? Data("{}".utf8)
        return Response(status: status, headers: Self.baseHeaders("application/json"),
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = Self.baseHeaders("text/plain; charset=utf-8")
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    func asset(_ request: Request, _ text: String, type: String) -> Response {
        var headers = Self.baseHeaders(type)
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// An error page (or JSON for the import endpoints) in the one vocabulary of ``HealthError``.
    /// The status is the one table's (``HealthError/Code/httpStatus``) unless the caller names another.
    func failure(_ error: HealthError, status: HTTPResponse.Status? = nil, session: ConsoleSession? = nil,
                 json asJSON: Bool = false) -> Response {
        let status = status ?? error.code.httpStatus
        if asJSON { return json(error.envelope, status: status) }
        let body: HTML = """
            <section class="error" role="alert"><h1>\(status.reasonPhrase)</h1><p>\(error.message)</p>
            <p class="code">\(error.code.rawValue)</p></section>
            """
        return html(ConsolePage.layout(title: status.reasonPhrase, current: "", session: session, body: body), status: status)
    }

    /// A GET page: Host checked, the session required, the page rendered; errors as an error page.
    func page(_ request: Request, _ render: @Sendable (ConsoleSession) async throws -> HTML) async -> Response {
        let started = ContinuousClock.now
        guard let session = await session(request) else { return loginRequired() }
        do {
            return html(try await render(session), started: started)
        } catch let error as HealthError {
            return failure(error, session: session)
        } catch {
            logger.error("console page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return failure(HealthError(.internalError, "the page could not be rendered"), status: .internalServerError,
                           session: session)
        }
    }

    /// A state-changing POST: Host, Origin, session and CSRF token checked before the form is read; the handler
    /// answers (usually a redirect back to the page).
    func action(_ request: Request,
                _ handle: @Sendable (ConsoleSession, ConsoleForm) async throws -> Response) async -> Response {
        if let refusal = originRefusal(request) { return refusal }
        guard let session = await session(request) else { return loginRequired() }
        guard let buffer = try? await request.body.collect(upTo: 64 << 10) else {
            return failure(HealthError(.payloadTooLarge, "a form is at most 64 KB"), status: .contentTooLarge, session: session)
        }
        let form = ConsoleForm(urlEncoded: String(buffer: buffer))
        guard ConsoleSessions.matches(form["csrf"], session.csrf) else {
            return failure(HealthError(.notAuthorized, "the form's CSRF token is missing or wrong: reload the page and try again"),
                           status: .forbidden, session: session)
        }
        do {
            return try await handle(session, form)
        } catch let error as HealthError {
            return failure(error, session: session)
        } catch {
            logger.error("console action failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return failure(HealthError(.internalError, "the change could not be made"), status: .internalServerError,
                           session: session)
        }
    }
}

/// A decoded `application/x-www-form-urlencoded` body or query string.
struct ConsoleForm: Sendable {
    var fields: [(String, String)] = []

    init(urlEncoded text: String) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
    }

    subscript(_ name: String) -> String? {
        fields.first { $0.0 == name }?.1
    }

    /// The field, trimmed; nil when missing or blank.
    func value(_ name: String) -> String? {
        guard let text = self[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }
}
