import Foundation
import HealthModel
import Testing
@testable import HealthService

/// One rule for every interface's dates.
@Suite struct DateRangeTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!
    static let now = ISO8601.date("2024-06-30T15:30:00Z")!

    func resolve(_ start: String?, _ end: String?, defaultStart: String = "7d") throws(HealthError) -> DateRange {
        try DateRange.resolve(start: start, end: end, defaultStart: defaultStart, now: Self.now, timeZone: Self.paris)
    }

    @Test func formsAndDefaults() throws {
        let week = try resolve(nil, nil)
        #expect(ISO8601.string(week.start, timeZone: Self.paris) == "2024-06-24T00:00:00+02:00")
        #expect(week.end == Self.now)
        #expect(try resolve("2024-06-01", "2024-06-08").end.timeIntervalSince(try resolve("2024-06-01", "2024-06-08").start) == 7 * 86_400)
        #expect(try resolve("today", nil).start == ISO8601.date("2024-06-29T22:00:00Z"))
        #expect(try resolve("12h", nil).start == Self.now.addingTimeInterval(-12 * 3600))
        #expect(try resolve("2024-06-30T08:00:00Z", "now").start == ISO8601.date("2024-06-30T08:00:00Z"))
        #expect(try resolve("  ", nil).start == week.start, "blank is absent")
    }

    @Test func equalBoundsAreAnEmptyRangeAndReversedOnesAnError() throws {
        let empty = try resolve("2024-06-01", "2024-06-01")
        #expect(empty.isEmpty)
        #expect(empty.days(in: Calendar.gregorian(Self.paris)) == nil)
        #expect(throws: HealthError.self) { try resolve("2024-06-02", "2024-06-01") }
        do {
            _ = try resolve("2024-06-02", "2024-06-01")
        } catch {
            #expect(error.code == .invalidRange)
            #expect(error.message.contains("before the start"))
        }
        do {
            _ = try resolve("last tuesday", nil)
        } catch {
            #expect(error.code == .invalidRange)
            #expect(error.message.hasPrefix("start: "))
        }
    }

    @Test func wakeUpDaysLeaveOutADayEndingAtMidnight() throws {
        let calendar = Calendar.gregorian(Self.paris)
        let days = try #require(try resolve("2024-06-01", "2024-06-08").days(in: calendar))
        #expect(ISO8601.dateString(days.first, timeZone: Self.paris) == "2024-06-01")
        #expect(ISO8601.dateString(days.last, timeZone: Self.paris) == "2024-06-07")
        let untilNow = try #require(try resolve("2024-06-29", nil).days(in: calendar))
        #expect(ISO8601.dateString(untilNow.last, timeZone: Self.paris) == "2024-06-30")
    }
}

extension Calendar {
    static func gregorian(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
