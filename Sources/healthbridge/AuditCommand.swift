import HealthAPI
import ArgumentParser
import Foundation
import HealthAccess
import HealthModel
import HealthService

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "The audit log: pairings, requests, data reads and writes, consent changes, without health values.",
        discussion: """
            Events: pair.success, pair.failure, api.request (route, status, allowed/denied), data.read (types, sample \
            count, range), data.write and data.delete (types, count), access.request (an app's request), \
            consent.change (grants.update, access.approve, access.deny, device.revoke, ingest_token.revoke, \
            sharing.paused, sharing.active). Clients appear as a hash (the audit id of `healthbridge clients list`) with the \
            principal they act as (app:ID or device:ID).
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "How many of the newest events.") var limit = 50
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 100000") }
    }

    func run() async throws {
        let service = try await store.openService()
        let events = try await service.recentAuditEvents(limit: limit)
        if json {
            try Output.json(events)
            return
        }
        if events.isEmpty {
            print("The audit log is empty.")
            return
        }
        // Each client hash with the principal that client acts as (`app:ID` or `device:ID`).
        let principals = Dictionary(try await service.pairedClients().map { ($0.auditId, $0.principal.id) }, uniquingKeysWith: { a, _ in a })
        Output.table(["time", "event", "request", "client", "acts as", "address", "route", "status", "decision", "detail"], events.map { event in
            [ISO8601.string(event.at, timeZone: .current), event.event.rawValue, event.requestId ?? "", event.client ?? "",
             event.client.flatMap { principals[$0] } ?? "",
             event.address ?? "", [event.method, event.route].compactMap { $0 }.joined(separator: " "),
             event.status.map(String.init) ?? "", event.decision?.rawValue ?? "", AuditCommand.describe(event.detail)]
        })
    }

    static func describe(_ detail: AuditEvent.Detail?) -> String {
        guard let detail else { return "" }
        var parts: [String] = []
        if let action = detail.action { parts.append("action=\(action)") }
        if let principal = detail.principal { parts.append("principal=\(principal)") }
        if let types = detail.types { parts.append("types=\(types.joined(separator: ","))") }
        if let count = detail.sampleCount { parts.append("samples=\(count)") }
        if let start = detail.start, let end = detail.end { parts.append("range=\(start)…\(end)") }
        if let reason = detail.reason { parts.append("reason=\(reason)") }
        if let name = detail.clientName { parts.append("name=\(name)") }
        return parts.joined(separator: " ")
    }
}
