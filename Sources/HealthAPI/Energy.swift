import Foundation
import HealthModel

/// The days to add up: a range in the forms of ``DateRange`` (default: today).
public struct EnergyRequest: Codable, Sendable, Hashable {
    public var start: String?
    public var end: String?
    public var timeZone: String?

    public init(start: String? = nil, end: String? = nil, timeZone: String? = nil) {
        self.start = start; self.end = end; self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey { case start, end, timeZone = "time_zone" }
}

/// One day of ``HealthService/energy(_:)``.
public struct EnergyDay: Codable, Sendable, Hashable {
    /// The day, `yyyy-MM-dd` in the result's zone.
    public var date: String
    public var start: String
    public var end: String
    public var eatenKcal: Double?
    public var activeKcal: Double?
    /// Resting (basal) energy.
    public var basalKcal: Double?
    /// Total energy burned: active + basal, when both were recorded.
    public var burnedKcal: Double?
    /// Eaten − burned, when both are known.
    public var balanceKcal: Double?

    public init(date: String, start: String, end: String, eatenKcal: Double?, activeKcal: Double?, basalKcal: Double?) {
        self.date = date; self.start = start; self.end = end
        self.eatenKcal = eatenKcal; self.activeKcal = activeKcal; self.basalKcal = basalKcal
        if let activeKcal, let basalKcal { burnedKcal = activeKcal + basalKcal }
        if let eatenKcal, let burnedKcal { balanceKcal = eatenKcal - burnedKcal }
    }

    enum CodingKeys: String, CodingKey {
        case date, start, end, eatenKcal = "eaten_kcal", activeKcal = "active_kcal", basalKcal = "basal_kcal"
        case burnedKcal = "burned_kcal", balanceKcal = "balance_kcal"
    }
}

/// Energy in and out per day.
public struct EnergyResult: Codable, Sendable, Hashable {
    public var timeZone: String
    public var start: String
    public var end: String
    public var unit: String
    public var days: [EnergyDay]

    public init(timeZone: String, start: String, end: String, unit: String, days: [EnergyDay]) {
        self.timeZone = timeZone; self.start = start; self.end = end; self.unit = unit; self.days = days
    }

    enum CodingKeys: String, CodingKey { case timeZone = "time_zone", start, end, unit, days }
}

// MARK: - Schemas

extension EnergyRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "start": .string("Start of the range: a date expression (DateRange). Default today."),
        "end": .string("End of the range (exclusive). Default now."),
        "time_zone": .string("IANA zone of the days; default the home zone."),
    ])
}

extension EnergyDay: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "date": .string("The day, YYYY-MM-DD."),
        "start": .instant(),
        "end": .instant(),
        "eaten_kcal": .number(),
        "active_kcal": .number(),
        "basal_kcal": .number("Resting energy."),
        "burned_kcal": .number("active + basal, when both were recorded."),
        "balance_kcal": .number("eaten − burned, when both are known."),
    ], required: ["date", "start", "end"])
}

extension EnergyResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "unit": .string("Always kcal."),
        "days": .array(EnergyDay.jsonSchema),
    ], required: ["time_zone", "start", "end", "unit", "days"])
}
