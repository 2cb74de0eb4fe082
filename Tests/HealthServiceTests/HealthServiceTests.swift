import Foundation
import HealthBridgeTesting
import HealthModel
@testable import HealthService

/// The demo world many service tests read: ten days of data (seed 3) ending 2024-06-30 15:30 UTC.
enum HealthServiceTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let now = ISO8601.date("2024-06-30T15:30:00Z")!

    static func demoService() async throws -> HealthService {
        try await DemoWorld(days: 10, seed: 3, end: now, zone: utc).service()
    }
}
