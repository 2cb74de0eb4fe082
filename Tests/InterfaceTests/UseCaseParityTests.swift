import Foundation
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthService
import HealthStore
import MCP
import Testing

// Every read use case, asked through every interface that offers it, gives the same figures. ParityTests covers
// statistics, energy, sleep and a page of samples; CoverageParityTests coverage and contributions; this file the rest.
//
// | use case              | CLI (`healthbridge … --json`) | MCP tool              | paired API (`/api/v1/health/…`) | OpenClaw node                 |
// |-----------------------|-------------------------------|-----------------------|---------------------------------|-------------------------------|
// | latest value          | ✓ `latest --type`             | ✓ `latest`            | ✓ `latest?type=`                | not offered (✓ the same sample as `health.query` limit 1, newest first) |
// | workouts (list)       | ✓ `workouts --from --to`      | ✓ `list_workouts`     | ✓ `workouts?start=&end=`        | not offered                   |
// | one workout + route   | ✓ `workouts --uuid`           | ✓ `get_workout`       | ✓ `workouts/{uuid}`             | not offered                   |
// | activity summaries    | ✓ `activity`                  | ✓ `activity_summaries`| ✓ `activity`                    | not offered                   |
// | types                 | ✓ `types`                     | ✓ `list_types`        | ✓ `types` (the shared types)    | not offered                   |
// | sources of a type     | ✓ `sources --type`            | ✓ `list_sources`      | ✓ `sources?type=`               | not offered                   |
// | priority of a type    | ✓ `priority --type` (read)    | not offered (its order is `list_sources`' `priority_order`) | not offered (likewise `sources`' `priority_order`) | not offered |
// | today                 | ✓ `today`                     | ✓ `health_today`      | ✓ `today`                       | not offered                   |
// | changes since anchor  | ✓ `changes --anchor`          | ✓ `get_changes`       | ✓ `changes?anchor=`             | not offered (`health.subscribe` pushes, it has no anchor) |
// | current anchor        | not offered                   | not offered           | ✓ `changes/anchor` (✓ the anchor `changes` reaches) | not offered |
//
// Most questions go to the shared demo world (`World`, 40 days ending 2026-01-10). "Today" reads the real clock and
// the demo has no activity summaries (they only come from an Apple Health export), so those two use `LiveWorld`: a
// few demo days ending now, plus five imported activity-summary documents.

/// A data directory like `World`'s whose demo days end at the moment it was made, with five activity summaries
/// (2025-06-01 … 2025-06-05) and 1234 steps at today's midnight (so today is never empty, whatever the hour).
enum LiveWorld {
    static let summaryDays = ["2025-06-01", "2025-06-02", "2025-06-03", "2025-06-04", "2025-06-05"]

    static let shared: Task<(home: URL, service: HealthService), any Error> = Task {
        let home = try TemporaryHome("interface-live")
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let store = try SQLiteHealthStore(location: .file(home.url.appendingPathComponent("health.sqlite")))
        try await DemoWorld(days: 3, seed: 11, end: now, zone: World.zone).populate(store)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = World.zone
        let midnight = calendar.startOfDay(for: now)
        try await store.save([HealthSample(type: "stepCount", start: midnight, end: midnight,
                                           value: .quantity(1234, unit: "count"), source: HealthSource(name: "Parity Pedometer"))])
        let documents = summaryDays.enumerated().map { index, day in
            let start = ISO8601.date("\(day)T00:00:00+02:00") ?? now
            return HealthDocument(uuid: UUID(), kind: .activitySummary, start: start, end: start.addingTimeInterval(86_400),
                                  sourceName: nil, json: """
                                  {"dateComponents":"\(day)","activeEnergyBurned":"\(400 + 25 * index).5","activeEnergyBurnedGoal":"500",\
                                  "activeEnergyBurnedUnit":"Cal","appleExerciseTime":"\(20 + index)","appleExerciseTimeGoal":"30",\
                                  "appleStandHours":"\(8 + index)","appleStandHoursGoal":"12"}
                                  """)
        }
        try await store.save(documents: documents)
        try await store.setSetting(HealthService.homeTimeZoneSetting, World.zone.identifier)
        return (home.url, try await HealthService.open(store: store))
    }

    static var home: URL { get async throws { try await shared.value.home } }
    static var service: HealthService { get async throws { try await shared.value.service } }
}

@Suite("Use case parity", .serialized)
struct UseCaseParityTests {
    static let range = (start: "2025-12-01", end: "2026-01-10")

    /// An ISO 8601 date or instant as seconds since 1970, whatever its offset or precision.
    static func epoch(_ value: JSONValue?) -> Double? {
        value?.stringValue.flatMap(ISO8601.date)?.timeIntervalSince1970
    }

    // MARK: latest

    @Test func latestValue() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        func figures(_ value: JSONValue?) -> [String?] {
            [value?["found"]?.boolValue.map { "\($0)" }, value?["value"]?.doubleValue.map { "\($0)" }, value?["unit"]?.stringValue,
             Self.epoch(value?["start"]).map { "\($0)" }, Self.epoch(value?["end"]).map { "\($0)" }, value?["source"]?.stringValue]
        }
        for type in ["bodyMass", "heartRate"] {
            let cli = try await CLI.run(["latest", "--type", type, "--json"])
            #expect(cli.status == 0, "\(cli.stderr)")
            let reference = figures(cli.json)
            #expect(reference[0] == "true" && reference[1] != nil && reference[3] != nil, "the world has a \(type): \(cli.stdout)")
            let mcp = try await MCPInterface.call("latest", ["type": .string(type)])
            #expect(mcp.ok, "\(mcp.value)")
            #expect(figures(mcp.value) == reference, "MCP \(type)")
            let api = try await https.get("/api/v1/health/latest?type=\(type)")
            #expect(api.status == 200, "\(api.value)")
            #expect(figures(api.value) == reference, "HTTPS \(type)")
            // The node has no "latest": its newest sample through health.query is the same one.
            let node = try await NodeInterface.invoke("health.query", ["type": .string(type), "startISO": "2025-01-01",
                                                                       "limit": 1, "ascending": false])
            #expect(node.ok, "\(node.value)")
            let newest = node.value["samples"]?.arrayValue?.first
            #expect([newest?["value"]?.doubleValue.map { "\($0)" }, Self.epoch(newest?["dateISO"]).map { "\($0)" },
                     Self.epoch(newest?["endDateISO"]).map { "\($0)" }] == [reference[1], reference[3], reference[4]],
                    "node \(type): \(newest.map { "\($0)" } ?? "nothing")")
        }
    }

    // MARK: workouts

    static func workoutRow(_ workout: JSONValue) -> [String?] {
        [workout["uuid"]?.stringValue, workout["activity_type"]?.stringValue, epoch(workout["start"]).map { "\($0)" },
         epoch(workout["end"]).map { "\($0)" }, workout["duration_minutes"]?.doubleValue.map { "\($0)" },
         workout["distance_km"]?.doubleValue.map { "\($0)" }, workout["energy_kcal"]?.doubleValue.map { "\($0)" },
         workout["source"]?.stringValue, workout["route_point_count"]?.doubleValue.map { "\($0)" }]
    }

    @Test func workoutsAndOneWorkoutWithItsRoute() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        let cli = try await CLI.run(["workouts", "--from", Self.range.start, "--to", Self.range.end, "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = (cli.json?["workouts"]?.arrayValue ?? []).map(Self.workoutRow)
        #expect(reference.count >= 3, "the demo runs: \(cli.stdout.prefix(300))")
        #expect(cli.json?["count"]?.doubleValue == Double(reference.count))
        let mcp = try await MCPInterface.call("list_workouts", ["start": .string(Self.range.start), "end": .string(Self.range.end)])
        #expect(mcp.ok, "\(mcp.value)")
        #expect((mcp.value["workouts"]?.arrayValue ?? []).map(Self.workoutRow) == reference, "MCP")
        let api = try await https.get("/api/v1/health/workouts?start=\(Self.range.start)&end=\(Self.range.end)")
        #expect(api.status == 200, "\(api.value)")
        #expect((api.value["workouts"]?.arrayValue ?? []).map(Self.workoutRow) == reference, "HTTPS")

        // One workout with a route: the same record, statistics and route summary.
        let withRoute = try #require(reference.first { ($0[8].flatMap(Double.init) ?? 0) > 0 }, "a workout with a route")
        let uuid = try #require(withRoute[0])
        func detail(_ value: JSONValue) -> [String] {
            let route = value["route"]
            let summary = ["point_count", "distance_km", "elevation_gain_m", "min_elevation_m", "max_elevation_m",
                           "average_speed_mps", "pace_min_per_km"].map { "\($0)=\(route?[$0]?.doubleValue.map { "\($0)" } ?? "-")" }
            let bounds = ["min_latitude", "max_latitude", "min_longitude", "max_longitude"]
                .map { "\($0)=\(route?["bounds"]?[$0]?.doubleValue.map { "\($0)" } ?? "-")" }
            let statistics = (value["statistics"]?.arrayValue ?? []).map { "\($0.jsonText)" }.sorted()
            return Self.workoutRow(value).map { $0 ?? "-" } + summary + bounds
                + ["route \(Self.epoch(route?["start"]) ?? -1)…\(Self.epoch(route?["end"]) ?? -1)"] + statistics
                + ["events \(value["events"]?.arrayValue?.count ?? -1)"]
        }
        let one = try await CLI.run(["workouts", "--uuid", uuid, "--json"])
        #expect(one.status == 0, "\(one.stderr)")
        let oneReference = detail(try #require(one.json))
        #expect(oneReference.prefix(9) == ArraySlice(withRoute.map { $0 ?? "-" }), "the detail is the listed workout")
        #expect(one.json?["route"]?["point_count"]?.doubleValue == withRoute[8].flatMap(Double.init))
        #expect((one.json?["route"]?["distance_km"]?.doubleValue ?? 0) > 0 && !(one.json?["statistics"]?.arrayValue ?? []).isEmpty)
        let mcpOne = try await MCPInterface.call("get_workout", ["uuid": .string(uuid), "route_limit": 0])
        #expect(mcpOne.ok, "\(mcpOne.value)")
        #expect(detail(mcpOne.value) == oneReference, "MCP")
        let apiOne = try await https.get("/api/v1/health/workouts/\(uuid)?route_limit=0")
        #expect(apiOne.status == 200, "\(apiOne.value)")
        #expect(detail(apiOne.value) == oneReference, "HTTPS")
    }

    // MARK: activity summaries

    @Test func activitySummaries() async throws {
        let service = try await LiveWorld.service
        let https = try await HTTPSInterface.start(service: service)
        defer { Task { await https.stop() } }
        let (start, end) = ("2025-05-30", "2025-06-10")
        func days(_ list: [JSONValue]?) -> [[String?]] {
            (list ?? []).map { day in
                [day["date"]?.stringValue] + ["active_energy_burned", "active_energy_burned_goal", "apple_exercise_time",
                                              "apple_exercise_time_goal", "apple_stand_hours", "apple_stand_hours_goal"]
                    .map { day[$0]?.doubleValue.map { "\($0)" } }
            }
        }
        let cli = try await CLI.run(["activity", "--from", start, "--to", end, "--json"], home: try await LiveWorld.home)
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = days(cli.json?["summaries"]?.arrayValue)
        #expect(reference.map { $0[0] } == Array(LiveWorld.summaryDays.reversed()), "newest first: \(cli.stdout.prefix(300))")
        #expect(reference.first?[1] == "500.5" && reference.last?[1] == "400.5")
        let mcp = try await MCPInterface.call("activity_summaries", ["start": .string(start), "end": .string(end)], service: service)
        #expect(mcp.ok, "\(mcp.value)")
        #expect(days(mcp.value["summaries"]?.arrayValue) == reference, "MCP")
        let api = try await https.get("/api/v1/health/activity?start=\(start)&end=\(end)")
        #expect(api.status == 200, "\(api.value)")
        #expect(days(api.value["summaries"]?.arrayValue) == reference, "HTTPS")
    }

    // MARK: types

    @Test func types() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        func types(_ list: [JSONValue]?) -> [String: [String?]] {
            Dictionary((list ?? []).compactMap { record in
                record["type"]?.stringValue.map { ($0, [record["kind"]?.stringValue, record["count"]?.doubleValue.map { "\($0)" },
                                                        Self.epoch(record["first"]).map { "\($0)" },
                                                        Self.epoch(record["last"]).map { "\($0)" }]) }
            }, uniquingKeysWith: { first, _ in first })
        }
        let cli = try await CLI.run(["types", "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = types(cli.json?["types"]?.arrayValue)
        #expect(reference.count >= 8, "\(cli.stdout.prefix(300))")
        #expect(["stepCount", "heartRate", "bodyMass", "sleepAnalysis"].allSatisfy { (reference[$0]?[1].flatMap(Double.init) ?? 0) > 0 })
        #expect(cli.json?["count"]?.doubleValue == Double(reference.count))
        let mcp = try await MCPInterface.call("list_types", [:])
        #expect(mcp.ok, "\(mcp.value)")
        #expect(types(mcp.value["types"]?.arrayValue) == reference, "MCP")
        // The paired API lists what is shared with the client: everything here.
        let api = try await https.get("/api/v1/health/types")
        #expect(api.status == 200, "\(api.value)")
        #expect(types(api.value["types"]?.arrayValue) == reference, "HTTPS")
    }

    // MARK: sources and priority

    @Test func sourcesAndPriorityOfAType() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        func sources(_ value: JSONValue?) -> [[String?]] {
            (value?["sources"]?.arrayValue ?? []).map { source in
                [source["name"]?.stringValue, source["category"]?.stringValue, source["bundle_id"]?.stringValue,
                 source["device"]?.stringValue, source["count"]?.doubleValue.map { "\($0)" }, source["rank"]?.doubleValue.map { "\($0)" }]
            }
        }
        func order(_ value: JSONValue?) -> [String]? { value?["priority_order"]?.arrayValue?.compactMap(\.stringValue) }
        // Steps and sleep come from both the iPhone and the Watch.
        for type in ["stepCount", "sleepAnalysis"] {
            let cli = try await CLI.run(["sources", "--type", type, "--json"])
            #expect(cli.status == 0, "\(cli.stderr)")
            let reference = sources(cli.json)
            let priority = try #require(order(cli.json))
            #expect(reference.count >= 2 && priority.count >= 2, "iPhone and Watch record \(type): \(cli.stdout.prefix(300))")
            #expect(reference.allSatisfy { ($0[4].flatMap(Double.init) ?? 0) > 0 })
            let mcp = try await MCPInterface.call("list_sources", ["type": .string(type)])
            #expect(mcp.ok, "\(mcp.value)")
            #expect(sources(mcp.value) == reference && order(mcp.value) == priority, "MCP \(type)")
            let api = try await https.get("/api/v1/health/sources?type=\(type)")
            #expect(api.status == 200, "\(api.value)")
            #expect(sources(api.value) == reference && order(api.value) == priority, "HTTPS \(type)")
            // `priority` without --set reads the same order (only the CLI names it on its own).
            let read = try await CLI.run(["priority", "--type", type, "--json"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(order(read.json) == priority && sources(read.json) == reference, "CLI priority \(type)")
            #expect(read.json?["user_ordered"] == cli.json?["user_ordered"])
        }
        // Every source, without a type.
        let all = try await CLI.run(["sources", "--json"])
        #expect(all.status == 0, "\(all.stderr)")
        let everyone = sources(all.json)
        #expect(everyone.count >= 3 && everyone.allSatisfy { ($0[4].flatMap(Double.init) ?? 0) > 0 }, "\(all.stdout.prefix(300))")
        let mcpAll = try await MCPInterface.call("list_sources", [:])
        #expect(sources(mcpAll.value) == everyone, "MCP every source")
        let apiAll = try await https.get("/api/v1/health/sources")
        #expect(apiAll.status == 200, "\(apiAll.value)")
        #expect(sources(apiAll.value) == everyone, "HTTPS every source")
    }

    // MARK: today

    @Test func today() async throws {
        let service = try await LiveWorld.service
        let https = try await HTTPSInterface.start(service: service)
        defer { Task { await https.stop() } }
        func figures(_ value: JSONValue?) -> [String?] {
            [value?["date"]?.stringValue, value?["time_zone"]?.stringValue, Self.epoch(value?["start"]).map { "\($0)" },
             value?["steps"]?.doubleValue.map { "\($0)" }, value?["active_energy_kcal"]?.doubleValue.map { "\($0)" },
             value?["resting_heart_rate_bpm"]?.doubleValue.map { "\($0)" },
             value?["steps_source_priority"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ","),
             value?["sleep"]?["date"]?.stringValue, value?["sleep"]?["asleep_minutes"]?.doubleValue.map { "\($0)" },
             value?["workout_count"]?.doubleValue.map { "\($0)" }, value?["workout_minutes"]?.doubleValue.map { "\($0)" },
             (value?["workouts"]?.arrayValue ?? []).compactMap { $0["uuid"]?.stringValue }.joined(separator: ","),
             value?["merged"]?.boolValue.map { "\($0)" }]
        }
        let cli = try await CLI.run(["today", "--json"], home: try await LiveWorld.home)
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = figures(cli.json)
        #expect((reference[3].flatMap(Double.init) ?? 0) >= 1234, "today has steps: \(cli.stdout.prefix(300))")
        #expect(reference[1] == World.zone.identifier)
        let mcp = try await MCPInterface.call("health_today", [:], service: service)
        #expect(mcp.ok, "\(mcp.value)")
        #expect(figures(mcp.value) == reference, "MCP")
        let api = try await https.get("/api/v1/health/today")
        #expect(api.status == 200, "\(api.value)")
        #expect(figures(api.value) == reference, "HTTPS")
    }

    // MARK: changes

    @Test func changesSinceAnAnchor() async throws {
        let https = try await HTTPSInterface.start()
        defer { Task { await https.stop() } }
        func page(_ value: JSONValue?) -> [String] {
            (value?["added"]?.arrayValue ?? []).map { change in
                let object = change["sample"] ?? change["workout"]
                return "\(change["type"]?.stringValue ?? "?") \(object?["uuid"]?.stringValue ?? "?") "
                    + "\(Self.epoch(object?["start"]) ?? -1) \(object?["value"]?.doubleValue ?? -1)"
            } + (value?["deleted"]?.arrayValue ?? []).map { "deleted \($0["uuid"]?.stringValue ?? "?")" }
                + ["has_more \(value?["has_more"]?.boolValue.map { "\($0)" } ?? "?")"]
        }
        // From the beginning, then from the first answer's anchor.
        let cli = try await CLI.run(["changes", "--type", "bodyMass", "--limit", "5", "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let first = page(cli.json)
        #expect(first.count == 6 && first.last == "has_more true", "the world has weights: \(cli.stdout.prefix(300))")
        let anchor = try #require(cli.json?["anchor"]?.stringValue)
        let mcp = try await MCPInterface.call("get_changes", ["types": ["bodyMass"], "limit": 5])
        #expect(mcp.ok, "\(mcp.value)")
        #expect(page(mcp.value) == first, "MCP")
        #expect(mcp.value["anchor"]?.stringValue == anchor, "MCP anchor")
        let api = try await https.get("/api/v1/health/changes?types=bodyMass&limit=5")
        #expect(api.status == 200, "\(api.value)")
        #expect(page(api.value) == first, "HTTPS")
        #expect(api.value["anchor"]?.stringValue == anchor, "HTTPS anchor")

        let cliNext = try await CLI.run(["changes", "--type", "bodyMass", "--anchor", anchor, "--limit", "5", "--json"])
        #expect(cliNext.status == 0, "\(cliNext.stderr)")
        let next = page(cliNext.json)
        #expect(next.count == 6, "a second page: \(cliNext.stdout.prefix(300))")
        #expect(Set(next.dropLast()).isDisjoint(with: first.dropLast()), "the anchor moves on")
        let mcpNext = try await MCPInterface.call("get_changes", ["types": ["bodyMass"], "anchor": .string(anchor), "limit": 5])
        #expect(page(mcpNext.value) == next, "MCP since the anchor")
        #expect(mcpNext.value["anchor"] == cliNext.json?["anchor"])
        let apiNext = try await https.get("/api/v1/health/changes?types=bodyMass&anchor=\(anchor.queryEncoded)&limit=5")
        #expect(apiNext.status == 200, "\(apiNext.value)")
        #expect(page(apiNext.value) == next, "HTTPS since the anchor")
        #expect(apiNext.value["anchor"] == cliNext.json?["anchor"])

        // The current anchor is where the feed ends: reading on from it gives nothing, as every interface agrees.
        let now = try await https.get("/api/v1/health/changes/anchor")
        #expect(now.status == 200, "\(now.value)")
        let current = try #require(now.value["anchor"]?.stringValue)
        #expect(current == String(try await World.service.currentAnchor()))
        let cliNow = try await CLI.run(["changes", "--type", "bodyMass", "--anchor", current, "--json"])
        #expect(page(cliNow.json) == ["has_more false"] && cliNow.json?["anchor"]?.stringValue == current)
        let mcpNow = try await MCPInterface.call("get_changes", ["types": ["bodyMass"], "anchor": .string(current)])
        #expect(page(mcpNow.value) == ["has_more false"])
    }
}
