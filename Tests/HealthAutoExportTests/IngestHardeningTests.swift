import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Issue 21's findings on the push path: hostile numbers are rejected before anything is keyed, stored or
/// formatted (1, 6), and two writers never replace each other's bucket totals (4). Each of these payloads stopped
/// the process or stored an impossible value before.
@Suite struct IngestHardeningTests {
    static func payload(metrics: String = "", workouts: String = "") -> [UInt8] {
        Array(#"{"data":{"metrics":[\#(metrics)],"workouts":[\#(workouts)]}}"#.utf8)
    }

    static func metric(_ name: String, _ units: String, _ points: String) -> String {
        #"{"name":"\#(name)","units":"\#(units)","data":[\#(points)]}"#
    }

    static func count(_ service: HealthService, _ type: String) async throws -> Int {
        try await Fixture.samples(service, type).count
    }

    @Test func aNightOfHugeTotalsWithoutAnEndIsRejectedNotATrap() async throws {
        let service = try await Fixture.ingestService()
        let night = #"{"date":"2024-03-05","core":1e300,"deep":1,"sleepStart":"2024-03-04 23:10:00 +0100","source":"Watch"}"#
        let report = try await service.ingestHealthAutoExport(Self.payload(metrics: Self.metric("sleep_analysis", "hr", night)))
        #expect(report.inserted == 0)
        #expect(report.rejected["sleep_analysis"] == 1)
        #expect(report.reasons["sleep_analysis"]?.contains("longer than a day") == true)
        #expect(try await Self.count(service, "sleepAnalysis") == 0)
    }

    @Test func aTokenDeniedEveryTypeCannotStopTheServiceWithTheSameNight() async throws {
        let owner = try Fixture.service()
        let denied = owner.acting(as: Principal(kind: .ingest, name: "nothing"))
        let night = #"{"date":"2024-03-05","core":1e300,"sleepStart":"2024-03-04 23:10:00 +0100"}"#
        let report = try await denied.ingestHealthAutoExport(Self.payload(metrics: Self.metric("sleep_analysis", "hr", night)))
        #expect(report.inserted == 0 && report.rejected["sleep_analysis"] == 1)
        // A night whose stages fit is refused by consent, as before.
        let fine = #"{"date":"2024-03-05","core":4,"sleepStart":"2024-03-04 23:10:00 +0100","sleepEnd":"2024-03-05 03:10:00 +0100"}"#
        await #expect(throws: HealthError.self) {
            try await denied.ingestHealthAutoExport(Self.payload(metrics: Self.metric("sleep_analysis", "hr", fine)))
        }
    }

    @Test func aWorkoutLastingForeverIsRejectedAndEveryReaderStillAnswers() async throws {
        let service = try await Fixture.ingestService()
        let workout = #"{"id":"6B1F4A52-3C0D-4E7A-9B7E-2F1D0C9A8B12","name":"Outdoor Run","start":"2024-03-05 06:30:00 +0100","duration":1e300}"#
        let report = try await service.ingestHealthAutoExport(Self.payload(workouts: workout))
        #expect(report.inserted == 0 && report.rejected["workouts"] == 1)
        #expect(report.reasons["workouts"]?.contains("longer than") == true)
        let listed = try await service.acting(as: .owner).workouts(WorkoutsRequest(start: "2024-03-01", end: "2024-03-10"))
        #expect(listed.workouts.isEmpty)
        // Energy, distance and heart rate beyond any workout are refused the same way.
        let hot = #"{"name":"Walk","start":"2024-03-05 06:30:00 +0100","end":"2024-03-05 07:00:00 +0100","activeEnergyBurned":{"qty":1e19,"units":"kcal"}}"#
        let second = try await service.ingestHealthAutoExport(Self.payload(workouts: hot))
        #expect(second.inserted == 0 && second.rejected["workouts"] == 1)
    }

    @Test func infinityAndNotANumberAreNoMeasurement() async throws {
        let service = try await Fixture.ingestService()
        let points = #"{"date":"2024-03-04 08:00:00 +0100","qty":"inf"},{"date":"2024-03-04 09:00:00 +0100","qty":"nan"},"#
            + #"{"date":"2024-03-04 11:00:00 +0100","qty":"-Infinity"}"#
        let report = try await service.ingestHealthAutoExport(Self.payload(metrics: Self.metric("step_count", "count", points)))
        #expect(report.inserted == 0 && report.rejected["step_count"] == 3)
        #expect(report.reasons["step_count"] == "an item without qty")
    }

    @Test func valuesNoBodyCanHaveAreRefusedAsTheWriteAPIRefusesThem() async throws {
        let service = try await Fixture.ingestService()
        let metrics = [
            Self.metric("weight_body_mass", "kg", #"{"date":"2024-03-04 08:12:00 +0100","qty":7000}"#),
            Self.metric("step_count", "count", #"{"date":"2024-03-04 08:00:00 +0100","qty":1e19}"#),
            Self.metric("blood_pressure", "mmHg", #"{"date":"2024-03-04 08:00:00 +0100","systolic":"nan","diastolic":80},{"date":"2024-03-04 09:00:00 +0100","systolic":1e6,"diastolic":80}"#),
            Self.metric("heart_rate", "count/min", #"{"date":"2024-03-04 08:00:00 +0100","Min":-5,"Avg":70,"Max":1e300}"#),
            Self.metric("blood_glucose", "mg/dL", #"{"date":"2024-03-04 08:00:00 +0100","qty":180,"mealTime":"After Meal"}"#),
        ].joined(separator: ",")
        let report = try await service.ingestHealthAutoExport(Self.payload(metrics: metrics))
        #expect(report.rejected["weight_body_mass"] == 1 && report.reasons["weight_body_mass"]?.contains("outside what bodyMass can be") == true)
        #expect(report.rejected["step_count"] == 1 && report.reasons["step_count"]?.contains("stepCount") == true)
        #expect(report.rejected["blood_pressure"] == 2)
        #expect(try await Self.count(service, "bodyMass") == 0)
        #expect(try await Self.count(service, "stepCount") == 0)
        #expect(try await Self.count(service, "bloodPressureSystolic") == 0)
        // The heart rate itself is fine: its impossible minimum and maximum are dropped, not stored.
        let heart = try #require(try await Fixture.samples(service, "heartRate").first)
        #expect(heart.metadata["HealthBridgeMinimum"] == nil && heart.metadata["HealthBridgeMaximum"] == nil)
        // A glucose reading after a meal (above 100 mg/dL) is stored: the old bound refused most real readings.
        #expect(try await Self.count(service, "bloodGlucose") == 1)
    }

    @Test func datesBefore1900OrYearsAheadAreRefused() async throws {
        let service = try await Fixture.ingestService()
        let points = #"{"startDate":"1850-03-04 08:00:00 +0100","endDate":"1850-03-04 08:01:00 +0100","qty":3},"#
            + #"{"startDate":"2031-03-04 08:00:00 +0100","endDate":"2031-03-04 08:01:00 +0100","qty":3},"#
            + #"{"startDate":"2020-03-04 08:00:00 +0100","endDate":"2023-03-04 08:01:00 +0100","qty":3}"#
        let report = try await service.ingestHealthAutoExport(Self.payload(metrics: Self.metric("step_count", "count", points)))
        #expect(report.inserted == 0 && report.rejected["step_count"] == 3)
    }

    @Test func twoTokensPushingTheSameHourKeepTheirOwnTotals() async throws {
        let owner = try Fixture.service()
        let a = Principal(kind: .ingest, name: "phone-a"), b = Principal(kind: .ingest, name: "phone-b")
        for token in [a, b] {
            try await owner.updateGrants(GrantsUpdate(principal: token.id, allowWrite: ["stepCount"]))
        }
        let hour = { (qty: Int) in Self.payload(metrics: Self.metric("step_count", "count", #"{"date":"2024-03-04 08:00:00 +0100","qty":\#(qty)}"#)) }
        let first = try await owner.acting(as: a).ingestHealthAutoExport(hour(1234), info: IngestBatchInfo(aggregation: "hours"))
        let second = try await owner.acting(as: b).ingestHealthAutoExport(hour(1), info: IngestBatchInfo(aggregation: "hours"))
        #expect(first.inserted == 1 && second.inserted == 1 && second.replaced == 0)
        let stored = try await Fixture.samples(owner, "stepCount")
        #expect(stored.count == 2)
        let bySource = Dictionary(uniqueKeysWithValues: stored.map { ($0.source.bundleIdentifier ?? "", IngestTests.quantity($0)) })
        #expect(bySource[HealthSource.mergedTotalsPrefix + "health-auto-export.ingest.phone-a"] == 1234)
        #expect(bySource[HealthSource.mergedTotalsPrefix + "health-auto-export.ingest.phone-b"] == 1)
        #expect(stored.allSatisfy { $0.source.category == .mergedTotals })
        // A re-send by A with a new total replaces A's own bucket, never B's.
        let third = try await owner.acting(as: a).ingestHealthAutoExport(hour(1300), info: IngestBatchInfo(aggregation: "hours"))
        #expect(third.replaced == 1)
        let after = try await Fixture.samples(owner, "stepCount").compactMap(IngestTests.quantity).sorted()
        #expect(after == [1, 1300])
    }
}

/// A store written before these checks may already hold an impossible value: every reader still answers (issue 21,
/// finding 1: `list_workouts` stopped `serve` on a workout lasting 1e300 s).
@Suite struct StoredValuesNeverStopAReaderTests {
    @Test func readersFormatAnyStoredValue() async throws {
        let service = try Fixture.service()
        let start = ISO8601.date("2024-03-05T06:30:00Z")!
        let source = HealthSource(name: "Old Push")
        let far = Date(timeIntervalSince1970: 1e300)
        let workout = HealthWorkout(activityType: "running", start: start, end: far, duration: 1e300, source: source,
                                    totalDistance: .init(1e-300, "km"), totalEnergyBurned: .init(1e19, "kcal"))
        let steps = HealthSample(type: "stepCount", start: start, end: start.addingTimeInterval(60),
                                 value: .quantity(1e19, unit: "count"), source: source)
        let beat = HealthSample(type: "heartRate", start: start, end: start, value: .quantity(-1e300, unit: "count/min"),
                                source: source)
        _ = try await service.store.commit(StoreTransaction(samples: [steps, beat], workouts: [workout]))
        let owner = service.acting(as: .owner)
        let listed = try await owner.workouts(WorkoutsRequest(start: "2024-03-01", end: "2024-03-10"))
        #expect(listed.workouts.count == 1)
        #expect(listed.workouts.first?.paceSecondsPerKm == nil)
        let summary = try await owner.summary(SummaryRequest(type: "stepCount", start: "2024-03-05", end: "2024-03-06", interval: "total"))
        #expect(summary.buckets.first?.sum == 1e19)
        let latest = try await owner.latest(LatestRequest(type: "heartRate"))
        #expect(latest.found && latest.value == -1e300)
        #expect(ISO8601.string(far) == "9999-12-31T23:59:59Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: -.infinity)) == "0001-01-01T00:00:00Z")
    }

    @Test func checkedConversionsNeverTrap() {
        #expect((1e300).checkedInt64() == nil && Double.nan.checkedInt() == nil && Double.infinity.checkedInt64() == nil)
        #expect((12.6).checkedInt64() == 13 && (-12.5).checkedInt() == -13)
        #expect((9_223_372_036_854_775_808.0).checkedInt64() == nil)
        #expect((-9_223_372_036_854_775_808.0).checkedInt64() == Int64.min)
        #expect((1e300).clampedInt64() == .max && (-1e300).clampedInt64() == .min && Double.nan.clampedInt64() == 0)
    }
}
