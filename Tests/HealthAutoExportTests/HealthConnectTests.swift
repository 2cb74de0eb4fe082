import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthAutoExport
@testable import HealthService

/// The Health Connect receiver's use case: HC Webhook's payload (github.com/mcnaveen/health-connect-webhook) mapped to
/// HealthKit, stored once, with data origins as sources, through the same checks and consent as Health Auto Export.
@Suite struct HealthConnectTests {
    static func quantity(_ sample: HealthSample) -> Double? { IngestTests.quantity(sample) }

    static func payload(_ sections: String) -> [UInt8] {
        Array(#"{"timestamp":"2024-03-05T09:15:02Z","app_version":"2.4.1",\#(sections)}"#.utf8)
    }

    @Test func aPayloadOfTheRealShapeIsStoredOnceWithItsOrigins() async throws {
        let body = try Fixture.bytes("health-connect-webhook.json")
        #expect(HealthConnectPayloadReader.recognises(Array(body.prefix(4096))))
        #expect(!HAEPayloadReader.recognises(Array(body.prefix(4096))))
        #expect(!HealthConnectPayloadReader.recognises(try Fixture.bytes("metrics-hourly.json")))

        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthConnect(body)
        #expect(report.format == "health-connect")
        #expect(report.rejected.isEmpty, "\(report.reasons)")
        #expect(report.unknown == ["heart_rate_variability": 1, "total_calories": 1, "bmi": 1])
        // 2 steps + 5 sleep stages (out of bed has no HealthKit value) + 2 heart rate + distance + energy + weight +
        // SpO2 + 4 nutrients = 17 samples; blood pressure: 2 samples and a correlation; a workout.
        #expect(report.inserted == 21, "\(report.types)")

        let steps = try await Fixture.samples(service, "stepCount")
        #expect(steps.compactMap(Self.quantity) == [1200, 640])
        #expect(steps.map(\.source.bundleIdentifier) == ["com.google.android.apps.fitness", "com.sec.android.app.shealth"])
        #expect(steps.first?.syncIdentifier?.hasPrefix("hc/stepCount/") == true && steps.first?.duration == 3600)

        let sleep = try await Fixture.samples(service, "sleepAnalysis").compactMap { sample -> Int? in
            if case .category(let value) = sample.value { return value }
            return nil
        }
        #expect(sleep == [3, 4, 5, 2, 1])
        let heart = try await Fixture.samples(service, "heartRate")
        #expect(heart.compactMap(Self.quantity) == [64, 71.5])
        #expect(heart.last?.metadata["HealthBridgeMinimum"] == "58.0" && heart.last?.metadata["HealthBridgeMaximum"] == "112.0")
        #expect(try await Fixture.samples(service, "oxygenSaturation").compactMap(Self.quantity) == [0.97])
        #expect(try await Fixture.samples(service, "bodyMass").first?.source.name == "com.withings.wiscale2")
        #expect(try await Fixture.samples(service, "dietaryProtein").compactMap(Self.quantity) == [31])
        #expect(try await Fixture.samples(service, "bloodPressureSystolic").compactMap(Self.quantity) == [121])
        let workouts = try await service.store.workouts(WorkoutQuery())
        #expect(workouts.count == 1 && workouts.first?.activityType == "running" && workouts.first?.source.bundleIdentifier == "com.strava")
        #expect(workouts.first?.totalDistance.map { abs($0.value - 5.2) < 1e-9 } == true)

        // The day's heart rate: the aggregate's own extremes count.
        let day = try await service.acting(as: .owner).summary(SummaryRequest(type: "heartRate", start: "2024-03-04",
                                                                              end: "2024-03-05", interval: "total",
                                                                              timeZone: "UTC"))
        #expect(day.buckets.first?.min == 58 && day.buckets.first?.max == 112)

        // A re-send stores nothing new.
        let again = try await service.ingestHealthConnect(try Fixture.bytes("health-connect-webhook.json"))
        #expect(again.inserted == 0 && again.replaced == 0 && again.unchanged == 21)
        #expect(try await Fixture.samples(service, "stepCount").count == 2)
        #expect(try await service.store.workouts(WorkoutQuery()).count == 1)
    }

    @Test func aDeniedTypeRefusesThePayload() async throws {
        let owner = try Fixture.service()
        try await owner.updateGrants(GrantsUpdate(principal: "ingest:pixel", allowWrite: ["stepCount"]))
        let pixel = owner.acting(as: Principal(kind: .ingest, name: "pixel"))
        let steps = #""steps":[{"count":10,"start_time":"2024-03-04T07:00:00Z","end_time":"2024-03-04T07:01:00Z"}]"#
        #expect(try await pixel.ingestHealthConnect(Self.payload(steps)).inserted == 1)
        let weight = #""weight":[{"kilograms":72,"time":"2024-03-04T06:45:00Z"}]"#
        do {
            _ = try await pixel.ingestHealthConnect(Self.payload(steps + "," + weight))
            Issue.record("a type without a write grant must refuse the payload")
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized)
        }
        #expect(try await Fixture.samples(owner, "bodyMass").isEmpty)
    }

    @Test func badValuesAreRejectedNeverStored() async throws {
        let service = try await Fixture.ingestService()
        let sections = #"""
        "steps":[{"count":1e300,"start_time":"2024-03-04T07:00:00Z","end_time":"2024-03-04T08:00:00Z"},
                 {"count":-5,"start_time":"2024-03-04T08:00:00Z","end_time":"2024-03-04T09:00:00Z"},
                 {"count":12,"start_time":"2024-03-04T09:00:00Z","end_time":"2024-03-04T08:00:00Z"},
                 {"count":12,"start_time":"yesterday"},
                 {"count":30,"start_time":"2024-03-04T10:00:00Z","end_time":"2024-03-04T11:00:00Z"}],
        "heart_rate":[{"bpm":9000,"time":"2024-03-04T07:10:00Z"},{"bpm":"NaN","time":"2024-03-04T07:11:00Z"}],
        "weight":[{"kilograms":72,"time":"2199-01-01T00:00:00Z"}],
        "sleep":[{"session_end_time":"2024-03-05T06:30:00Z","duration_seconds":1e12},
                 {"session_end_time":"2024-03-05T06:30:00Z","duration_seconds":3600,
                  "stages":[{"stage":"dreaming","start_time":"2024-03-05T05:30:00Z","end_time":"2024-03-05T06:30:00Z"}]}],
        "exercise":[{"type":56,"start_time":"2024-03-04T17:00:00Z","end_time":"2024-03-04T16:00:00Z"}]
        """#
        let report = try await service.ingestHealthConnect(Self.payload(sections))
        #expect(report.inserted == 1, "only the 30 steps")
        #expect(report.rejected["steps"] == 4 && report.rejected["heart_rate"] == 2 && report.rejected["weight"] == 1)
        #expect(report.rejected["sleep"] == 2 && report.rejected["workouts"] == 1)
        #expect(try await Fixture.samples(service, "stepCount").compactMap(Self.quantity) == [30])
        // Malformed JSON writes nothing.
        await #expect(throws: HealthError.self) { try await service.ingestHealthConnect(Array(#"{"steps":[{"count":1"#.utf8)) }
        await #expect(throws: HealthError.self) { try await service.ingestHealthConnect(Array("[1,2]".utf8)) }
    }

    @Test func exerciseTypesAndStages() {
        #expect(HealthConnectPayloadReader.activityType("56", title: nil) == "running")
        #expect(HealthConnectPayloadReader.activityType("8", title: nil) == "cycling")
        #expect(HealthConnectPayloadReader.activityType("EXERCISE_TYPE_STRENGTH_TRAINING", title: nil) == "traditionalStrengthTraining")
        #expect(HealthConnectPayloadReader.activityType("walking", title: nil) == "walking")
        #expect(HealthConnectPayloadReader.activityType("9999", title: nil) == "other")
        for (code, _) in HealthConnectPayloadReader.exerciseTypes {
            #expect(HealthConnectPayloadReader.activityType(String(code), title: nil) != "", "\(code)")
        }
        #expect(HealthConnectPayloadReader.sleepStage("light") == 3 && HealthConnectPayloadReader.sleepStage("awake_in_bed") == 2)
        #expect(HealthConnectPayloadReader.sleepStage("out_of_bed") == nil && HealthConnectPayloadReader.sleepStage("5") == 4)
    }
}
