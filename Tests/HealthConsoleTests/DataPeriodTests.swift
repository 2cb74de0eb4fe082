import Foundation
import HealthAPI
@testable import HealthConsole
import HealthService
import Testing

/// The Data page browses any period, with the service's (the CLI's) numbers, and never shows 0 for a span without
/// data.
@Suite("Console data periods")
struct DataPeriodTests {
    static func today() -> Date { DataPeriod.day(DataPeriod.string(Date())) ?? Date() }

    static func day(_ offset: Int) -> String {
        DataPeriod.string(DataPeriod.adding(days: offset, to: today()) ?? today())
    }

    @Test func aPastRangeShowsTheServiceTotalWithWhichSourceWon() async throws {
        let h = try await ConsoleHarness.start(days: 60)
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()
        let (start, end) = (Self.day(-45), Self.day(-15))
        let page = try await h.send("GET", "/data?start=\(start)&end=\(end)", headers: [("Cookie", cookie)])
        #expect(page.status == 200)
        let total = try await h.service.summary(SummaryRequest(type: "stepCount", start: start, end: end, interval: "total",
                                                               statistics: ["sum"]))
        #expect(ConsolePageTests.mergedTotal(page.body) == Figure.format(try #require(total.buckets.first?.sum)))
        #expect(page.body.contains("id=\"data-period\">\(start) – \(Self.day(-16))<"))
        // Previous and next move by the period's length (30 days).
        #expect(page.body.contains("href=\"/data?start=\(Self.day(-75))&amp;end=\(start)\""))
        #expect(page.body.contains("href=\"/data?start=\(end)&amp;end=\(Self.day(15))\""))
        // Which source won: a row per source with its counted part and its own total.
        #expect(page.body.contains("Counted in the total"))
        #expect(page.body.contains("id=\"steps-coverage\""))
        for id in ["steps", "sleep", "resting", "weight", "energy"] {
            #expect(page.body.contains("<figure class=\"chart\" id=\"\(id)\">"), "\(id)")
        }
        let month = String(start.prefix(7))
        let byMonth = try await h.send("GET", "/data?month=\(month)", headers: [("Cookie", cookie)])
        #expect(byMonth.status == 200)
        #expect(byMonth.body.contains("id=\"data-period\">\(month)-01 – "))
    }

    @Test func aSpanWithoutDataSaysSoInsteadOfZero() async throws {
        let h = try await ConsoleHarness.start(days: 14)
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()
        let page = try await h.send("GET", "/data?start=\(Self.day(-400))&end=\(Self.day(-370))", headers: [("Cookie", cookie)])
        #expect(page.status == 200)
        #expect(ConsolePageTests.mergedTotal(page.body) == nil)
        #expect(!page.body.contains(">0</span> steps"))
        #expect(page.body.contains("id=\"steps-no-data\""))
        let bad = try await h.send("GET", "/data?start=yesterdayish", headers: [("Cookie", cookie)])
        #expect(bad.status == 400)
    }

    @Test func missingDaysAreListed() async throws {
        let h = try await ConsoleHarness.start(days: 14)
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()
        // Ten days before the demo's first day, then its days.
        let page = try await h.send("GET", "/data?start=\(Self.day(-24))&end=\(Self.day(-4))", headers: [("Cookie", cookie)])
        #expect(page.status == 200)
        #expect(page.body.contains("No steps recorded (missing, not 0)"))
        #expect(page.body.contains(Self.day(-24)))
    }
}
