import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

/// The prompts an agent can offer the person (`prompts/list`, `prompts/get`): a daily check-in, weekly trends, a
/// sleep report, the training load and a summary for a doctor's visit. Each answer is one user-role text message
/// filled with the service's own numbers — the use cases the tools call (`today`, `summary`, `sleep`, `workouts`,
/// `latest`), merged across devices by source priority — with their units and the dates they cover; the days and
/// the workout totals come from the service too (``HealthService/lastDays(_:)``, ``WorkoutsResult/totals``), so
/// nothing is computed or resolved here. A type the principal may not read looks empty, as everywhere.
///
/// ```swift
/// let prompts = HealthPrompts(service: toolbox.service)   // the toolbox's service acts for the MCP client
/// let answer = try await prompts.get("doctor_visit_summary", arguments: ["days": "30"])
/// ```
public struct HealthPrompts: Sendable {
    /// The service, acting for the MCP client.
    public let service: HealthService

    public init(service: HealthService) {
        self.service = service
    }

    /// The range `doctor_visit_summary` accepts for `days`.
    public static let dayRange = 7...365

    /// The prompts, for `prompts/list`.
    public static let prompts: [Prompt] = [
        Prompt(name: "daily_check_in", title: "Daily check-in",
               description: "Today so far: steps and active energy (merged across devices), last night's sleep, the latest weight and today's workouts."),
        Prompt(name: "weekly_trends", title: "Weekly trends",
               description: "The last 7 days of daily steps, active energy and resting heart rate, with the week's totals against the 7 days before."),
        Prompt(name: "sleep_report", title: "Sleep report",
               description: "The last 7 nights: bed and wake times, time asleep and in bed, the stages, and the average."),
        Prompt(name: "training_load", title: "Training load",
               description: "The last 28 days of workouts, week by week: how many, how long, how far and how much energy."),
        Prompt(name: "doctor_visit_summary", title: "Summary for a doctor's visit",
               description: "A factual summary of the last days (90 by default): weight trend, resting heart rate, blood pressure and glucose when recorded, sleep and activity.",
               arguments: [Prompt.Argument(name: "days", title: "Days",
                                           description: "How many days back, from \(dayRange.lowerBound) to \(dayRange.upperBound); default 90.",
                                           required: false)]),
    ]

    /// The argument names each prompt takes.
    static let argumentNames: [String: [String]] = Dictionary(
        uniqueKeysWithValues: prompts.map { ($0.name, ($0.arguments ?? []).map(\.name)) })

    /// One prompt, filled. Unknown prompts and unknown or invalid arguments are `invalidParams` errors that say what
    /// is accepted; a failing use case is reported in MCP's words (``MCPError/init(_:)``).
    public func get(_ name: String, arguments: [String: String]?) async throws -> GetPrompt.Result {
        guard let allowed = Self.argumentNames[name] else {
            throw MCPError.invalidParams(
                "there is no prompt '\(name)'; the prompts are \(Self.prompts.map(\.name).joined(separator: ", "))")
        }
        let arguments = (arguments ?? [:]).filter { !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }
        for key in arguments.keys.sorted() where !allowed.contains(key) {
            throw MCPError.invalidParams("\(name) has no argument '\(key)'; it takes "
                                         + (allowed.isEmpty ? "no arguments" : "only " + allowed.joined(separator: ", ")))
        }
        let description = Self.prompts.first { $0.name == name }?.description
        do {
            let text: String
            switch name {
            case "daily_check_in": text = try await dailyCheckIn()
            case "weekly_trends": text = try await weeklyTrends()
            case "sleep_report": text = try await sleepReport()
            case "training_load": text = try await trainingLoad()
            default: text = try await doctorVisitSummary(days: try Self.days(arguments["days"]))
            }
            return GetPrompt.Result(description: description, messages: [.user(.text(text: text))])
        } catch let error as HealthError {
            throw MCPError(error)
        }
    }

    /// `days`: a whole number in ``dayRange``, 90 when absent.
    static func days(_ text: String?) throws -> Int {
        guard let text else { return 90 }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Digits only (no sign, exponent or fraction), few enough to fit.
        guard (1...3).contains(trimmed.count), trimmed.allSatisfy({ $0.isASCII && $0.isNumber }),
              let days = Double(trimmed)?.checkedInt(), dayRange.contains(days) else {
            throw MCPError.invalidParams(
                "days must be a whole number from \(dayRange.lowerBound) to \(dayRange.upperBound), got '\(trimmed.prefix(40))'")
        }
        return days
    }

    // MARK: The prompts

    func dailyCheckIn() async throws -> String {
        let today = try await service.today()
        let weight = try await service.latest(LatestRequest(type: "bodyMass"))
        var lines = [
            "Daily check-in for \(today.date) (\(today.timeZone)), \(TextFormat.local(today.start)) → \(TextFormat.localClock(today.now)), from my Apple Health data in HealthBridge. Totals are merged across my devices by source priority, never added together.",
            "",
            "- Steps today: \(Self.figure(today.steps, "steps"))",
            "- Active energy today: \(Self.figure(today.activeEnergyKcal, "kcal"))",
        ]
        if let night = today.sleep {
            lines.append("- Sleep last night (the night ending \(night.date)): \(TextFormat.minutes(night.asleepMinutes)) asleep, "
                         + "\(TextFormat.minutes(night.inBedMinutes)) in bed (\(TextFormat.localClock(night.bedtime)) → \(TextFormat.localClock(night.wakeTime))); "
                         + "deep \(TextFormat.minutes(night.deepMinutes)), REM \(TextFormat.minutes(night.remMinutes)), core \(TextFormat.minutes(night.coreMinutes)), awake \(TextFormat.minutes(night.awakeMinutes))")
        } else {
            lines.append("- Sleep last night: nothing recorded")
        }
        if weight.found, let value = weight.value {
            lines.append("- Latest weight: \(TextFormat.number(value, decimals: 1)) \(weight.unit ?? "") on \(TextFormat.local(weight.start))")
        } else {
            lines.append("- Latest weight: nothing recorded")
        }
        lines.append("- Workouts today: \(today.workoutCount), \(TextFormat.minutes(today.workoutMinutes)) in all")
        for workout in today.workouts {
            lines.append("  - \(Self.workoutLine(workout))")
        }
        if let resting = today.restingHeartRateBpm {
            lines.append("- Resting heart rate today: \(TextFormat.number(resting)) bpm")
        }
        lines += ["", "Give me a short check-in on my day so far from these numbers, and one practical suggestion for the rest of it."]
        return lines.joined(separator: "\n")
    }

    func weeklyTrends() async throws -> String {
        let days = try service.lastDays(14)
        let thisWeekStart = days[7], previousStart = days[0]
        let metrics: [(type: String, label: String, statistic: String)] = [
            ("stepCount", "steps", "sum"), ("activeEnergyBurned", "active energy", "sum"),
            ("restingHeartRate", "resting heart rate", "average"),
        ]
        var daily: [SummaryResult] = []
        var thisWeek: [SummaryResult] = []
        var previousWeek: [SummaryResult] = []
        for metric in metrics {
            daily.append(try await summary(metric.type, start: thisWeekStart, end: nil, interval: "day", metric.statistic))
            thisWeek.append(try await summary(metric.type, start: thisWeekStart, end: nil, interval: "total", metric.statistic))
            previousWeek.append(try await summary(metric.type, start: previousStart, end: thisWeekStart, interval: "total",
                                                  metric.statistic))
        }
        let header = ["day"] + metrics.indices.map { index in
            let unit = Self.unitLabel(daily[index].unit)
            return unit == metrics[index].label ? unit : "\(metrics[index].label) (\(unit))"
        }
        var rows: [[String]] = []
        for (index, bucket) in daily[0].buckets.enumerated() {
            var row = [bucket.date ?? TextFormat.localDay(bucket.start)]
            for (column, metric) in metrics.enumerated() {
                let buckets = daily[column].buckets
                row.append(index < buckets.count ? Self.value(buckets[index], metric.statistic) : "—")
            }
            rows.append(row)
        }
        func week(_ results: [SummaryResult]) -> String {
            metrics.indices.map { index in
                let bucket = results[index].buckets.first
                let what = metrics[index].statistic == "sum" ? "total" : "average"
                let value = bucket.map { Self.value($0, metrics[index].statistic) } ?? "—"
                let unit = Self.unitLabel(results[index].unit)
                return unit == metrics[index].label ? "\(value) \(unit) \(what)" : "\(metrics[index].label) \(value) \(unit) \(what)"
            }.joined(separator: "; ")
        }
        let zone = daily[0].timeZone
        return """
            My weekly trends from Apple Health in HealthBridge: the last 7 days, \(thisWeekStart) → \(TextFormat.local(daily[0].end)), \
            against the 7 days before, \(previousStart) → \(days[6]) (\(zone)). Daily figures are merged across my devices \
            by source priority, never added together.

            \(TextFormat.table(header, rows))

            This week (\(thisWeekStart) → \(days[13]), today so far included): \(week(thisWeek)).
            The week before (\(previousStart) → \(days[6])): \(week(previousWeek)).

            Describe my trends: what went up or down against the week before, which days stand out, and what that suggests.
            """
    }

    func sleepReport() async throws -> String {
        let result = try await service.sleep(SleepRequest(start: "7d"))
        let rows = result.nights.map { night in
            [night.date, "\(TextFormat.localClock(night.bedtime)) → \(TextFormat.localClock(night.wakeTime))",
             TextFormat.minutes(night.asleepMinutes), TextFormat.minutes(night.inBedMinutes),
             TextFormat.minutes(night.deepMinutes), TextFormat.minutes(night.remMinutes),
             TextFormat.minutes(night.coreMinutes), TextFormat.minutes(night.awakeMinutes)]
        }
        let table = rows.isEmpty
            ? "No sleep was recorded in these nights."
            : TextFormat.table(["night of", "bed → wake", "asleep", "in bed", "deep", "REM", "core", "awake"], rows)
        let average = result.averageAsleepMinutes.map {
            "Average asleep: \(TextFormat.minutes($0)) over \(result.count) night\(result.count == 1 ? "" : "s")."
        } ?? "No average: no night recorded."
        return """
            My sleep report from Apple Health in HealthBridge: the nights ending \(TextFormat.localDay(result.start)) \
            through \(TextFormat.localDay(result.end)) (\(result.timeZone); a night runs 18:00 → 18:00 and carries the \
            day I woke up; phone and watch are merged by source priority, never added together). Durations are hours \
            and minutes.

            \(table)

            \(average)

            Tell me how I slept this week — duration, how regular my bed and wake times were, the stages — and one thing to try.
            """
    }

    func trainingLoad() async throws -> String {
        let days = try service.lastDays(28)
        var rows: [[String]] = []
        var zone = service.homeTimeZone.identifier
        for week in 0..<4 {
            let start = days[week * 7]
            let end: String? = week == 3 ? nil : days[week * 7 + 7]
            let workouts = try await service.workouts(WorkoutsRequest(start: start, end: end, limit: 1))
            zone = workouts.timeZone
            let totals = workouts.totals
            rows.append(["\(start) → \(days[week * 7 + 6])", String(totals.count), TextFormat.minutes(totals.durationMinutes),
                         TextFormat.number(totals.distanceKm, decimals: 1), TextFormat.number(totals.energyKcal)])
        }
        return """
            My training load from Apple Health in HealthBridge: the workouts of the last 28 days, \(days[0]) → \(days[27]) \
            (\(zone); the last week runs up to now), week by week. Duration in hours and minutes; distance and energy \
            of the workouts that recorded them.

            \(TextFormat.table(["week", "workouts", "duration", "distance (km)", "energy (kcal)"], rows))

            Assess my training load: consistency, build-up or drop from week to week, and whether an easier or a harder week fits next.
            """
    }

    func doctorVisitSummary(days: Int) async throws -> String {
        let dates = try service.lastDays(days)
        let start = dates[0]
        let trendInterval = days <= 120 ? "week" : "month"
        var lines = [
            "A summary of my Apple Health data (HealthBridge) for a visit to my doctor: the last \(days) days, \(start) → \(dates[days - 1]) (\(service.homeTimeZone.identifier)). Figures are merged across my devices by source priority, never added together.",
            "",
        ]
        let weight = try await summary("bodyMass", start: start, end: nil, interval: "total", "average", "min", "max")
        if let bucket = weight.buckets.first, bucket.count > 0 {
            let trend = try await summary("bodyMass", start: start, end: nil, interval: trendInterval, "average")
            let points = trend.buckets.filter { $0.count > 0 }
                .map { "\($0.date ?? TextFormat.localDay($0.start)) \(Self.value($0, "average"))" }
            lines.append("- Weight (\(Self.unitLabel(weight.unit))): average \(Self.value(bucket, "average")), lowest \(Self.value(bucket, "min")), highest \(Self.value(bucket, "max")) (\(bucket.count) measurements)")
            lines.append("  \(trendInterval)ly averages: \(points.joined(separator: ", "))")
        } else {
            lines.append("- Weight: nothing recorded")
        }
        for (type, label) in [("restingHeartRate", "Resting heart rate"), ("bloodPressureSystolic", "Blood pressure, systolic"),
                              ("bloodPressureDiastolic", "Blood pressure, diastolic"), ("bloodGlucose", "Blood glucose")] {
            let result = try await summary(type, start: start, end: nil, interval: "total", "average", "min", "max")
            if let bucket = result.buckets.first, bucket.count > 0 {
                lines.append("- \(label) (\(Self.unitLabel(result.unit))): average \(Self.value(bucket, "average")), lowest \(Self.value(bucket, "min")), highest \(Self.value(bucket, "max")) (\(bucket.count) measurements)")
            } else if type == "restingHeartRate" {
                lines.append("- \(label): nothing recorded")
            }
        }
        let sleep = try await service.sleep(SleepRequest(start: start))
        if let average = sleep.averageAsleepMinutes {
            lines.append("- Sleep: \(TextFormat.minutes(average)) asleep per night on average, over \(sleep.count) recorded nights")
        } else {
            lines.append("- Sleep: nothing recorded")
        }
        let steps = try await summary("stepCount", start: start, end: nil, interval: "total", "sum")
        let energy = try await summary("activeEnergyBurned", start: start, end: nil, interval: "total", "sum")
        let weekly = try await summary("stepCount", start: start, end: nil, interval: trendInterval, "sum")
        lines.append("- Activity: \(steps.buckets.first.map { Self.value($0, "sum") } ?? "—") steps and \(energy.buckets.first.map { Self.value($0, "sum") } ?? "—") \(Self.unitLabel(energy.unit)) of active energy in all")
        lines.append("  \(trendInterval)ly steps: " + weekly.buckets.filter { $0.count > 0 }.map { "\($0.date ?? TextFormat.localDay($0.start)) \(Self.value($0, "sum"))" }.joined(separator: ", "))
        let totals = try await service.workouts(WorkoutsRequest(start: start, limit: 1)).totals
        lines.append("- Workouts: \(totals.count), \(TextFormat.minutes(totals.durationMinutes)) in all")
        lines += ["", "Write a concise, factual summary of this for my doctor: the trends and anything outside the usual ranges, without a diagnosis."]
        return lines.joined(separator: "\n")
    }

    // MARK: Use cases

    /// Every page of a summary (a long range in short intervals may be paged).
    func summary(_ type: String, start: String, end: String?, interval: String, _ statistics: String...) async throws -> SummaryResult {
        var result = try await service.summary(SummaryRequest(type: type, start: start, end: end, interval: interval,
                                                              statistics: statistics))
        var page = result
        var pages = 1
        while page.hasMore, let cursor = page.nextCursor, pages < 100 {
            page = try await service.summary(SummaryRequest(cursor: cursor))
            result.buckets += page.buckets
            result.end = page.end
            pages += 1
        }
        return result
    }

    // MARK: Text

    /// A bucket's statistic as the text renderings show it.
    static func value(_ bucket: SummaryBucket, _ statistic: String) -> String {
        switch statistic {
        case "sum": TextFormat.number(bucket.sum)
        case "min": TextFormat.number(bucket.min, decimals: nil)
        case "max": TextFormat.number(bucket.max, decimals: nil)
        default: TextFormat.number(bucket.average, decimals: nil)
        }
    }

    /// `8,412 steps`, or `nothing recorded`.
    static func figure(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "nothing recorded" }
        return "\(TextFormat.number(value)) \(unit)"
    }

    /// A unit as a person reads it: `count` → steps, `count/min` → bpm.
    static func unitLabel(_ unit: String) -> String {
        switch unit {
        case "count": "steps"
        case "count/min": "bpm"
        default: unit
        }
    }

    static func workoutLine(_ workout: WorkoutRecord) -> String {
        var parts = ["\(workout.activityType) at \(TextFormat.localClock(workout.start))", TextFormat.minutes(workout.durationMinutes)]
        if let distance = workout.distanceKm { parts.append("\(TextFormat.number(distance, decimals: 2)) km") }
        if let energy = workout.energyKcal { parts.append("\(TextFormat.number(energy)) kcal") }
        return parts.joined(separator: ", ")
    }
}

extension MCPError {
    /// A service failure in MCP's words: a request the service refuses (`HEALTH_INVALID_*`, `HEALTH_NO_SUMMARY`,
    /// `HEALTH_NOT_FOUND`) is `invalidParams`, anything else `internalError`; the message is `CODE: message` with the
    /// hint as MCP's tools word it.
    ///
    /// ```swift
    /// MCPError(HealthError(.invalidType, "unknown type 'stepz'"))   // -32602 "HEALTH_INVALID_TYPE: unknown type 'stepz'"
    /// ```
    init(_ error: HealthError) {
        let rendered = error.rendered(HealthToolbox.hint)
        switch error.code {
        case .invalidType, .invalidRange, .invalidArgument, .invalidUnit, .invalidTimeZone, .noSummary, .notFound:
            self = .invalidParams(rendered.description)
        default:
            self = .internalError(rendered.description)
        }
    }
}
