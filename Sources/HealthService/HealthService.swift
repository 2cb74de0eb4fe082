import Foundation
import HealthEngine
import HealthModel
import HealthStore

/// The service every interface calls (CLI, MCP, OpenClaw node, HTTPS export): decode → call → encode.
///
/// It owns the conventions shared by all of them: the home time zone, default ranges (today 00:00 → now), limits,
/// the wire names of units and categories, and the mapping of the engine's results to the OpenClaw payloads.
///
/// ```swift
/// let service = try await HealthService.open(store: store)
/// let week = try await service.summary(OpenClawHealthSummaryParams(type: "stepCount", startISO: "2024-05-01T00:00:00Z"))
/// ```
public struct HealthService: Sendable {
    public let store: any HealthStore
    public let engine: HealthEngine
    /// The zone day boundaries are taken in unless a caller names another.
    public var homeTimeZone: TimeZone
    /// Injected for tests.
    public var clock: @Sendable () -> Date

    public static let homeTimeZoneSetting = "home_time_zone"

    public init(store: any HealthStore, homeTimeZone: TimeZone, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.engine = HealthEngine(store: store)
        self.homeTimeZone = homeTimeZone
        self.clock = clock
    }

    /// A service whose home zone is the store's setting, else the system's.
    public static func open(store: any HealthStore, timeZone override: TimeZone? = nil,
                            clock: @escaping @Sendable () -> Date = { Date() }) async throws -> HealthService {
        var zone = TimeZone.current
        if let name = try await store.setting(homeTimeZoneSetting), let stored = TimeZone(identifier: name) { zone = stored }
        return HealthService(store: store, homeTimeZone: override ?? zone, clock: clock)
    }

    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = homeTimeZone
        return calendar
    }

    /// Resolves optional ISO strings to a range: defaults today 00:00 → now in the home zone.
    public func range(startISO: String?, endISO: String?) throws(HealthError) -> (Date, Date) {
        let now = clock()
        let start = try startISO.map { text throws(HealthError) in try DateExpression.parse(text, now: now, timeZone: homeTimeZone) }
            ?? calendar.startOfDay(for: now)
        let end = try endISO.map { text throws(HealthError) in try DateExpression.parse(text, now: now, timeZone: homeTimeZone) }
            ?? now
        guard end >= start else {
            throw HealthError(.invalidRange, "endISO (\(ISO8601.string(end))) is before startISO (\(ISO8601.string(start)))")
        }
        return (start, end)
    }

    // MARK: health.query

    public func query(_ params: OpenClawHealthQueryParams) async throws -> OpenClawHealthQueryPayload {
        let type = try await engine.resolveType(params.type)
        guard type.kind == .quantity || type.kind == .category else {
            throw HealthError(.invalidType, "'\(params.type)' is a \(type.kind.rawValue) type; query a quantity or category type (workouts have their own tools)")
        }
        let (start, end) = try range(startISO: params.startISO, endISO: params.endISO)
        let limit = Swift.max(1, Swift.min(params.limit ?? 100, 500))
        let page = try await engine.samples(SampleQuery(type: type.identifier, start: start, end: end,
                                                        matching: .strictStartDate, limit: limit,
                                                        ascending: params.ascending ?? false))
        return OpenClawHealthQueryPayload(
            type: params.type, startISO: ISO8601.string(start, timeZone: homeTimeZone),
            endISO: ISO8601.string(end, timeZone: homeTimeZone),
            samples: try page.samples.map { try wireSample($0, type: type) },
            hasMore: page.nextCursor != nil ? true : nil)
    }

    /// A sample in the wire form: quantities in the type's wire unit, categories by name.
    public func wireSample(_ sample: HealthSample, type: SampleType) throws -> OpenClawHealthSample {
        var wire = OpenClawHealthSample(dateISO: ISO8601.string(sample.start, timeZone: homeTimeZone),
                                        endDateISO: ISO8601.string(sample.end, timeZone: homeTimeZone),
                                        source: sample.source.name)
        switch sample.value {
        case .quantity(let value, let unit):
            if let canonical = type.canonicalUnit {
                wire.value = try HealthUnit.parse(unit).convert(value, to: HealthUnit.parse(canonical))
                wire.unit = Self.wireUnit(canonical)
            } else {
                wire.value = value
                wire.unit = unit
            }
        case .category(let raw):
            wire.category = Self.categoryName(raw, type: type)
        case .none:
            break
        }
        return wire
    }

    /// The plan's unit names: `bpm` for beats per minute, HKUnit strings otherwise.
    public static func wireUnit(_ unit: String) -> String {
        unit == "count/min" ? "bpm" : unit
    }

    /// The plan's category names for sleep (`inBed`, `asleep`, `awake`, `core`, `deep`, `rem`), the registry's
    /// short names for other types, the raw value for unknown values.
    public static func categoryName(_ raw: Int, type: SampleType) -> String {
        if type.identifier == "sleepAnalysis" {
            switch raw {
            case 0: return "inBed"
            case 1: return "asleep"
            case 2: return "awake"
            case 3: return "core"
            case 4: return "deep"
            case 5: return "rem"
            default: return "unknown"
            }
        }
        return type.categoryValue(raw: raw)?.name ?? String(raw)
    }

    // MARK: health.summary

    public func summary(_ params: OpenClawHealthSummaryParams) async throws -> OpenClawHealthSummaryPayload {
        let intervalName = params.interval ?? "day"
        let interval: StatisticsInterval
        switch intervalName {
        case "hour": interval = StatisticsInterval(1, .hour)
        case "day": interval = StatisticsInterval(1, .day)
        case "week": interval = StatisticsInterval(1, .week)
        default:
            throw HealthError(.invalidArgument, "interval must be hour, day or week, got '\(intervalName)'")
        }
        let (start, end) = try range(startISO: params.startISO, endISO: params.endISO)
        var payload = try await summary(type: params.type, start: start, end: end, interval: interval,
                                        anchor: calendar.startOfDay(for: start))
        payload.type = params.type
        payload.interval = intervalName
        return payload
    }

    /// The summary behind `health.summary`, with the options the CLI and MCP add: any interval, per-source series,
    /// a source filter. Every bucket of the range is listed, empty ones with no values. Buckets align to `anchor`,
    /// by default the start of the interval's unit (Monday for weeks).
    public func summary(type name: String, start: Date, end: Date, interval: StatisticsInterval,
                        anchor: Date? = nil, bySource: Bool = false, sources: [String]? = nil,
                        includeEmpty: Bool = true, unit: String? = nil) async throws -> OpenClawHealthSummaryPayload {
        let type = try await engine.resolveType(name)
        guard type.kind == .quantity else {
            throw HealthError(.noSummary, "'\(name)' does not support summary (use health.query\(type.identifier == "sleepAnalysis" ? ", or sleep nights" : ""))")
        }
        let result = try await engine.statistics(StatisticsRequest(
            type: type.identifier, start: start, end: end, interval: interval, anchor: anchor,
            timeZone: homeTimeZone, separateBySource: bySource, includeEmpty: includeEmpty, unit: unit, sources: sources))
        let unit = Self.wireUnit(result.unit ?? type.canonicalUnit ?? "count")
        func wire(_ buckets: [StatisticsBucket]) -> [OpenClawHealthStatistic] {
            buckets.map { bucket in
                OpenClawHealthStatistic(startISO: ISO8601.string(bucket.start, timeZone: homeTimeZone),
                                        endISO: ISO8601.string(bucket.end, timeZone: homeTimeZone),
                                        sum: bucket.sum, average: bucket.average, min: bucket.min, max: bucket.max,
                                        unit: unit, mostRecent: bucket.mostRecent,
                                        sources: bucket.sources.isEmpty ? nil : bucket.sources)
            }
        }
        return OpenClawHealthSummaryPayload(
            type: type.identifier, interval: interval.description, statistics: wire(result.buckets),
            timeZone: homeTimeZone.identifier, merged: result.merged, sourcePriority: result.priority,
            bySource: result.bySource?.map { OpenClawHealthSourceSeries(source: $0.source, statistics: wire($0.buckets)) })
    }

    // MARK: Upstream health.summary {"period":"today"}

    public func upstreamSummary(_ params: OpenClawUpstreamSummaryParams) async throws -> OpenClawUpstreamSummaryPayload {
        guard params.period == "today" else {
            throw HealthError(.invalidArgument, "period must be \"today\", got \"\(params.period)\"")
        }
        let today = try await self.today()
        return OpenClawUpstreamSummaryPayload(
            period: "today", startISO: ISO8601.string(today.start, timeZone: homeTimeZone),
            endISO: ISO8601.string(today.end, timeZone: homeTimeZone), timeZoneIdentifier: homeTimeZone.identifier,
            stepCount: today.steps, sleepDurationMinutes: today.sleep?.asleepMinutes,
            restingHeartRateBpm: today.restingHeartRate, workoutCount: today.workouts.count,
            workoutDurationMinutes: today.workouts.reduce(0) { $0 + $1.duration } / 60)
    }

    /// Today so far in the home zone: merged steps, last night's sleep, resting heart rate, workouts.
    public func today() async throws -> TodaySummary {
        let now = clock()
        let start = calendar.startOfDay(for: now)
        let steps = try await engine.statistics(StatisticsRequest(type: "stepCount", start: start, end: now,
                                                                 timeZone: homeTimeZone)).buckets.first?.sum
        let energy = try await engine.statistics(StatisticsRequest(type: "activeEnergyBurned", start: start, end: now,
                                                                  timeZone: homeTimeZone)).buckets.first?.sum
        let resting = try await engine.statistics(StatisticsRequest(type: "restingHeartRate", start: start, end: now,
                                                                   timeZone: homeTimeZone, options: [.mostRecent]))
            .buckets.first?.mostRecent
        let sleep = try await engine.sleepNights(from: start, to: now, timeZone: homeTimeZone).last
        let workouts = try await store.workouts(WorkoutQuery(start: start, end: now, ascending: true))
        return TodaySummary(start: start, end: now, timeZone: homeTimeZone.identifier, steps: steps,
                            activeEnergyKcal: energy, restingHeartRate: resting, sleep: sleep, workouts: workouts)
    }
}

/// What `today()` returns.
public struct TodaySummary: Sendable {
    public var start: Date
    public var end: Date
    public var timeZone: String
    public var steps: Double?
    public var activeEnergyKcal: Double?
    public var restingHeartRate: Double?
    public var sleep: SleepNight?
    public var workouts: [HealthWorkout]
}
