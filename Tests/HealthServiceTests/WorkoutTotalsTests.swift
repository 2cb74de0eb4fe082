import Foundation
import Testing
import HealthAPI
import HealthModel
import HealthService

/// The service computes the totals of a range's workouts (prompts and every interface only show them) and the
/// calendar days a report counts back over.
@Suite struct WorkoutTotalsTests {
    @Test func totalsCoverEveryPageOfTheRange() async throws {
        let service = try await HealthServiceTests.demoService()
        var page = try await service.workouts(WorkoutsRequest(start: "2020-01-01", limit: 1, ascending: true))
        var listed: [WorkoutRecord] = page.workouts
        let totals = page.totals
        #expect(totals.count > 1, "the demo has several workouts, so one page of 1 is not all of them")
        while page.hasMore, let cursor = page.nextCursor {
            page = try await service.workouts(WorkoutsRequest(cursor: cursor))
            #expect(page.totals == totals, "every page carries the totals of the whole range")
            listed += page.workouts
        }
        #expect(listed.count == totals.count)
        let minutes = listed.reduce(0) { $0 + $1.durationMinutes }
        #expect(abs(totals.durationMinutes - minutes) < 0.11)
        let distance = listed.compactMap(\.distanceKm).reduce(0, +)
        #expect(abs((totals.distanceKm ?? 0) - distance) < 0.011)
    }

    @Test func totalsAreZeroWithoutWorkoutsOrWithoutTheGrant() async throws {
        let owner = try await HealthServiceTests.demoService()
        let empty = try await owner.workouts(WorkoutsRequest(start: "2001-01-01", end: "2001-02-01"))
        #expect(empty.totals == WorkoutTotals())
        let app = owner.acting(as: try Principal(parsing: "app:com.example.nothing"))
        #expect(try await app.workouts(WorkoutsRequest(start: "2020-01-01")).totals == WorkoutTotals())
    }

    @Test func totalsTravelOnTheWireAndOldAnswersStillDecode() throws {
        let result = WorkoutsResult(timeZone: "UTC", start: "a", end: "b", count: 0, workouts: [], hasMore: false,
                                    totals: WorkoutTotals(count: 2, durationMinutes: 61.5, distanceKm: 10.25))
        let data = try JSONEncoder().encode(result)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let totals = try #require(object["totals"] as? [String: Any])
        #expect(totals["duration_minutes"] as? Double == 61.5 && totals["distance_km"] as? Double == 10.25)
        #expect(try JSONDecoder().decode(WorkoutsResult.self, from: data) == result)
        let old = Data(#"{"time_zone":"UTC","start":"a","end":"b","count":0,"workouts":[],"has_more":false}"#.utf8)
        #expect(try JSONDecoder().decode(WorkoutsResult.self, from: old).totals == WorkoutTotals())
    }

    @Test func lastDaysCountBackInTheHomeZone() async throws {
        let service = try await HealthServiceTests.demoService()
        let days = try service.lastDays(3)
        #expect(days.count == 3)
        #expect(days.last == ISO8601.dateString(service.clock(), timeZone: service.homeTimeZone))
        #expect(days == days.sorted())
        #expect(throws: HealthError.self) { try service.lastDays(0) }
        #expect(throws: HealthError.self) { try service.lastDays(100_000) }
    }
}
