import HTTPTypes
import HealthAPI
import Foundation
import HealthModel
import HealthService
import HealthSupport
import Hummingbird

extension Console {
    /// Pairing: sharing on or stopped, the shared types, the certificate fingerprint clients pin, and on request a
    /// one-time pairing code with its QR code (as SVG) and expiry. What it shows of the paired API comes from
    /// ``ConsolePairing``.
    func pairingPage(_ session: ConsoleSession, card: PairingPayload?) async throws -> HTML {
        let sharing = try await service.sharingStatus()
        let shared = sharing.sharedTypes
        let fingerprint = try pairing.fingerprint()
        let running = pairing.listening()
        let switchForm: HTML = sharing.state == .active
            ? ConsolePage.form("/pairing/sharing", session: session, fields: [("state", "paused")], button: "Stop sharing", style: "danger")
            : ConsolePage.form("/pairing/sharing", session: session, fields: [("state", "active")], button: "Share again")
        // A code for a device, or one issued for an app id: only a client with such a code acts as `app:ID`.
        var cardHTML: HTML = """
            \(ConsolePage.form("/pairing/code", session: session, button: "New pairing code", label: "New pairing code for a device"))
            <form method="post" action="/pairing/code" class="inline" id="app-code-form"><input type="hidden" name="csrf" value="\(session.csrf)">\
            <label>App id <input name="app" id="app-id" placeholder="org.example.dietsync" pattern="[A-Za-z0-9._-]{1,128}" required></label>\
            <button type="submit">New pairing code for this app</button></form>
            """
        if let card {
            let qr = try QRCode.encode(Array(try card.json().utf8), level: .medium).svg(scale: 5)
            let svg = qr.range(of: "<svg").map { String(qr[$0.lowerBound...]) } ?? qr
            var others = 0
            if let app = card.appId { others = (try? await service.pairedClients(ofApp: app).count) ?? 0 }
            let forWhom: HTML = card.appId.map { app -> HTML in
                let note: HTML = others == 0 ? .empty
                    : " <strong id=\"pairing-app-note\">app:\(app) already has \(others) paired client(s): this code pairs another one.</strong>"
                return "<p id=\"pairing-app\">Issued for the app <code>\(app)</code>: the client that redeems it acts as <code>app:\(app)</code>.\(note)</p>"
            } ?? "<p id=\"pairing-app\">For a device: the client that redeems it acts as <code>device:ID</code>.</p>"
            cardHTML = """
                <div class="card" id="pairing-card">
                <div class="qr" role="img" aria-label="QR code of the pairing payload">\(HTML(raw: svg))</div>
                <p>Code <strong id="pairing-code" class="code">\(card.code)</strong>, expires <span id="pairing-expires">\(card.expires)</span>.</p>
                \(forWhom)
                <p>Scan it, or on the client run:</p><pre><code>healthbridge pair --host \(card.host) --port \(card.port) --code \(card.code) --fingerprint \(card.fingerprint)</code></pre>
                </div>\(cardHTML)
                """
        }
        let body: HTML = """
            <h1>Pairing</h1>
            <section aria-labelledby="sharing-h"><h2 id="sharing-h">Sharing</h2>
            <p>Sharing is <strong id="sharing-state">\(sharing.state == .active ? "on" : "stopped")</strong>\(running.map { info -> HTML in " on <code>\(info.host):\(info.port)</code>" } ?? " (the export API is not running)").</p>
            <p>Shared with every paired device: \(shared.summary) (change on the <a href="/access">Access</a> page or with <code>healthbridge sharing types</code>).</p>
            \(switchForm)</section>
            <section aria-labelledby="code-h"><h2 id="code-h">Pair a device</h2>
            <p>Certificate fingerprint (SHA-256) the device pins: <code id="fingerprint" class="wrap">\(fingerprint)</code></p>
            \(cardHTML)</section>
            """
        return ConsolePage.layout(title: "Pairing", current: "/pairing", session: session, body: body)
    }

    /// `POST /pairing/sharing`: stop or resume sharing.
    func setSharing(_ form: ConsoleForm) async throws -> Response {
        guard let value = form.value("state"), let state = SharingState(rawValue: value) else {
            throw HealthError(.invalidArgument, "state must be active or paused")
        }
        try await service.setSharing(state)
        logger.info("console: sharing \(state.rawValue)")
        return redirect("/pairing")
    }

    /// `POST /pairing/code`: a new one-time code, shown at once (never stored in clear); with a form field `app`, a
    /// code issued for that app id (its client acts as `app:ID`).
    func issueCode(_ session: ConsoleSession, form: ConsoleForm) async throws -> Response {
        let app = form.value("app")?.trimmingCharacters(in: .whitespaces)
        let appId = app?.isEmpty == false ? app : nil
        if let appId, !PairRequest.isValidAppId(appId) {
            throw HealthError(.invalidArgument, "an app id is 1 to 128 letters, digits, '.', '-' or '_'")
        }
        let fingerprint = try pairing.fingerprint()
        let address = pairing.listening() ?? pairing.fallback()
        let issued = try await service.issuePairingCode(lifetime: 300, appId: appId)
        let card = PairingPayload(host: address.host, port: address.port, fingerprint: fingerprint, code: issued.code,
                                  expires: ISO8601.string(issued.expires), appId: appId)
        return html(try await pairingPage(session, card: card))
    }
}
