import HTTPTypes
import Foundation
import HealthAPI
import HealthModel
import HealthService
import Hummingbird

extension Console {
    static let auditPageSize = 50

    /// Audit: what paired devices did (pairing, requests, reads, writes), newest first, filtered by client, kind and
    /// time, 50 to a page. Entries name clients by hash and hold no health value.
    func auditPage(_ session: ConsoleSession, request: Request) async throws -> HTML {
        let query = ConsoleForm(urlEncoded: request.uri.query ?? "")
        let clients = try await service.pairedClients()
        var filter = AuditQuery(limit: Self.auditPageSize)
        filter.client = query.value("client")
        filter.event = query.value("event").flatMap(AuditEvent.Kind.init(rawValue:))
        filter.beforeId = query.value("before").flatMap(Int64.init)
        let since = query.value("since"), until = query.value("until")
        if since != nil || until != nil {
            // Dates are read by the service, as everywhere (`7d`, `2026-11-01`, `yesterday`…).
            let range = try service.range(start: since, end: until, defaultStart: "10y")
            if since != nil { filter.since = range.start }
            if until != nil { filter.until = range.end }
        }
        let events = try await service.auditEvents(filter)
        let names = Dictionary(clients.map { ($0.auditId, $0.name) }, uniquingKeysWith: { a, _ in a })
        // Each client with the principal it acts as (`app:ID` or `device:ID`).
        let principals = Dictionary(clients.map { ($0.auditId, $0.principal.id) }, uniquingKeysWith: { a, _ in a })
        let rows = events.map { event -> [HTML] in
            let who: HTML = event.client.map { hash -> HTML in
                "\(names[hash] ?? "unknown") <code>\(principals[hash] ?? "?")</code> <code>\(hash)</code>"
            } ?? "–"
            var detail: [String] = []
            if let action = event.detail?.action { detail.append(action) }
            if let principal = event.detail?.principal { detail.append(principal) }
            if let types = event.detail?.types { detail.append(types.joined(separator: ", ")) }
            if let count = event.detail?.sampleCount { detail.append("\(count) samples") }
            if let reason = event.detail?.reason { detail.append(reason) }
            if let count = event.detail?.count, count > 1 { detail.append("×\(count)") }
            if let name = event.detail?.clientName { detail.append("as “\(name)”") }
            return ["\(time(event.at))", "\(event.event.rawValue)", who, "\(event.address ?? "–")",
                    "\(event.method ?? "") \(event.route ?? "")", "\(event.status.map { String($0) } ?? "–")",
                    "\(event.decision?.rawValue ?? "–")", "\(detail.joined(separator: "; "))"]
        }
        func option(_ value: String, _ label: String, _ selected: String?) -> HTML {
            value == (selected ?? "") ? "<option value=\"\(value)\" selected>\(label)</option>" : "<option value=\"\(value)\">\(label)</option>"
        }
        let clientOptions = [option("", "every client", filter.client)] + clients.map { option($0.auditId, $0.name, filter.client) }
        let eventOptions = [option("", "every action", query.value("event"))]
            + AuditEvent.Kind.allCases.map { option($0.rawValue, $0.rawValue, query.value("event")) }
        var next: HTML = .empty
        if events.count == Self.auditPageSize, let last = events.last?.id {
            var items = query.fields.filter { $0.0 != "before" }
            items.append(("before", String(last)))
            let link = items.map { item -> String in "\(Self.percent(item.0))=\(Self.percent(item.1))" }.joined(separator: "&")
            next = "<p><a href=\"/audit?\(link)\" rel=\"next\">Older entries</a></p>"
        }
        let body: HTML = """
            <h1>Audit</h1>
            <form method="get" action="/audit" class="filters">
            <label>Client <select name="client">\(clientOptions)</select></label>
            <label>Action <select name="event">\(eventOptions)</select></label>
            <label>From <input name="since" value="\(since ?? "")" placeholder="7d or 2026-11-01"></label>
            <label>To <input name="until" value="\(until ?? "")" placeholder="now"></label>
            <button type="submit">Filter</button></form>
            \(events.isEmpty ? "<p>No entries.</p>" : ConsolePage.table(id: "audit", ["Time", "Action", "Client", "Address", "Request", "Status", "Decision", "Detail"], rows))
            \(next)
            """
        return ConsolePage.layout(title: "Audit", current: "/audit", session: session, body: body)
    }

    static func percent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
