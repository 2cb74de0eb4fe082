import Foundation
import HealthDemo
import HealthMCP
import HealthModel
@testable import HealthService
import HealthStore
import MCP
import Testing

typealias JSON = MCP.Value

@Suite("MCP tools")
struct ToolTests {
    static let readTools: Set<String> = ["list_types", "list_sources", "query_samples", "summarize", "sleep_nights", "health_coverage",
                                         "list_workouts", "get_workout", "activity_summaries", "latest", "health_today", "energy_balance",
                                         "get_changes"]
    static let writeTools: Set<String> = ["log_food", "log_quantity", "log_weight", "log_water", "log_workout", "delete_entries"]

    @Test func listsReadAndWriteToolsWithSchemasAndHonestAnnotations() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let listed = try await harness.client.listTools()
        #expect(listed.tools == HealthToolbox(service: try await Fixture.service()).tools)
        #expect(Set(harness.tools.keys) == Self.readTools.union(Self.writeTools))
        for tool in harness.tools.values {
            #expect(tool.annotations.readOnlyHint == Self.readTools.contains(tool.name), "\(tool.name)")
            #expect(tool.annotations.destructiveHint == (tool.name == "delete_entries"), "\(tool.name)")
            #expect(tool.annotations.idempotentHint == !["log_quantity", "log_weight", "log_water", "log_workout"].contains(tool.name),
                    "\(tool.name): idempotent unless a call may omit its id")
            #expect(tool.inputSchema["type"]?.stringValue == "object", "\(tool.name)")
            #expect(tool.outputSchema?["type"]?.stringValue == "object", "\(tool.name)")
            #expect((tool.description ?? "").count > 80, "\(tool.name) needs a description an agent can choose by")
        }
    }

    @Test func listTypes() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let result = try await harness.ok("list_types")
        let types = try #require(result["types"]?.arrayValue)
        #expect(types.count >= 10)
        #expect(result["time_zone"]?.stringValue == Fixture.utc.identifier)
        let steps = try #require(types.first { $0["type"]?.stringValue == "stepCount" })
        #expect(steps["statistics"] == ["sum"])
        #expect(steps["aggregation"]?.stringValue == "cumulative")
        let heart = try #require(types.first { $0["type"]?.stringValue == "heartRate" })
        #expect(heart["unit"]?.stringValue == "bpm")
        #expect((heart["count"]?.intValue ?? 0) > 1000)
    }

    @Test func listSourcesInPriorityOrder() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let steps = try await harness.ok("list_sources", ["type": "HKQuantityTypeIdentifierStepCount"])
        #expect(steps["type"]?.stringValue == "stepCount")
        #expect(steps["priority_order"] == [.string(DemoGenerator.watch.name), .string(DemoGenerator.iPhone.name)])
        #expect(steps["user_ordered"] == false)
        #expect(steps["sources"]?.arrayValue?.first?["rank"]?.intValue == 1)
        let all = try await harness.ok("list_sources")
        #expect((all["count"]?.intValue ?? 0) >= 4)
        #expect(all["priority_order"] == nil)
    }

    @Test func querySamplesNewestFirstInTheCanonicalUnit() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let result = try await harness.ok("query_samples", ["type": "heartRate", "limit": 10])
        let samples = try #require(result["samples"]?.arrayValue)
        #expect(samples.count == 10)
        #expect(result["unit"]?.stringValue == "bpm")
        #expect(result["has_more"] == true)
        #expect(result["next_cursor"]?.stringValue != nil)
        let starts = samples.compactMap { $0["start"]?.stringValue }.compactMap(ISO8601.date)
        #expect(starts == starts.sorted(by: >))
        #expect(samples.allSatisfy { ($0["value"]?.number ?? 0) > 30 && $0["unit"]?.stringValue == "bpm" })

        let sleep = try await harness.ok("query_samples", ["type": "sleepAnalysis", "start": "1d", "order": "asc", "limit": 5])
        #expect(sleep["samples"]?.arrayValue?.allSatisfy { $0["category"]?.stringValue != nil } == true)
    }

    @Test func summarizeMergesStepsToTheTruth() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let report = try await Fixture.report()
        let result = try await harness.ok("summarize", ["type": "stepCount", "start": "2024-05-08", "end": "2024-05-15"])
        #expect(result["merged"] == true)
        #expect(result["source_priority"]?.arrayValue?.first?.stringValue == DemoGenerator.watch.name)
        #expect(result["merge_note"]?.stringValue?.contains("priority") == true)
        let buckets = try #require(result["buckets"]?.arrayValue)
        #expect(buckets.map { $0["date"]?.stringValue ?? "" } == (8...14).map { "2024-05-\(String(format: "%02d", $0))" })
        for bucket in buckets {
            let date = bucket["date"]?.stringValue ?? ""
            let truth = try #require(report.trueSteps[date])
            #expect(abs((bucket["sum"]?.number ?? 0) - truth) < 1, "\(date)")
        }
        let total = buckets.compactMap { $0["sum"]?.number }.reduce(0, +)
        #expect(abs((result["total_sum"]?.number ?? 0) - total) < 1)

        let raw = try await harness.call("summarize", ["type": "stepCount", "start": "2024-05-08", "end": "2024-05-15"])
        #expect(harness.text(raw).contains("Merged by source priority (\(DemoGenerator.watch.name) > \(DemoGenerator.iPhone.name))"))
    }

    @Test func summarizeDiscreteBySourceAndCategories() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let heart = try await harness.ok("summarize", ["type": "heartRate", "start": "2w", "interval": "week",
                                                       "statistics": ["average", "max"]])
        #expect(heart["merged"] == false)
        #expect(heart["statistics"] == ["average", "max"])
        let weeks = try #require(heart["buckets"]?.arrayValue)
        #expect(weeks.count == 3)  // 2024-05-02 (Thursday) → the weeks of Apr 29, May 6 and May 13
        #expect(weeks.allSatisfy { $0["average"] != nil && $0["max"] != nil && $0["min"] == nil })

        let steps = try await harness.ok("summarize", ["type": "stepCount", "start": "3d", "by_source": true,
                                                       "time_zone": "Europe/Paris"])
        #expect(steps["time_zone"]?.stringValue == "Europe/Paris")
        let series = try #require(steps["by_source"]?.arrayValue)
        #expect(series.count == 2)
        let merged = steps["buckets"]?.arrayValue?.compactMap { $0["sum"]?.number }.reduce(0, +) ?? 0
        let summed = series.flatMap { $0["buckets"]?.arrayValue ?? [] }.compactMap { $0["sum"]?.number }.reduce(0, +)
        #expect(summed > merged * 1.1, "adding the sources over-counts; the merge must not")

        let stand = try await harness.ok("summarize", ["type": "appleStandHour", "start": "2d"])
        let durations = stand["buckets"]?.arrayValue?.compactMap { $0["durations_minutes"]?.objectValue }
        #expect(durations?.isEmpty == false)

        let total = try await harness.ok("summarize", ["type": "activeEnergyBurned", "start": "7d", "interval": "total"])
        #expect(total["buckets"]?.arrayValue?.count == 1)
        #expect(total["interval"]?.stringValue == "total")
    }

    @Test func sleepNights() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let result = try await harness.ok("sleep_nights")
        let nights = try #require(result["nights"]?.arrayValue)
        #expect(nights.count == 7)
        #expect(nights.last?["date"]?.stringValue == "2024-05-15")
        #expect(nights.allSatisfy { ($0["asleep_minutes"]?.number ?? 0) > 200 && $0["bedtime"] != nil })
        #expect(result["merged"] == true)
        #expect((result["average_asleep_minutes"]?.number ?? 0) > 200)
    }

    @Test func listAndGetAWorkoutWithItsRoute() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let list = try await harness.ok("list_workouts", ["activity_type": "running", "limit": 1])
        let workout = try #require(list["workouts"]?.arrayValue?.first)
        #expect(workout["activity_type"]?.stringValue == "running")
        #expect(list["has_more"] == true)
        let uuid = try #require(workout["uuid"]?.stringValue)
        let pointCount = try #require(workout["route_point_count"]?.intValue)
        #expect(pointCount > 300)

        let detail = try await harness.ok("get_workout", ["uuid": .string(uuid), "route_limit": 50])
        #expect(detail["route"]?["point_count"]?.intValue == pointCount)
        #expect((detail["route"]?["distance_km"]?.number ?? 0) > 1)
        #expect(detail["route_points"]?.arrayValue?.count == 50)
        #expect(detail["next_route_offset"]?.intValue == 50)
        let heart = detail["statistics"]?.arrayValue?.first { $0["type"]?.stringValue == "heartRate" }
        #expect(heart?["average"]?.number == 152)
        #expect(heart?["unit"]?.stringValue == "bpm")

        let tail = try await harness.ok("get_workout", ["uuid": .string(uuid), "route_offset": .int(pointCount - 10),
                                                        "route_limit": 100])
        #expect(tail["route_points"]?.arrayValue?.count == 10)
        #expect(tail["next_route_offset"] == nil)
        let summaryOnly = try await harness.ok("get_workout", ["uuid": .string(uuid), "route_limit": 0])
        #expect(summaryOnly["route_points"]?.arrayValue?.isEmpty == true)
    }

    @Test func activitySummariesEmptyWithANote() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let result = try await harness.ok("activity_summaries")
        #expect(result["count"]?.intValue == 0)
        #expect(result["note"]?.stringValue?.contains("activeEnergyBurned") == true)
    }

    @Test func activitySummariesFromImportedDocuments() async throws {
        let store = try SQLiteHealthStore.inMemory()
        let day = ISO8601.date("2024-05-14T00:00:00Z")!
        try await store.save(documents: [HealthDocument(
            uuid: UUID(), kind: .activitySummary, start: day, end: day.addingTimeInterval(86_400), sourceName: nil,
            json: #"{"dateComponents":"2024-05-14","activeEnergyBurned":"512.3","activeEnergyBurnedGoal":"600","activeEnergyBurnedUnit":"Cal","appleExerciseTime":"34","appleExerciseTimeGoal":"30","appleStandHours":"11","appleStandHoursGoal":"12"}"#)])
        let service = HealthService(store: store, homeTimeZone: Fixture.utc, clock: { Fixture.end })
        let toolbox = HealthToolbox(service: service)
        let result = await toolbox.call("activity_summaries", arguments: [:])
        #expect(result.isError == false)
        let summary = try #require(result.structuredContent?["summaries"]?.arrayValue?.first)
        #expect(summary["date"]?.stringValue == "2024-05-14")
        #expect(summary["active_energy_burned"]?.number == 512.3)
        #expect(summary["apple_stand_hours_goal"]?.number == 12)
        let schema = try #require(toolbox.tools.first { $0.name == "activity_summaries" }?.outputSchema)
        #expect(SchemaChecker.check(try #require(result.structuredContent), against: schema).isEmpty)
    }

    @Test func latestWeightAndCumulativeNote() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let weight = try await harness.ok("latest", ["type": "HKQuantityTypeIdentifierBodyMass"])
        #expect(weight["type"]?.stringValue == "bodyMass")
        #expect(weight["found"] == true)
        #expect(weight["unit"]?.stringValue == "kg")
        #expect((weight["value"]?.number ?? 0) > 40)
        #expect((weight["age_hours"]?.number ?? -1) >= 0)
        let steps = try await harness.ok("latest", ["type": "stepCount"])
        #expect(steps["note"]?.stringValue?.contains("cumulative") == true)
        let none = try await harness.ok("latest", ["type": "vo2Max"])
        #expect(none["found"] == false)
    }

    @Test func healthToday() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let today = try await harness.ok("health_today")
        #expect(today["date"]?.stringValue == "2024-05-15")
        #expect((today["steps"]?.number ?? 0) > 0)
        #expect(today["merged"] == true)
        #expect(today["steps_source_priority"]?.arrayValue?.first?.stringValue == DemoGenerator.watch.name)
        #expect((today["sleep"]?["asleep_minutes"]?.number ?? 0) > 200)
    }
}

@Suite("MCP pagination and size")
struct PagingTests {
    @Test func querySamplesWalksToTheEndWithoutDuplicates() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let service = try await Fixture.service()
        let start = ISO8601.date("2024-05-10T00:00:00Z")!, end = Fixture.end
        let expected = try await service.store.samples(SampleQuery(type: "heartRate", start: start, end: end,
                                                                   matching: .strictStartDate)).samples.count
        var seen = Set<String>()
        var arguments: [String: Value] = ["type": "heartRate", "start": "2024-05-10", "end": "now", "order": "asc", "limit": 300]
        var pages = 0, previous: Date? = nil
        while true {
            let page = try await harness.ok("query_samples", arguments)
            pages += 1
            for sample in page["samples"]?.arrayValue ?? [] {
                let start = sample["start"]?.stringValue ?? ""
                let key = start + "|" + (sample["source"]?.stringValue ?? "")
                let inserted = seen.insert(key).inserted
                #expect(inserted, "duplicate \(start)")
                let date = try #require(ISO8601.date(start))
                if let previous { #expect(date >= previous) }
                previous = date
            }
            guard page["has_more"] == true, let cursor = page["next_cursor"]?.stringValue else { break }
            arguments = ["cursor": .string(cursor)]
        }
        #expect(seen.count == expected)
        #expect(pages == (expected + 299) / 300)
    }

    @Test func summarizePagesOnBucketEdges() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        var arguments: [String: Value] = ["type": "stepCount", "start": "2024-04-20T00:07:00Z", "end": "2024-05-15T00:00:00Z",
                                          "interval": "15min", "skip_empty": false]
        var buckets: [Value] = []
        var pages = 0
        while true {
            let page = try await harness.ok("summarize", arguments)
            pages += 1
            #expect(page["merged"] == true)
            buckets += page["buckets"]?.arrayValue ?? []
            guard page["has_more"] == true, let cursor = page["next_cursor"]?.stringValue else { break }
            arguments = ["cursor": .string(cursor)]
        }
        #expect(pages == 3)
        #expect(buckets.count == 25 * 96)
        for (a, b) in zip(buckets, buckets.dropFirst()) { #expect(a["end"] == b["start"]) }
        #expect(buckets.first?["start"]?.stringValue == "2024-04-20T00:07:00Z")
        #expect(buckets.dropFirst().first?["start"]?.stringValue == "2024-04-20T00:22:00Z")  // 15-minute buckets from the minute of the start, as the engine cuts them
        let total = try await harness.ok("summarize", ["type": "stepCount", "start": "2024-04-20T00:07:00Z",
                                                       "end": "2024-05-15T00:00:00Z", "interval": "total"])
        let paged = buckets.compactMap { $0["sum"]?.number }.reduce(0, +)
        #expect(abs(paged - (total["total_sum"]?.number ?? 0)) < 1)
    }

    @Test func listWorkoutsAndSleepNightsPage() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let all = try await harness.ok("list_workouts", ["limit": 500])
        var uuids: [String] = []
        var arguments: [String: Value] = ["limit": 2, "order": "asc"]
        while true {
            let page = try await harness.ok("list_workouts", arguments)
            uuids += page["workouts"]?.arrayValue?.compactMap { $0["uuid"]?.stringValue } ?? []
            guard page["has_more"] == true, let cursor = page["next_cursor"]?.stringValue else { break }
            arguments = ["cursor": .string(cursor)]
        }
        #expect(uuids.count == all["count"]?.intValue)
        #expect(Set(uuids).count == uuids.count)

        var nights: [String] = []
        arguments = ["start": "2023-01-01", "end": "now"]
        var pages = 0
        while true {
            let page = try await harness.ok("sleep_nights", arguments)
            pages += 1
            nights += page["nights"]?.arrayValue?.compactMap { $0["date"]?.stringValue } ?? []
            guard page["has_more"] == true, let cursor = page["next_cursor"]?.stringValue else { break }
            arguments = ["cursor": .string(cursor)]
        }
        #expect(pages == 2)
        #expect(nights.count == Set(nights).count)
        #expect(nights.count >= 29)
    }

    /// Called on the toolbox directly: decoding 1 MB with the SDK's client costs seconds in a debug build.
    @Test func repliesStayUnderOneMegabyte() async throws {
        let toolbox = HealthToolbox(service: try await Fixture.service())
        let result = await toolbox.call("query_samples", arguments: ["type": "heartRate", "start": "30d", "limit": 5000])
        let size = try JSONEncoder().encode(result).count
        #expect(size < 1_000_000)
        #expect(size > 500_000, "the page should be filled close to the limit, got \(size)")
        let page = try #require(result.structuredContent)
        #expect(page["has_more"] == true)
        let text = result.content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined()
        #expect(text.contains("call query_samples with cursor="))
        let count = try #require(page["count"]?.intValue)
        #expect(count < 5000)
        let schema = try #require(toolbox.tools.first { $0.name == "query_samples" }?.outputSchema)
        #expect(SchemaChecker.check(page, against: schema).isEmpty)
        // The next page starts right after the cut.
        let samples = try #require(page["samples"]?.arrayValue)
        let cursor = try #require(page["next_cursor"])
        let next = await toolbox.call("query_samples", arguments: ["cursor": cursor])
        let following = try #require(next.structuredContent?["samples"]?.arrayValue)
        #expect(Set(samples.map { $0["start"] }).isDisjoint(with: following.prefix(100).map { $0["start"] }))
        let last = try #require(samples.last?["start"]?.stringValue.flatMap(ISO8601.date))
        let first = try #require(following.first?["start"]?.stringValue.flatMap(ISO8601.date))
        #expect(first < last)
    }

    @Test func aSmallBudgetCutsEveryList() async throws {
        let budget = 40_000
        let harness = try await Harness.make(maxReplyBytes: budget)
        defer { Task { await harness.close() } }
        let calls: [(String, [String: Value])] = [
            ("summarize", ["type": "heartRate", "start": "30d", "interval": "hour"]),
            ("query_samples", ["type": "heartRate", "start": "30d", "limit": 5000]),
        ]
        for (name, arguments) in calls {
            let result = try await harness.call(name, arguments)
            #expect(result.isError == false, "\(name): \(harness.text(result))")
            #expect(try JSONEncoder().encode(result).count <= budget, "\(name)")
            #expect(result.structuredContent?["has_more"] == true, "\(name)")
        }
        let workout = try await harness.ok("list_workouts", ["activity_type": "running", "limit": 1])
        let uuid = try #require(workout["workouts"]?.arrayValue?.first?["uuid"])
        let detail = try await harness.call("get_workout", ["uuid": uuid, "route_limit": 5000])
        #expect(try JSONEncoder().encode(detail).count <= budget)
        #expect(detail.structuredContent?["next_route_offset"]?.intValue != nil)
    }
}

@Suite("MCP errors")
struct ErrorTests {
    @Test func unknownTypeSuggests() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let message = try await harness.failure("summarize", ["type": "stepcont"], code: "HEALTH_INVALID_TYPE")
        #expect(message.contains("did you mean stepCount"))
        let other = try await harness.failure("query_samples", ["type": "qwertyuiop"], code: "HEALTH_INVALID_TYPE")
        #expect(other.contains("list_types"))
        _ = try await harness.failure("latest", ["type": "steps_typo_zz"], code: "HEALTH_INVALID_TYPE")
    }

    @Test func badDatesAndRanges() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let message = try await harness.failure("summarize", ["type": "stepCount", "start": "last tuesday"],
                                                code: "HEALTH_INVALID_RANGE")
        #expect(message.hasPrefix("start: cannot read the date"))
        let reversed = try await harness.failure("sleep_nights", ["start": "2024-05-10", "end": "2024-05-01"],
                                                 code: "HEALTH_INVALID_RANGE")
        #expect(reversed.contains("before the start"))
        _ = try await harness.failure("query_samples", ["type": "heartRate", "end": "soon"], code: "HEALTH_INVALID_RANGE")
        _ = try await harness.failure("summarize", ["type": "stepCount", "time_zone": "Mars/Olympus"],
                                      code: "HEALTH_INVALID_TIME_ZONE")
    }

    @Test func wrongStatistics() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let message = try await harness.failure("summarize", ["type": "stepCount", "statistics": ["average"]],
                                                code: "HEALTH_NO_SUMMARY")
        #expect(message.contains("sum"))
        _ = try await harness.failure("summarize", ["type": "heartRate", "statistics": "sum"], code: "HEALTH_NO_SUMMARY")
        let sleep = try await harness.failure("summarize", ["type": "sleepAnalysis"], code: "HEALTH_NO_SUMMARY")
        #expect(sleep.contains("sleep_nights"))
        _ = try await harness.failure("summarize", ["type": "stepCount", "statistics": ["median"]],
                                      code: "HEALTH_INVALID_ARGUMENT")
    }

    @Test func badCursorsAndArguments() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let message = try await harness.failure("query_samples", ["cursor": "not-a-cursor"], code: "HEALTH_INVALID_ARGUMENT")
        #expect(message.contains("next_cursor"))
        let page = try await harness.ok("list_workouts", ["limit": 1])
        let cursor = try #require(page["next_cursor"])
        let wrongTool = try await harness.failure("query_samples", ["cursor": cursor], code: "HEALTH_INVALID_ARGUMENT")
        #expect(wrongTool.contains("belongs to workouts"))
        let unknown = try await harness.failure("summarize", ["type": "stepCount", "from": "7d"], code: "HEALTH_INVALID_ARGUMENT")
        #expect(unknown.contains("start"))
        _ = try await harness.failure("query_samples", ["type": "heartRate", "limit": 0], code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("query_samples", ["type": "heartRate", "limit": 1e300], code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("query_samples", ["type": "heartRate", "source": "Nobody's Phone"],
                                      code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("query_samples", [:], code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("summarize", ["type": "stepCount", "interval": "fortnightly"],
                                      code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("list_workouts", ["activity_type": "runing"], code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("get_workout", ["uuid": "123"], code: "HEALTH_INVALID_ARGUMENT")
        _ = try await harness.failure("get_workout", ["uuid": .string(UUID().uuidString)], code: "HEALTH_NOT_FOUND")
        _ = try await harness.failure("no_such_tool", [:], code: "HEALTH_INVALID_ARGUMENT")
        // A tampered cursor (its page far outside its range) is an argument error, not a crash.
        let long = try await harness.ok("summarize", ["type": "stepCount", "start": "30d", "interval": "15min"])
        let genuine = try #require(long["next_cursor"]?.stringValue)
        for (key, value) in [("index", JSON.int(999_999_999)), ("index", .int(Int.max)), ("size", .int(0)),
                             ("anchor", .string("0001-01-01T00:00:00Z"))] {
            var envelope = try JSONDecoder().decode([String: Value].self, from: try #require(Base64URL.decode(genuine)))
            var state = try #require(envelope["state"]?.objectValue)
            state[key] = value
            envelope["state"] = .object(state)
            let tampered = Base64URL.encode(try JSONEncoder().encode(envelope))
            let result = try await harness.call("summarize", ["cursor": .string(tampered)])
            if key == "anchor" {
                #expect(result.isError == true || result.structuredContent?["buckets"] != nil)
            } else {
                #expect(harness.text(result).hasPrefix("HEALTH_INVALID_ARGUMENT: "), "\(key)")
            }
        }
        // The server is still there.
        _ = try await harness.ok("list_types")
    }
}
