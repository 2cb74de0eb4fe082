import Foundation
import HealthAPI
import HealthModel
import Testing
@testable import PairedAPI

/// Paused sharing is decided by the service alone: every health route of a paired device answers `423 locked`, with
/// the one message, whatever use case it reaches; `status` still answers.
@Suite("Paused sharing, every route")
struct PausedSharingTests {
    static let range = "start=2026-01-06T00:00:00Z&end=2026-01-10T00:00:00Z"

    /// Method, path and JSON body of every health route a paired device may call.
    static let routes: [(String, String, String?)] = [
        ("GET", "/api/v1/health/types", nil),
        ("GET", "/api/v1/health/data?types=stepCount&\(range)", nil),
        ("POST", "/api/v1/health/data", #"{"types":["stepCount"],"start":"2026-01-06T00:00:00Z","end":"2026-01-10T00:00:00Z"}"#),
        ("GET", "/api/v1/health/statistics?type=stepCount&\(range)", nil),
        ("GET", "/api/v1/health/coverage?type=stepCount&\(range)", nil),
        ("GET", "/api/v1/health/latest?type=stepCount", nil),
        ("GET", "/api/v1/health/sleep?\(range)", nil),
        ("GET", "/api/v1/health/workouts?\(range)", nil),
        ("GET", "/api/v1/health/workouts/\(UUID().uuidString)", nil),
        ("GET", "/api/v1/health/activity?\(range)", nil),
        ("GET", "/api/v1/health/sources", nil),
        ("GET", "/api/v1/health/sources?type=stepCount", nil),
        ("GET", "/api/v1/health/today", nil),
        ("GET", "/api/v1/health/energy?\(range)", nil),
        ("GET", "/api/v1/health/changes", nil),
        ("POST", "/api/v1/log/water", #"{"value":250,"unit":"mL"}"#),
        ("POST", "/api/v1/log/weight", #"{"value":70,"unit":"kg"}"#),
        ("DELETE", "/api/v1/log/no-such-log", nil),
        // A misspelt type or source answers with what the store has: while paused, that is locked too, never a list.
        ("GET", "/api/v1/health/statistics?type=stepz&\(range)", nil),
        ("GET", "/api/v1/health/statistics?type=stepCount&source=Nobody&\(range)", nil),
    ]

    @Test func everyHealthRouteIsLockedWhilePaused() async throws {
        try await Harness.inProcess { harness in
            try await harness.share(["*"])
            let device = try await harness.pairDevice()
            try harness.state.setSharingState(.paused)
            for (method, path, body) in Self.routes {
                let reply = try await harness.send(method, path, token: device.token,
                                                   headers: body == nil ? [] : [("Content-Type", "application/json")],
                                                   body: body.map { Array($0.utf8) })
                #expect(reply.status == 423, "\(method) \(path): \(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.json?["status"] == "locked", "\(method) \(path)")
                #expect(reply.errorCode == HealthError.Code.sharingPaused.rawValue, "\(method) \(path)")
                let message: String? = reply.json?["error"]?["message"]?.stringValue
                #expect(message == "sharing is paused on the server (`healthbridge sharing resume`)", "\(method) \(path)")
            }
            let status = try await harness.send("GET", "/api/v1/status", token: device.token)
            #expect(status.status == 200)
            #expect(status.json?["sharing"] == "paused")
        }
    }
}
