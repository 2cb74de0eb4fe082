import HealthAPI
import Foundation
import HealthAccess
import HealthModel
import Logging

/// Writes the service's write, delete and consent entries into the audit log of its access state (`export.sqlite`),
/// durably, before the write answers: what the CLI, MCP and the OpenClaw node report to. A paired device appears as
/// the hash of its client id, as everywhere in the audit log. Set by ``HealthService/withAccess(_:logger:)``.
struct AccessAuditor: HealthAuditor {
    let access: AccessStore
    let logger: Logger

    init(access: AccessStore, logger: Logger = Logger(label: "healthbridge.audit")) {
        self.access = access
        self.logger = logger
    }

    func record(_ entry: WriteAuditEntry) async {
        let client = entry.principal.kind == .device ? AccessStore.clientHash(entry.principal.name) : entry.principal.id
        let event = AuditEvent(event: entry.action == .write ? .dataWrite : .dataDelete, client: client,
                               detail: .init(types: entry.types, sampleCount: entry.count, batch: entry.detail))
        do {
            try await access.append([event])
        } catch {
            logger.error("audit entry not written: \(String(describing: type(of: error)))")
        }
    }

    func record(_ change: ConsentAuditEntry) async {
        let event = AuditEvent(event: .consentChange, client: change.actor.id,
                               detail: .init(types: change.types, action: change.action, principal: change.target))
        do {
            try await access.append([event])
        } catch {
            logger.error("audit entry not written: \(String(describing: type(of: error)))")
        }
    }
}
