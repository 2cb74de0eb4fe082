import Foundation
import HealthAPI
import HealthMCP
import HealthModel
import HealthService
import HealthStore
import MCP
import Testing

/// The prompts: listed with their arguments, filled with the same merged numbers the tools give for the same range,
/// arguments checked.
@Suite("MCP prompts")
struct PromptTests {
    func text(_ messages: [Prompt.Message]) -> String {
        messages.compactMap { message -> String? in
            guard message.role == .user, case .text(let text) = message.content else { return nil }
            return text
        }.joined(separator: "\n")
    }

    /// The line of `text` that starts with `day`.
    func line(_ text: String, day: String) -> String? {
        text.split(separator: "\n").map(String.init).first { $0.hasPrefix(day) }
    }

    @Test func listsTheFivePromptsWithTheirArguments() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let (prompts, _) = try await harness.client.listPrompts()
        #expect(prompts.map(\.name) == ["daily_check_in", "weekly_trends", "sleep_report", "training_load", "doctor_visit_summary"])
        #expect(prompts.allSatisfy { ($0.description ?? "").count > 20 })
        let doctor = try #require(prompts.last)
        #expect(doctor.arguments?.map(\.name) == ["days"])
        #expect(doctor.arguments?.first?.required == false)
    }

    @Test func weeklyTrendsCarriesTheSummarizeToolsDailyNumbers() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let (_, messages) = try await harness.client.getPrompt(name: "weekly_trends")
        #expect(messages.count == 1)
        let text = text(messages)
        let steps = try await harness.ok("summarize", ["type": "stepCount", "start": "7d", "interval": "day"])
        let energy = try await harness.ok("summarize", ["type": "activeEnergyBurned", "start": "7d", "interval": "day"])
        let resting = try await harness.ok("summarize", ["type": "restingHeartRate", "start": "7d", "interval": "day"])
        let days = try #require(steps["buckets"]?.arrayValue)
        #expect(days.count == 7)
        for (index, bucket) in days.enumerated() {
            let day = try #require(bucket["date"]?.stringValue)
            let row = try #require(line(text, day: day), "no row for \(day) in:\n\(text)")
            let cells = row.split(separator: " ").map(String.init)
            #expect(cells.count == 4, "\(row)")
            #expect(cells[1] == TextFormat.number(bucket["sum"]?.number), "steps of \(day): \(row)")
            #expect(cells[2] == TextFormat.number(energy["buckets"]?.arrayValue?[index]["sum"]?.number), "energy of \(day)")
            #expect(cells[3] == TextFormat.number(resting["buckets"]?.arrayValue?[index]["average"]?.number, decimals: nil),
                    "resting heart rate of \(day)")
        }
        // The week's totals are the summarize tool's total over the same range.
        let firstDay = try #require(days.first?["date"]?.stringValue)
        let week = try await harness.ok("summarize", ["type": "stepCount", "start": .string(firstDay), "interval": "total"])
        let total = TextFormat.number(week["buckets"]?.arrayValue?.first?["sum"]?.number)
        #expect(text.contains("This week (\(firstDay) → 2024-05-15, today so far included): \(total) steps total;"), "\(text)")
        #expect(text.contains("The week before (2024-05-02 → 2024-05-08)"))
    }

    @Test func dailyCheckInCarriesTodayAndTheLatestWeight() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let text = text(try await harness.client.getPrompt(name: "daily_check_in").messages)
        let today = try await harness.ok("health_today")
        let weight = try await harness.ok("latest", ["type": "bodyMass"])
        #expect(text.contains("Daily check-in for 2024-05-15 (\(Fixture.utc.identifier)), 2024-05-15 00:00 → 12:00"), "\(text)")
        #expect(text.contains("- Steps today: \(TextFormat.number(today["steps"]?.number)) steps"), "\(text)")
        #expect(text.contains("- Active energy today: \(TextFormat.number(today["active_energy_kcal"]?.number)) kcal"), "\(text)")
        #expect(text.contains("- Latest weight: \(TextFormat.number(weight["value"]?.number, decimals: 1)) kg"), "\(text)")
        if let asleep = today["sleep"]?["asleep_minutes"]?.number {
            #expect(text.contains("\(TextFormat.minutes(asleep)) asleep"), "\(text)")
        }
        #expect(text.contains("- Workouts today: \(today["workout_count"]?.intValue ?? -1)"))
    }

    @Test func sleepReportAndTrainingLoadMatchTheirTools() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let sleepText = text(try await harness.client.getPrompt(name: "sleep_report").messages)
        let nights = try await harness.ok("sleep_nights")
        let average = try #require(nights["average_asleep_minutes"]?.number)
        #expect(sleepText.contains("Average asleep: \(TextFormat.minutes(average)) over \(nights["count"]?.intValue ?? -1) nights."), "\(sleepText)")
        for night in nights["nights"]?.arrayValue ?? [] {
            let day = try #require(night["date"]?.stringValue)
            let row = try #require(line(sleepText, day: day))
            #expect(row.contains(TextFormat.minutes(night["asleep_minutes"]?.number)), "\(row)")
        }

        let loadText = text(try await harness.client.getPrompt(name: "training_load").messages)
        // 28 days ending 2024-05-15: weeks from 2024-04-18, 04-25, 05-02 and 05-09 (to now).
        let weeks = [("2024-04-18", "2024-04-25"), ("2024-04-25", "2024-05-02"), ("2024-05-02", "2024-05-09"), ("2024-05-09", nil)]
        for (start, end) in weeks {
            var arguments: [String: Value] = ["start": .string(start), "limit": 500]
            if let end { arguments["end"] = .string(end) }
            let listed = try await harness.ok("list_workouts", arguments)
            let row = try #require(line(loadText, day: start), "no week \(start) in:\n\(loadText)")
            let cells = row.split(separator: " ").map(String.init)
            #expect(cells.count == 7, "\(row)")
            #expect(cells[3] == String(listed["count"]?.intValue ?? -1), "workouts of the week from \(start): \(row)")
            let minutes = (listed["workouts"]?.arrayValue ?? []).compactMap { $0["duration_minutes"]?.number }.reduce(0, +)
            #expect(cells[4] == TextFormat.minutes(minutes), "\(row)")
        }
    }

    @Test func doctorVisitSummaryTakesDaysAndMatchesSummarize() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let text = text(try await harness.client.getPrompt(name: "doctor_visit_summary", arguments: ["days": "14"]).messages)
        #expect(text.contains("the last 14 days, 2024-05-02 → 2024-05-15 (\(Fixture.utc.identifier))"), "\(text)")
        let resting = try await harness.ok("summarize", ["type": "restingHeartRate", "start": "14d", "interval": "total"])
        let bucket = try #require(resting["buckets"]?.arrayValue?.first)
        #expect(text.contains("- Resting heart rate (bpm): average \(TextFormat.number(bucket["average"]?.number, decimals: nil)), lowest \(TextFormat.number(bucket["min"]?.number, decimals: nil))"), "\(text)")
        let steps = try await harness.ok("summarize", ["type": "stepCount", "start": "14d", "interval": "total"])
        #expect(text.contains("- Activity: \(TextFormat.number(steps["buckets"]?.arrayValue?.first?["sum"]?.number)) steps"), "\(text)")
        let defaulted = self.text(try await harness.client.getPrompt(name: "doctor_visit_summary").messages)
        #expect(defaulted.contains("the last 90 days"))
    }

    @Test func anEmptyStoreOrADeniedTypeGivesPromptsThatSayNothingWasRecorded() async throws {
        let service = HealthService(store: try SQLiteHealthStore.inMemory(), homeTimeZone: Fixture.utc, clock: { Fixture.end })
        let prompts = HealthPrompts(service: service.acting(as: .mcp()))
        for prompt in HealthPrompts.prompts {
            let result = try await prompts.get(prompt.name, arguments: nil)
            #expect(result.messages.count == 1, "\(prompt.name)")
        }
        let checkIn = text(try await prompts.get("daily_check_in", arguments: nil).messages)
        #expect(checkIn.contains("- Steps today: nothing recorded"), "\(checkIn)")
        #expect(checkIn.contains("- Latest weight: nothing recorded"))
        let doctor = text(try await prompts.get("doctor_visit_summary", arguments: ["days": "30"]).messages)
        #expect(doctor.contains("- Weight: nothing recorded") && doctor.contains("- Sleep: nothing recorded"), "\(doctor)")

        // The demo store, with weight denied to the MCP client: the weight looks unrecorded, the steps do not.
        let demo = try await Fixture.service()
        try await demo.updateGrants(GrantsUpdate(principal: "mcp:prompt-test", deny: ["bodyMass"]))
        let denied = text(try await HealthPrompts(service: demo.acting(as: .mcp("prompt-test")))
            .get("daily_check_in", arguments: nil).messages)
        #expect(denied.contains("- Latest weight: nothing recorded"), "\(denied)")
        #expect(!denied.contains("- Steps today: nothing recorded"))
    }

    @Test func badNamesAndArgumentsAreInvalidParams() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let cases: [(String, [String: String]?, String)] = [
            ("doctor_visit_summary", ["days": "abc"], "days must be a whole number from 7 to 365, got 'abc'"),
            ("doctor_visit_summary", ["days": "1000"], "got '1000'"),
            ("doctor_visit_summary", ["days": "1e2"], "got '1e2'"),
            ("doctor_visit_summary", ["days": "30.5"], "got '30.5'"),
            ("doctor_visit_summary", ["days": "6"], "got '6'"),
            ("doctor_visit_summary", ["weeks": "2"], "doctor_visit_summary has no argument 'weeks'; it takes only days"),
            ("weekly_trends", ["days": "7"], "weekly_trends has no argument 'days'; it takes no arguments"),
            ("monthly_report", nil, "there is no prompt 'monthly_report'; the prompts are daily_check_in"),
        ]
        for (name, arguments, message) in cases {
            do {
                _ = try await harness.client.getPrompt(name: name, arguments: arguments)
                Issue.record("\(name) \(arguments ?? [:]) should fail")
            } catch let error as MCPError {
                #expect(error.code == -32602, "\(name): \(error)")
                #expect("\(error)".contains(message), "\(name): \(error)")
            }
        }
    }
}
