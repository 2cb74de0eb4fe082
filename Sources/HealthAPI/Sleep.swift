import Foundation
import HealthModel

/// Sleep per night, attributed to the day the person woke up.
///
/// ```swift
/// let week = try await service.sleep(SleepRequest(start: "7d"))
/// week.nights.last?.asleepMinutes   // 431.5
/// ```
public struct SleepRequest: Codable, Sendable, Hashable {
    /// Default `7d`: the nights ending on each of the last seven days, today's included. The range selects wake-up
    /// days (see ``DateRange/days(in:)``): an end at midnight leaves that day's night out.
    public var start: String?
    public var end: String?
    public var timeZone: String?
    public var cursor: String?

    public init(start: String? = nil, end: String? = nil, timeZone: String? = nil, cursor: String? = nil) {
        self.start = start; self.end = end; self.timeZone = timeZone; self.cursor = cursor
    }

    /// Wake-up days per page.
    public static let pageDays = 366
}

public struct SleepResult: Codable, Sendable, Hashable {
    public var timeZone: String
    public var start: String
    public var end: String
    /// Nights with data in this page.
    public var count: Int
    public var nights: [SleepNightRecord]
    /// Average over the nights of this page.
    public var averageAsleepMinutes: Double?
    public var merged: Bool
    public var mergeNote: String
    public var hasMore: Bool
    public var nextCursor: String?

    public init(timeZone: String, start: String, end: String, count: Int, nights: [SleepNightRecord],
                averageAsleepMinutes: Double? = nil, merged: Bool, mergeNote: String, hasMore: Bool,
                nextCursor: String? = nil) {
        self.timeZone = timeZone; self.start = start; self.end = end; self.count = count; self.nights = nights
        self.averageAsleepMinutes = averageAsleepMinutes; self.merged = merged; self.mergeNote = mergeNote
        self.hasMore = hasMore; self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case timeZone = "time_zone", start, end, count, nights, averageAsleepMinutes = "average_asleep_minutes"
        case merged, mergeNote = "merge_note", hasMore = "has_more", nextCursor = "next_cursor"
    }
}

/// One night. Minutes to a tenth.
public struct SleepNightRecord: Codable, Sendable, Hashable {
    /// The wake-up day, `YYYY-MM-DD`.
    public var date: String
    public var bedtime: String?
    public var wakeTime: String?
    public var inBedMinutes: Double
    /// Core + deep + REM + unspecified.
    public var asleepMinutes: Double
    public var coreMinutes: Double
    public var deepMinutes: Double
    public var remMinutes: Double
    /// Asleep without a stage (older devices).
    public var unspecifiedMinutes: Double
    public var awakeMinutes: Double
    public var sources: [String]

    public init(date: String, bedtime: String? = nil, wakeTime: String? = nil, inBedMinutes: Double,
                asleepMinutes: Double, coreMinutes: Double, deepMinutes: Double, remMinutes: Double,
                unspecifiedMinutes: Double, awakeMinutes: Double, sources: [String]) {
        self.date = date; self.bedtime = bedtime; self.wakeTime = wakeTime; self.inBedMinutes = inBedMinutes
        self.asleepMinutes = asleepMinutes; self.coreMinutes = coreMinutes; self.deepMinutes = deepMinutes
        self.remMinutes = remMinutes; self.unspecifiedMinutes = unspecifiedMinutes; self.awakeMinutes = awakeMinutes
        self.sources = sources
    }

    enum CodingKeys: String, CodingKey {
        case date, bedtime, wakeTime = "wake_time", inBedMinutes = "in_bed_minutes", asleepMinutes = "asleep_minutes"
        case coreMinutes = "core_minutes", deepMinutes = "deep_minutes", remMinutes = "rem_minutes"
        case unspecifiedMinutes = "unspecified_minutes", awakeMinutes = "awake_minutes", sources
    }
}

// MARK: - Schemas

extension SleepRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "start": .string("Start of the range of wake-up days: a date expression (DateRange). Default 7d."),
        "end": .string("End of the range (exclusive). Default now."),
        "timeZone": .string("IANA zone of the nights; default the home zone."),
        "cursor": .string("next_cursor of the previous page."),
    ])
}

extension SleepResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "time_zone": .string(),
        "start": .instant(),
        "end": .instant(),
        "count": .integer("Nights with data in this reply."),
        "nights": .array(SleepNightRecord.jsonSchema),
        "average_asleep_minutes": .number("Average over the nights of this reply."),
        "merged": .boolean(),
        "merge_note": .string(),
    ].adding(JSONSchema.paging), required: ["time_zone", "start", "end", "count", "nights", "merged", "merge_note", "has_more"])
}

extension SleepNightRecord: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "date": .string("The wake-up day, YYYY-MM-DD."),
        "bedtime": .instant(),
        "wake_time": .instant(),
        "in_bed_minutes": .number(),
        "asleep_minutes": .number("Core + deep + REM + unspecified."),
        "core_minutes": .number(),
        "deep_minutes": .number(),
        "rem_minutes": .number(),
        "unspecified_minutes": .number("Asleep without a stage (older devices)."),
        "awake_minutes": .number(),
        "sources": .array(.string()),
    ], required: ["date", "in_bed_minutes", "asleep_minutes", "core_minutes", "deep_minutes", "rem_minutes",
                  "unspecified_minutes", "awake_minutes", "sources"])
}
