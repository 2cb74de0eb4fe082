import HealthAPI
import Foundation
import HealthAccess
import HealthModel

/// The audit log (owner only): pairings, requests, data reads and writes, consent changes — never a health value.
extension HealthService {
    /// Audit entries matching `query`, newest first, at most `query.limit` (1…500) (owner only).
    ///
    /// ```swift
    /// let page = try await service.auditEvents(AuditQuery(event: .dataRead, limit: 50))
    /// let next = try await service.auditEvents(AuditQuery(event: .dataRead, beforeId: page.last?.id, limit: 50))
    /// ```
    public func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        try ownerAccess("read the audit log").auditEvents(query)
    }

    /// The newest `limit` audit entries, oldest first (owner only).
    ///
    /// ```swift
    /// for event in try await service.recentAuditEvents(limit: 50) { print(event.event.rawValue) }
    /// ```
    public func recentAuditEvents(limit: Int = 100) async throws -> [AuditEvent] {
        try ownerAccess("read the audit log").auditEvents(limit: limit)
    }
}
