import Foundation
import HealthService
import Logging

/// Writes the service's write and delete entries into the audit log of a data directory (`export.sqlite`), durably,
/// before the write answers: what the CLI, MCP and the OpenClaw node report to. A paired device appears as the hash
/// of its client id, as everywhere in the audit log.
///
/// ```swift
/// let service = try await HealthService.open(store: store).auditing(to: ExportAuditor(state: ExportState.open(home: home)))
/// ```
public struct ExportAuditor: HealthAuditor {
    public let state: ExportState
    public let logger: Logger

    public init(state: ExportState, logger: Logger = Logger(label: "healthbridge.audit")) {
        self.state = state
        self.logger = logger
    }

    public func record(_ entry: WriteAuditEntry) async {
        let client = entry.principal.kind == .device ? ExportState.clientHash(entry.principal.name) : entry.principal.id
        let event = AuditEvent(event: entry.action == .write ? .dataWrite : .dataDelete, client: client,
                               detail: .init(types: entry.types, sampleCount: entry.count, batch: entry.detail))
        do {
            try await state.append([event])
        } catch {
            logger.error("audit entry not written: \(String(describing: type(of: error)))")
        }
    }

    public func record(_ change: ConsentAuditEntry) async {
        let event = AuditEvent(event: .consentChange, client: change.actor.id,
                               detail: .init(types: change.types, action: change.action, principal: change.target))
        do {
            try await state.append([event])
        } catch {
            logger.error("audit entry not written: \(String(describing: type(of: error)))")
        }
    }
}
