import HTTPTypes
import Foundation
import HealthAPI
import HealthModel
import HealthService
import Hummingbird

extension Console {
    /// Access: requests waiting for the owner (with each type's reason), every principal's read and write grants,
    /// the paired devices with revoke buttons, and the requests already decided.
    func accessPage(_ session: ConsoleSession) async throws -> HTML {
        let requests = try await service.accessRequests().requests
        let grants = try await service.listGrants().principals
        let clients = try await service.pairedClients()
        let pending = requests.filter { $0.status == .pending }.map { request -> HTML in
            let reasons = (request.read + request.write).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                .map { type -> HTML in "<li><strong>\(type)</strong>: \(request.reasons[type] ?? "no reason given")</li>" }
            return """
                <article class="request" id="request-\(request.id)" aria-labelledby="rq-\(request.id)">
                <h3 id="rq-\(request.id)">\(request.principal)\(Self.filedBy(request, clients))</h3>
                <p>asks to read <strong>\(Self.list(request.read))</strong> and to write <strong>\(Self.list(request.write))</strong> (asked \(request.createdAt)).</p>
                <ul class="reasons">\(reasons)</ul>
                \(ConsolePage.form("/access/decide", session: session, fields: [("id", request.id), ("decision", "approve")], button: "Approve", label: "Approve the request of \(request.principal)"))
                \(ConsolePage.form("/access/decide", session: session, fields: [("id", request.id), ("decision", "deny")], button: "Deny", label: "Deny the request of \(request.principal)", style: "secondary"))
                </article>
                """
        }
        let principals = grants.map { entry -> [HTML] in
            let revoke: HTML = entry.principal == "owner" || (entry.grants.read.isEmpty && entry.grants.write.isEmpty)
                ? .empty
                : ConsolePage.form("/access/revoke-grants", session: session, fields: [("principal", entry.principal)],
                                   button: "Revoke grants", label: "Revoke every grant of \(entry.principal)", style: "secondary")
            return ["<code>\(entry.principal)</code>", "\(entry.read)", "\(entry.write)",
                    "\(entry.explicit ? "set by you" : "default")", revoke]
        }
        let devices = clients.map { client -> [HTML] in
            let action: HTML = client.isRevoked
                ? "revoked \(time(client.revokedAt))"
                : ConsolePage.form("/access/revoke-device", session: session, fields: [("id", client.id)], button: "Revoke",
                                   label: "Revoke \(client.name)", style: "danger")
            // The principal the client acts as: what its grants and requests are under.
            return ["\(client.name)", "<code>\(client.principal.id)</code>", "<code>\(client.id)</code>",
                    "\(time(client.createdAt))", "\(time(client.lastSeenAt))", action]
        }
        let decided = requests.filter { $0.status != .pending }.prefix(20).map { request -> [HTML] in
            ["<code>\(request.principal)</code>", "\(request.status.rawValue)", "\(Self.list(request.grantedRead))",
             "\(Self.list(request.grantedWrite))", "\(request.decidedAt ?? "–")"]
        }
        let body: HTML = """
            <h1>Access</h1>
            <section aria-labelledby="pending-h"><h2 id="pending-h">Waiting for you</h2>
            \(pending.isEmpty ? "<p id=\"no-pending\">No access request is waiting.</p>" : HTML.join(pending))</section>
            <section aria-labelledby="principals-h"><h2 id="principals-h">Who may read and write what</h2>
            \(ConsolePage.table(id: "principals", ["Principal", "Read", "Write", "Grants", ""], principals))</section>
            <section aria-labelledby="devices-h"><h2 id="devices-h">Paired clients</h2>
            \(devices.isEmpty ? "<p>No paired client. Pair one on the <a href=\"/pairing\">Pairing</a> page.</p>" : ConsolePage.table(id: "devices", ["Name", "Acts as", "Client id", "Paired", "Last seen", ""], devices))</section>
            \(try await oauthClientsSection(session))
            <section aria-labelledby="decided-h"><h2 id="decided-h">Decided requests</h2>
            \(decided.isEmpty ? "<p>None yet.</p>" : ConsolePage.table(id: "decided", ["Principal", "Decision", "Read granted", "Write granted", "Decided"], Array(decided)))</section>
            """
        return ConsolePage.layout(title: "Access", current: "/access", session: session, body: body)
    }

    /// ` (client NAME, ID)` when a paired client filed the request: each client of an app asks for itself.
    static func filedBy(_ request: AccessRequest, _ clients: [PairedClient]) -> String {
        guard let id = request.client else { return "" }
        let name = clients.first { $0.id == id }?.name
        return " (client \(name.map { "“\($0)”, " } ?? "")\(id))"
    }

    static func list(_ types: [String]) -> String { types.isEmpty ? "nothing" : types.joined(separator: ", ") }

    /// An instant in the store's home zone, to the second: `2026-11-25 03:57:24+01:00`.
    func time(_ date: Date?) -> String {
        guard let date else { return "–" }
        var text = ISO8601.string(date, timeZone: service.homeTimeZone).replacingOccurrences(of: "T", with: " ")
        if let dot = text.firstIndex(of: "."), let zone = text[dot...].firstIndex(where: { $0 == "Z" || $0 == "+" || $0 == "-" }) {
            text.removeSubrange(dot..<zone)
        }
        return text
    }

    /// `POST /access/decide`: approve or deny a pending request.
    func decide(_ form: ConsoleForm) async throws -> Response {
        guard let id = form.value("id"), let decision = form.value("decision"), decision == "approve" || decision == "deny" else {
            throw HealthError(.invalidArgument, "name a request and a decision (approve or deny)")
        }
        let decided = try await service.decideAccessRequest(AccessDecision(id: id, approve: decision == "approve"))
        logger.info("console: access request decided", metadata: ["principal": "\(decided.principal)", "decision": "\(decision)"])
        return redirect("/access")
    }

    /// `POST /access/revoke-device`: the paired device's token stops working at once.
    func revokeDevice(_ form: ConsoleForm) async throws -> Response {
        guard let id = form.value("id") else { throw HealthError(.invalidArgument, "name the device to revoke") }
        guard let client = try await service.revokePairedClient(id) else { throw HealthError(.notFound, "no paired device \(id)") }
        logger.info("console: paired device revoked", metadata: ["client": "\(client.auditId)"])
        return redirect("/access")
    }

    /// `POST /access/revoke-grants`: the principal keeps no read or write grant.
    func revokeGrants(_ form: ConsoleForm) async throws -> Response {
        guard let principal = form.value("principal") else { throw HealthError(.invalidArgument, "name the principal") }
        try await service.updateGrants(GrantsUpdate(principal: principal, deny: ["*"]))
        logger.info("console: grants revoked", metadata: ["principal": "\(principal)"])
        return redirect("/access")
    }
}
