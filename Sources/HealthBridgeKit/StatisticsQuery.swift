import Foundation
import HealthModel

/// What ``HealthBridgeManager/statistics(_:)`` asks (`GET /api/v1/health/statistics`). Dates are the server's
/// expressions (`today`, `now`, `7d`, ISO dates and instants), resolved in its home zone.
///
/// ```swift
/// let today = try await manager.statistics(StatisticsQuery(type: .stepCount, start: "today", end: "now", interval: "total"))
/// ```
public struct StatisticsQuery: Codable, Sendable, Hashable {
    public var type: HealthDataType
    public var start: String?
    public var end: String?
    public var interval: String?
    public var statistics: [String]?
    public var unit: String?
    public var timeZone: String?

    public init(type: HealthDataType, start: String? = nil, end: String? = nil, interval: String? = nil,
                statistics: [String]? = nil, unit: String? = nil, timeZone: String? = nil) {
        self.type = type; self.start = start; self.end = end; self.interval = interval; self.statistics = statistics
        self.unit = unit; self.timeZone = timeZone
    }

    var query: [(String, String)] {
        var items = [("type", type.rawValue)]
        if let start { items.append(("start", start)) }
        if let end { items.append(("end", end)) }
        if let interval { items.append(("interval", interval)) }
        if let statistics { items.append(("statistics", statistics.joined(separator: ","))) }
        if let unit { items.append(("unit", unit)) }
        if let timeZone { items.append(("time_zone", timeZone)) }
        return items
    }
}
