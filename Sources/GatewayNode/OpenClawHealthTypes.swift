import Foundation
import HealthAPI
import HealthService

// The wire types of the OpenClaw health capability, exactly as in the plan (field names, optionality), extended with
// optional fields only. Every payload encodes with sorted keys and no nulls. They are the node's dialect: the service
// answers in its neutral results, and `HealthService+OpenClaw.swift` maps them to these.

/// The node's commands: the plan's four, and `health.sleep` (an extension).
public enum OpenClawHealthCommand: String, Codable, Sendable, CaseIterable {
    case query = "health.query"
    case summary = "health.summary"
    case subscribe = "health.subscribe"
    case unsubscribe = "health.unsubscribe"
    /// Extension: sleep nights by wake-up day.
    case sleep = "health.sleep"
    /// Extension: per day (or hour), which sources recorded a type, and the gaps where nothing was recorded.
    case coverage = "health.coverage"
    /// Extension, declared only when the owner enables writes: save samples.
    case write = "health.write"
    /// Extension, declared only when the owner enables writes: delete by log id, UUID or sync id.
    case delete = "health.delete"

    /// The commands that change the store: gateways must allow them explicitly (they are dangerous).
    public static let writes: [OpenClawHealthCommand] = [.write, .delete]
}

/// `health.write` parameters (extension): one sample, or several in `samples`.
public struct OpenClawHealthWriteParams: Codable, Sendable, Equatable {
    public var samples: [OpenClawHealthWriteSample]
}

/// One sample to write, in the wire's names.
public struct OpenClawHealthWriteSample: Codable, Sendable, Equatable {
    public var type: String
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var startISO: String?
    public var endISO: String?
    public var logId: String?
    public var syncId: String?
    public var syncVersion: Int?
    /// Metadata the type allows, by name (a glucose reading's `meal_time`), or HealthKit metadata by key.
    public var metadata: [String: String]?
}

/// `health.delete` parameters (extension): exactly one of them.
public struct OpenClawHealthDeleteParams: Codable, Sendable, Equatable {
    public var logId: String?
    public var uuid: String?
    public var syncId: String?
}

/// `health.query` parameters. Defaults: today 00:00 → now in the home time zone, limit 100 (1…500), newest first.
public struct OpenClawHealthQueryParams: Codable, Sendable, Equatable {
    public var type: String
    public var startISO: String?
    public var endISO: String?
    public var limit: Int?
    public var ascending: Bool?

    public init(type: String, startISO: String? = nil, endISO: String? = nil, limit: Int? = nil, ascending: Bool? = nil) {
        self.type = type; self.startISO = startISO; self.endISO = endISO; self.limit = limit; self.ascending = ascending
    }
}

/// One sample on the wire.
public struct OpenClawHealthSample: Codable, Sendable, Equatable {
    public var dateISO: String
    public var endDateISO: String?
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var source: String?

    public init(dateISO: String, endDateISO: String? = nil, value: Double? = nil, unit: String? = nil,
                category: String? = nil, source: String? = nil) {
        self.dateISO = dateISO; self.endDateISO = endDateISO; self.value = value; self.unit = unit
        self.category = category; self.source = source
    }
}

/// `health.query` payload.
public struct OpenClawHealthQueryPayload: Codable, Sendable, Equatable {
    public var type: String
    public var startISO: String
    public var endISO: String
    public var samples: [OpenClawHealthSample]
    /// Extension: true when more samples matched than `limit`.
    public var hasMore: Bool?

    public init(type: String, startISO: String, endISO: String, samples: [OpenClawHealthSample], hasMore: Bool? = nil) {
        self.type = type; self.startISO = startISO; self.endISO = endISO; self.samples = samples; self.hasMore = hasMore
    }
}

/// `health.summary` parameters (the plan's form). Interval: `hour` | `day` | `week`, default `day`.
public struct OpenClawHealthSummaryParams: Codable, Sendable, Equatable {
    public var type: String
    public var startISO: String?
    public var endISO: String?
    public var interval: String?
    /// Extension: which source won — each source's part of the merged total and its own total (cumulative types).
    public var contributions: Bool?

    public init(type: String, startISO: String? = nil, endISO: String? = nil, interval: String? = nil,
                contributions: Bool? = nil) {
        self.type = type; self.startISO = startISO; self.endISO = endISO; self.interval = interval
        self.contributions = contributions
    }
}

/// Extension: a source's part of a merged total beside its own total.
public struct OpenClawHealthContribution: Codable, Sendable, Equatable {
    public var source: String
    public var contribution: Double
    public var ownTotal: Double
}

/// `health.coverage` parameters (extension): a type, a range (default the last 30 days), `day` or `hour`.
///
/// ```json
/// {"type": "stepCount", "startISO": "2025-12-01", "endISO": "2026-01-01", "interval": "day"}
/// ```
public struct OpenClawHealthCoverageParams: Codable, Sendable, Equatable {
    public var type: String
    public var startISO: String?
    public var endISO: String?
    public var interval: String?

    public init(type: String, startISO: String? = nil, endISO: String? = nil, interval: String? = nil) {
        self.type = type; self.startISO = startISO; self.endISO = endISO; self.interval = interval
    }
}

/// `health.coverage` payload (extension): per bucket the sources and their sample counts; the gaps.
public struct OpenClawHealthCoveragePayload: Codable, Sendable, Equatable {
    public struct Bucket: Codable, Sendable, Equatable {
        public var startISO: String
        public var endISO: String
        public var date: String?
        public var count: Int
        public var noData: Bool
        public var sources: [CoverageSourceCount]
    }
    public struct Gap: Codable, Sendable, Equatable {
        public var startISO: String
        public var endISO: String
        public var buckets: Int
    }
    public var type: String
    public var interval: String
    public var timeZone: String
    public var startISO: String
    public var endISO: String
    public var buckets: [Bucket]
    public var gaps: [Gap]
    public var sources: [CoverageSource]
}

/// One bucket on the wire.
public struct OpenClawHealthStatistic: Codable, Sendable, Equatable {
    public var startISO: String
    public var endISO: String
    public var sum: Double?
    public var average: Double?
    public var min: Double?
    public var max: Double?
    public var unit: String
    /// Extension: the most recent value in the bucket (discrete types).
    public var mostRecent: Double?
    /// Extension: the sources kept after the merge, highest priority first.
    public var sources: [String]?
    /// Extension: category types (e.g. appleStandHour), minutes per value merged by priority.
    public var durationsMinutes: [String: Double]?

    public init(startISO: String, endISO: String, sum: Double? = nil, average: Double? = nil, min: Double? = nil,
                max: Double? = nil, unit: String, mostRecent: Double? = nil, sources: [String]? = nil) {
        self.startISO = startISO; self.endISO = endISO; self.sum = sum; self.average = average; self.min = min
        self.max = max; self.unit = unit; self.mostRecent = mostRecent; self.sources = sources
    }
}

/// `health.summary` payload.
public struct OpenClawHealthSummaryPayload: Codable, Sendable, Equatable {
    public var type: String
    public var interval: String
    public var statistics: [OpenClawHealthStatistic]
    /// Extension: the IANA zone buckets were cut in.
    public var timeZone: String?
    /// Extension: true when overlapping sources were merged by priority (cumulative types).
    public var merged: Bool?
    /// Extension: the source priority order in force, highest first.
    public var sourcePriority: [String]?

    /// Extension: one series per source, unmerged, when asked for.
    public var bySource: [OpenClawHealthSourceSeries]?
    /// Extension, with `contributions`: which source won.
    public var contributions: [OpenClawHealthContribution]?

    public init(type: String, interval: String, statistics: [OpenClawHealthStatistic], timeZone: String? = nil,
                merged: Bool? = nil, sourcePriority: [String]? = nil, bySource: [OpenClawHealthSourceSeries]? = nil,
                contributions: [OpenClawHealthContribution]? = nil) {
        self.type = type; self.interval = interval; self.statistics = statistics; self.timeZone = timeZone
        self.merged = merged; self.sourcePriority = sourcePriority; self.bySource = bySource
        self.contributions = contributions
    }
}

/// Extension: a source's own statistics, without the merge.
public struct OpenClawHealthSourceSeries: Codable, Sendable, Equatable {
    public var source: String
    public var statistics: [OpenClawHealthStatistic]
    public init(source: String, statistics: [OpenClawHealthStatistic]) {
        self.source = source; self.statistics = statistics
    }
}

/// `health.subscribe` / `health.unsubscribe` parameters.
public struct OpenClawHealthSubscribeParams: Codable, Sendable, Equatable {
    public var types: [String]
    public init(types: [String]) { self.types = types }
}

/// `health.update` event payload (node → gateway).
public struct OpenClawHealthUpdatePayload: Codable, Sendable, Equatable {
    public var type: String
    public var latestSamples: [OpenClawHealthSample]
    public init(type: String, latestSamples: [OpenClawHealthSample]) {
        self.type = type; self.latestSamples = latestSamples
    }
}

/// Upstream OpenClaw's own `health.summary` parameters: `{"period":"today"}`.
public struct OpenClawUpstreamSummaryParams: Codable, Sendable, Equatable {
    public var period: String
    public init(period: String) { self.period = period }
}

/// Upstream OpenClaw's `health.summary` payload.
public struct OpenClawUpstreamSummaryPayload: Codable, Sendable, Equatable {
    public var period: String
    public var startISO: String
    public var endISO: String
    public var timeZoneIdentifier: String
    public var stepCount: Double?
    public var sleepDurationMinutes: Double?
    public var restingHeartRateBpm: Double?
    public var workoutCount: Int?
    public var workoutDurationMinutes: Double?

    public init(period: String, startISO: String, endISO: String, timeZoneIdentifier: String, stepCount: Double? = nil,
                sleepDurationMinutes: Double? = nil, restingHeartRateBpm: Double? = nil, workoutCount: Int? = nil,
                workoutDurationMinutes: Double? = nil) {
        self.period = period; self.startISO = startISO; self.endISO = endISO
        self.timeZoneIdentifier = timeZoneIdentifier; self.stepCount = stepCount
        self.sleepDurationMinutes = sleepDurationMinutes; self.restingHeartRateBpm = restingHeartRateBpm
        self.workoutCount = workoutCount; self.workoutDurationMinutes = workoutDurationMinutes
    }
}

/// `health.sleep` parameters (extension). Defaults: the last seven nights (`7d` → now).
public struct OpenClawHealthSleepParams: Codable, Sendable, Equatable {
    public var startISO: String?
    public var endISO: String?
    public init(startISO: String? = nil, endISO: String? = nil) { self.startISO = startISO; self.endISO = endISO }
}

/// One night on the wire (extension). Minutes to a tenth.
public struct OpenClawHealthSleepNight: Codable, Sendable, Equatable {
    /// The wake-up day, `YYYY-MM-DD`.
    public var date: String
    public var bedtimeISO: String?
    public var wakeTimeISO: String?
    public var inBedMinutes: Double
    public var asleepMinutes: Double
    public var coreMinutes: Double
    public var deepMinutes: Double
    public var remMinutes: Double
    public var awakeMinutes: Double
    public var sources: [String]
}

/// `health.sleep` payload (extension).
public struct OpenClawHealthSleepPayload: Codable, Sendable, Equatable {
    public var startISO: String
    public var endISO: String
    public var timeZone: String
    public var nights: [OpenClawHealthSleepNight]
}
