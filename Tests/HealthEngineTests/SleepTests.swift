import Foundation
import Testing
import HealthModel
import HealthStore
@testable import HealthEngine

@Suite struct SleepTests {
    @Test func watchStagesAndPhoneInBedAreMergedNotAdded() async throws {
        let store = try await makeStore([
            // Phone: in bed 22:30–07:00 (510 min).
            sleep("2024-05-01T22:30:00Z", "2024-05-02T07:00:00Z", 0, phone),
            // Phone also guesses "asleep" 23:00–06:30 (lower priority than the watch's stages).
            sleep("2024-05-01T23:00:00Z", "2024-05-02T06:30:00Z", 1, phone),
            // Watch: core 23:00–01:00, deep 01:00–02:00, awake 02:00–02:10, REM 02:10–03:00, core 03:00–06:40.
            sleep("2024-05-01T23:00:00Z", "2024-05-02T01:00:00Z", 3, watch),
            sleep("2024-05-02T01:00:00Z", "2024-05-02T02:00:00Z", 4, watch),
            sleep("2024-05-02T02:00:00Z", "2024-05-02T02:10:00Z", 2, watch),
            sleep("2024-05-02T02:10:00Z", "2024-05-02T03:00:00Z", 5, watch),
            sleep("2024-05-02T03:00:00Z", "2024-05-02T06:40:00Z", 3, watch),
        ])
        let nights = try await HealthEngine(store: store).sleepNights(
            from: t("2024-05-02T00:00:00Z"), to: t("2024-05-02T12:00:00Z"), timeZone: utc)
        let night = try #require(nights.first)
        #expect(nights.count == 1)
        #expect(night.date == "2024-05-02")
        #expect(night.inBedMinutes == 510)
        #expect(night.coreMinutes == 120 + 220)
        #expect(night.deepMinutes == 60)
        #expect(night.remMinutes == 50)
        #expect(night.awakeMinutes == 10)
        // The phone's "asleep" is hidden where the watch has stages and shows nowhere else (it ends at 06:30).
        #expect(night.unspecifiedMinutes == 0)
        #expect(night.asleepMinutes == 340 + 60 + 50)
        #expect(night.bedtime == t("2024-05-01T22:30:00Z"))
        #expect(night.wakeTime == t("2024-05-02T07:00:00Z"))
    }

    @Test func nightsBelongToTheWakeUpDayInTheTimeZone() async throws {
        // 23:30 → 06:30 in New York is 03:30Z → 10:30Z the next day.
        let ny = TimeZone(identifier: "America/New_York")!
        let store = try await makeStore([sleep("2024-05-02T03:30:00Z", "2024-05-02T10:30:00Z", 1, watch)])
        let nights = try await HealthEngine(store: store).sleepNights(
            from: t("2024-05-01T04:00:00Z"), to: t("2024-05-03T04:00:00Z"), timeZone: ny)
        #expect(nights.map(\.date) == ["2024-05-02"])
        #expect(nights.first?.unspecifiedMinutes == 420)
    }
}
