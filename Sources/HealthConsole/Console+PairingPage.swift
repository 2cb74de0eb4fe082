import HTTPTypes
import ExportClient
import ExportServer
import Foundation
import HealthModel
import HealthService
import Hummingbird

extension Console {
    /// Pairing: sharing on or stopped, the shared types, the certificate fingerprint clients pin, and on request a
    /// one-time pairing code with its QR code (the export server's encoder, as SVG) and expiry.
    func pairingPage(_ session: ConsoleSession, card: PairingPayload?) async throws -> HTML {
        let sharing = try await state.currentSharing()
        let shared = try await service.grants(for: .allDevices).read
        let identity = try ExportIdentity.loadOrCreate(home: home.directory).0
        let running = RuntimeInfo.load(home: home.directory)
        let switchForm: HTML = sharing.state == .active
            ? ConsolePage.form("/pairing/sharing", session: session, fields: [("state", "paused")], button: "Stop sharing", style: "danger")
            : ConsolePage.form("/pairing/sharing", session: session, fields: [("state", "active")], button: "Share again")
        var cardHTML: HTML = ConsolePage.form("/pairing/code", session: session, button: "New pairing code")
        if let card {
            let qr = try QRCode.encode(Array(try card.json().utf8), level: .medium).svg(scale: 5)
            let svg = qr.range(of: "<svg").map { String(qr[$0.lowerBound...]) } ?? qr
            cardHTML = """
                <div class="card" id="pairing-card">
                <div class="qr" role="img" aria-label="QR code of the pairing payload">\(HTML(raw: svg))</div>
                <p>Code <strong id="pairing-code" class="code">\(card.code)</strong>, expires <span id="pairing-expires">\(card.expires)</span>.</p>
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
            <p>Certificate fingerprint (SHA-256) the device pins: <code id="fingerprint" class="wrap">\(identity.fingerprint)</code></p>
            \(cardHTML)</section>
            """
        return ConsolePage.layout(title: "Pairing", current: "/pairing", session: session, body: body)
    }

    /// `POST /pairing/sharing`: stop or resume sharing.
    func setSharing(_ form: ConsoleForm) async throws -> Response {
        guard let value = form.value("state"), let state = SharingState(rawValue: value) else {
            throw HealthError(.invalidArgument, "state must be active or paused")
        }
        try self.state.setSharingState(state)
        logger.info("console: sharing \(state.rawValue)")
        return redirect("/pairing")
    }

    /// `POST /pairing/code`: a new one-time code, shown at once (never stored in clear).
    func issueCode(_ session: ConsoleSession) async throws -> Response {
        let identity = try ExportIdentity.loadOrCreate(home: home.directory).0
        let running = RuntimeInfo.load(home: home.directory)
        let card = try PairingCard.issue(state: state, identity: identity,
                                         host: running?.host ?? RuntimeInfo.advertisedHost(bind: "0.0.0.0"),
                                         port: running?.port ?? ExportAPI.defaultPort, lifetime: 300)
        return html(try await pairingPage(session, card: card))
    }
}
