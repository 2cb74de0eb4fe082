import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel
import HealthService
import Testing
@testable import PairedAPI

/// Issue 21, finding 8: every read on the paired API leaves a `data.read` audit entry naming the types read and how
/// many objects were answered — never a health value (the harness checks the whole log for values when it stops).
@Suite("Audit of every read")
struct ReadAuditTests {
    @Test func everyReadEndpointLeavesADataReadEntry() async throws {
        try await Harness.inProcess { harness in
            try await harness.share(["stepCount", "heartRate", "workout", "sleepAnalysis"])
            let device = try await harness.pairDevice()
            let token = device.token
            let reads: [(path: String, type: String)] = [
                ("/api/v1/health/statistics?type=stepCount&start=2026-01-07&end=2026-01-09", "stepCount"),
                ("/api/v1/health/latest?type=heartRate", "heartRate"),
                ("/api/v1/health/changes?types=stepCount&limit=5", "stepCount"),
                ("/api/v1/health/sources?type=stepCount", "stepCount"),
                ("/api/v1/health/sleep?start=2026-01-06&end=2026-01-09", "sleepAnalysis"),
                ("/api/v1/health/workouts?start=2026-01-06&end=2026-01-09", "workout"),
                ("/api/v1/health/today", "stepCount"),
                ("/api/v1/health/types", "stepCount"),
            ]
            for read in reads {
                let reply = try await harness.send("GET", read.path, token: token)
                #expect(reply.status == 200, "\(read.path)")
                let requestId = try #require(reply.headers.first { $0.0.lowercased() == "x-request-id" }?.1)
                let entries = try harness.state.auditEvents(limit: 1_000).filter { $0.requestId == requestId }
                let entry = entries.first { $0.event == .dataRead }
                #expect(entry != nil, "no data.read entry for \(read.path)")
                #expect(entry?.detail?.types?.contains(read.type) == true, "\(read.path): \(String(describing: entry?.detail))")
                #expect(entry?.detail?.sampleCount != nil)
                #expect(entry?.detail?.principal == "device:\(device.clientId)")
            }
        }
    }
}
