import Foundation
import HTTPTypes
import HealthAPI
import HealthModel
import HealthService
import Hummingbird

/// The OAuth consent screen of the MCP endpoint: where an agent's authorization request (`/oauth/authorize`) sends
/// the person. It shows the client's name and where its metadata came from, the types it asks to read and write,
/// each a checkbox (every type, unticked, where the client let the person choose), and approve / deny. What the person
/// approves becomes the grants of the client's principal `mcp:<client>`; the browser then goes back to the client.
extension Console {
    /// `GET /consent?request=ID`.
    func consentPage(_ request: Request) async -> Response {
        guard let session = await session(request) else {
            return failure(HealthError(.unauthenticated,
                                       "An app asks for access to your health data. Sign in to the console first (run `healthbridge console` for a one-time link), then open this page again from the app."),
                           status: .unauthorized)
        }
        let id = ConsoleForm(urlEncoded: request.uri.query ?? "").value("request") ?? ""
        let consent: OAuthConsent
        do {
            consent = try await service.oauthConsent(id: id)
        } catch let error as HealthError {
            return failure(error, session: session)
        } catch {
            return failure(HealthError(.internalError, "the request could not be read"), status: .internalServerError, session: session)
        }
        var response = html(ConsolePage.layout(title: "Allow access?", current: "", session: session,
                                               body: Self.consentBody(consent, session: session)))
        // The form's answer sends the browser on to the client: the page may submit there (CSP form-action applies to
        // the redirect after a form too).
        if let target = Self.formTarget(consent.request.redirectURI) {
            let name = HTTPField.Name("Content-Security-Policy")!
            response.headers[name] = response.headers[name]?.replacingOccurrences(of: "form-action 'self'",
                                                                                  with: "form-action 'self' \(target)")
        }
        return response
    }

    /// The origin (or the private-use scheme) of a redirect URI, as a CSP source.
    static func formTarget(_ redirectURI: String) -> String? {
        guard let components = URLComponents(string: redirectURI), let scheme = components.scheme?.lowercased(),
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "+" || $0 == "-" }) else { return nil }
        guard let host = components.host, !host.isEmpty else { return scheme + ":" }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "[" || $0 == "]" }) else {
            return nil
        }
        return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")"
    }

    static func consentBody(_ consent: OAuthConsent, session: ConsoleSession) -> HTML {
        let client = consent.client
        let source: HTML = client.source == .metadataDocument
            ? "Its description was fetched from <code>\(client.clientID)</code>."
            : "It registered itself with this server (client id <code>\(client.clientID)</code>)."
        let returnTo = URLComponents(string: consent.request.redirectURI)?.host ?? consent.request.redirectURI
        let already: HTML = consent.currentGrants == nil ? .empty
            : "<p class=\"note\">This app has access already; what you approve now replaces it.</p>"
        func boxes(_ direction: String, asked: [String], choose: Bool) -> HTML {
            let offered = choose ? asked + OAuthScope.offerableTypes.filter { !asked.contains($0) } : asked
            guard !offered.isEmpty else { return "<p>Nothing.</p>" }
            return HTML.join(offered.map { type -> HTML in
                let checked: HTML = asked.contains(type) ? " checked" : .empty
                return "<label class=\"choice\"><input type=\"checkbox\" name=\"\(direction)\" value=\"\(type)\"\(checked)> \(type)</label>"
            })
        }
        return """
            <h1>Allow “\(client.name)” to use your health data?</h1>
            <section aria-labelledby="client-h"><h2 id="client-h">Who asks</h2>
            <p><strong>\(client.name)</strong>. \(source)</p>
            <p>After your answer you go back to <code>\(returnTo)</code>. It will act as <code>\(client.principal.id)</code>
            in the <a href="/access">Access</a> page and the <a href="/audit">audit log</a>; you can revoke it there at any time.</p>
            \(already)</section>
            <form method="post" action="/consent/decide" id="consent-form">
            <input type="hidden" name="csrf" value="\(session.csrf)">
            <input type="hidden" name="request" value="\(consent.id)">
            <fieldset id="consent-read"><legend>It may read</legend>\(boxes("read", asked: consent.scope.read, choose: consent.scope.chooseRead))</fieldset>
            <fieldset id="consent-write"><legend>It may write</legend>\(boxes("write", asked: consent.scope.write, choose: consent.scope.chooseWrite))</fieldset>
            <p>Types you leave unticked look empty to it, as if nothing was recorded.</p>
            <button type="submit" name="decision" value="approve" id="consent-approve">Allow the ticked types</button>
            <button type="submit" name="decision" value="deny" class="secondary" id="consent-deny">Deny</button>
            </form>
            """
    }

    /// `POST /consent/decide`: the person's answer; the browser goes back to the client.
    func decideConsent(_ form: ConsoleForm) async throws -> Response {
        guard let id = form.value("request"), let decision = form.value("decision"),
              decision == "approve" || decision == "deny" else {
            throw HealthError(.invalidArgument, "name the request and a decision (approve or deny)")
        }
        let read = form.fields.filter { $0.0 == "read" }.map(\.1)
        let write = form.fields.filter { $0.0 == "write" }.map(\.1)
        let location = try await service.oauthDecide(id: id, approve: decision == "approve", read: read, write: write)
        logger.info("console: OAuth consent decided", metadata: ["decision": "\(decision)"])
        return redirect(location)
    }

    /// The OAuth clients on the Access page: who, where its metadata came from, its live tokens, and revoke.
    func oauthClientsSection(_ session: ConsoleSession) async throws -> HTML {
        let clients = try await service.oauthClients()
        let rows = clients.map { summary -> [HTML] in
            let client = summary.client
            let action: HTML = client.revokedAt != nil
                ? "revoked \(time(client.revokedAt))"
                : ConsolePage.form("/access/revoke-oauth", session: session, fields: [("client", client.clientID)],
                                   button: "Revoke", label: "Revoke \(client.name)", style: "danger")
            return ["\(client.name)", "<code>\(client.principal.id)</code>",
                    client.source == .metadataDocument ? "<code>\(client.clientID)</code>" : "registered",
                    "\(summary.grants?.read.summary ?? "none")", "\(summary.grants?.write.summary ?? "none")",
                    "\(summary.activeTokens)", action]
        }
        return """
            <section aria-labelledby="oauth-h"><h2 id="oauth-h">Apps authorized with OAuth (MCP)</h2>
            \(rows.isEmpty ? "<p>None yet. An MCP client that connects with OAuth asks here first.</p>" : ConsolePage.table(id: "oauth-clients", ["App", "Acts as", "Metadata", "Read", "Write", "Live tokens", ""], rows))</section>
            """
    }

    /// `POST /access/revoke-oauth`: the client's tokens stop working and its grants are withdrawn.
    func revokeOAuthClient(_ form: ConsoleForm) async throws -> Response {
        guard let id = form.value("client") else { throw HealthError(.invalidArgument, "name the client to revoke") }
        guard try await service.revokeOAuthClient(id) != nil else { throw HealthError(.notFound, "no OAuth client \(id)") }
        logger.info("console: OAuth client revoked")
        return redirect("/access")
    }
}
