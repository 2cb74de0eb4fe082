import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// The ingest use case against a SQLite store: stored values and units, sleep nights, workouts, exactly once, the
/// merge of aggregated totals with per-sample data, consent and bad input.
@Suite struct IngestTests {
    static func quantity(_ sample: HealthSample) -> Double? {
        if case .quantity(let value, _) = sample.value { return value }
        return nil
    }

    static func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
        guard let a else { return false }
        return abs(a - b) <= tolerance * max(1, abs(b))
    }

    @Test func hourlyMetricsAreStoredInCanonicalUnitsWithTheirKeys() async throws {
        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("metrics-hourly.json"))
        // 3 steps + 2 energy + 2 distance + 2 heart rate + temperature + weight + SpO2 + glucose + flights = 14
        // samples, and the blood pressure reading: two samples and their correlation.
        #expect(report.inserted == 17 && report.unchanged == 0 && report.replaced == 0)
        #expect(report.unknown == ["made_up_metric": 2, "stateOfMind": 1])
        #expect(report.rejected == ["flights_climbed": 1] && report.reasons["flights_climbed"]?.contains("date") == true)

        let steps = try await Fixture.samples(service, "stepCount")
        #expect(steps.compactMap(Self.quantity) == [1200, 340.5, 2210])
        #expect(steps.allSatisfy { $0.source.bundleIdentifier == HealthSource.mergedTotalsPrefix + "health-auto-export.ingest.phone" && $0.duration == 3600 })
        #expect(steps.first?.start == ISO8601.date("2024-03-04T07:00:00Z"))
        #expect(steps.first?.metadata["HealthBridgeHAESource"] == nil, "the totals source stands for the devices")
        #expect(steps.first?.syncIdentifier?.hasPrefix("hae/stepCount/") == true && steps.first?.syncVersion == 1)

        let energy = try await Fixture.samples(service, "activeEnergyBurned").compactMap(Self.quantity)
        #expect(energy.count == 2 && Self.close(energy[0], 418.4 / 4.184) && Self.close(energy[1], 83.68 / 4.184))
        let distance = try await Fixture.samples(service, "distanceWalkingRunning").compactMap(Self.quantity)
        #expect(distance.count == 2 && Self.close(distance[0], 0.5 * 1609.344) && Self.close(distance[1], 0.25 * 1609.344))
        let heart = try await Fixture.samples(service, "heartRate")
        #expect(heart.compactMap(Self.quantity) == [71.5, 66])
        #expect(heart.first?.metadata["HealthBridgeMinimum"] == "58.0" && heart.first?.metadata["HealthBridgeMaximum"] == "112.0")
        let temperature = try #require(try await Fixture.samples(service, "bodyTemperature").first)
        #expect(Self.close(Self.quantity(temperature), (98.6 - 32) / 1.8) && temperature.source.name == "Thermo One")
        #expect(temperature.start == temperature.end && temperature.start == ISO8601.date("2024-03-04T06:12:31Z"))
        let weight = try #require(try await Fixture.samples(service, "bodyMass").first)
        #expect(Self.close(Self.quantity(weight), 154.3 * 0.45359237))
        #expect(try await Fixture.samples(service, "oxygenSaturation").compactMap(Self.quantity) == [0.97])
        let glucose = try #require(try await Fixture.samples(service, "bloodGlucose").first)
        #expect(Self.quantity(glucose) == 104 && glucose.metadata["HKBloodGlucoseMealTime"] == "2")
        #expect(try await Fixture.samples(service, "flightsClimbed").compactMap(Self.quantity) == [4])

        let pressure = try await service.store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil)
        #expect(pressure.count == 1 && pressure.first?.members.count == 2)
        #expect(try await Fixture.samples(service, "bloodPressureSystolic").compactMap(Self.quantity) == [121])
        #expect(try await Fixture.samples(service, "bloodPressureDiastolic").compactMap(Self.quantity) == [79])

        let day = try await service.acting(as: .owner).summary(SummaryRequest(type: "stepCount", start: "2024-03-04", end: "2024-03-05",
                                                           interval: "total"))
        #expect(day.buckets.first?.sum == 3750.5)
    }

    @Test func twelveHourDatesAndDailyTotals() async throws {
        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("metrics-12h.json"))
        #expect(report.inserted == 3)
        let steps = try await Fixture.samples(service, "stepCount")
        #expect(steps.map(\.start) == [ISO8601.date("2024-03-10T05:00:00Z"), ISO8601.date("2024-03-11T05:00:00Z")])
        #expect(steps.allSatisfy { $0.duration == 86_400 && $0.utcOffset == -18_000 })
        let resting = try #require(try await Fixture.samples(service, "restingHeartRate").first)
        #expect(resting.start == ISO8601.date("2024-03-10T18:15:00Z") && Self.quantity(resting) == 54)
    }

    @Test func aggregatedSleepKeepsEachNightsTotals() async throws {
        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("sleep-aggregated.json"))
        #expect(report.inserted == 6, "in bed, core, deep, REM, awake; then one asleep block")
        let nights = try await service.acting(as: .owner).sleep(SleepRequest(start: "2024-03-04", end: "2024-03-07")).nights
        #expect(nights.count == 2)
        let first = try #require(nights.first)
        #expect(first.inBedMinutes == 8 * 60)
        #expect(first.coreMinutes == 240 && first.deepMinutes == 75 && first.remMinutes == 120)
        #expect(first.asleepMinutes == 7.25 * 60 && first.awakeMinutes == 30)
        let second = try #require(nights.last)
        #expect(second.asleepMinutes == 390 && second.unspecifiedMinutes == 390)
        // The same nights sent again, with the first night grown by 15 minutes of REM: replaced, not added.
        var text = String(decoding: try Fixture.bytes("sleep-aggregated.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"rem\": 2,", with: "\"rem\": 2.25,")
        let again = try await service.ingestHealthAutoExport(Array(text.utf8))
        #expect(again.inserted == 0 && again.replaced >= 1)
        let after = try await service.acting(as: .owner).sleep(SleepRequest(start: "2024-03-04", end: "2024-03-07")).nights
        #expect(after.first?.remMinutes == 135 && after.count == 2)
    }

    @Test func unaggregatedSleepStagesAreStoredAsSent() async throws {
        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("sleep-unaggregated.json"))
        #expect(report.inserted == 6)
        let stages = try await Fixture.samples(service, "sleepAnalysis")
        #expect(stages.allSatisfy { $0.source.name == "Sam’s Apple Watch" })
        let night = try #require(try await service.acting(as: .owner).sleep(SleepRequest(start: "2024-03-04", end: "2024-03-06")).nights.first)
        // Core 2 h + 3 h, deep 45 min, REM 90 min, awake 10 min; in bed 8 h 10 min.
        #expect(night.coreMinutes == 300 && night.deepMinutes == 45 && night.remMinutes == 90)
        #expect(night.awakeMinutes == 10 && night.asleepMinutes == 435 && night.inBedMinutes == 490)
    }

    @Test func workoutsOfBothVersionsWithRoutesAndHeartRate() async throws {
        let service = try await Fixture.ingestService()
        let v1 = try await service.ingestHealthAutoExport(try Fixture.bytes("workouts-v1.json"))
        let v2 = try await service.ingestHealthAutoExport(try Fixture.bytes("workouts-v2.json"))
        #expect(v1.inserted == 1 && v1.routePoints == 3 && v2.inserted == 2 && v2.routePoints == 2)
        let workouts = try await service.store.workouts(WorkoutQuery()).sorted { $0.start < $1.start }
        #expect(workouts.map(\.activityType) == ["walking", "running", "traditionalStrengthTraining"])
        let walk = workouts[0]
        #expect(walk.duration == 2400 && Self.close(walk.totalEnergyBurned?.value, 836.8 / 4.184))
        #expect(Self.close(walk.totalDistance?.value, 2 * 1.609344) && walk.totalDistance?.unit == "km")
        let walkRate = try #require(walk.statistics.first { $0.type == "heartRate" })
        #expect(walkRate.average == 100 && walkRate.minimum == 90 && walkRate.maximum == 110)
        let walkRoute = try #require(walk.routes.first)
        let walkPoints = try await service.store.routePoints(walkRoute.uuid, offset: 0, limit: 10)
        #expect(walkPoints.map(\.latitude) == [48.1, 48.101, 48.102])
        #expect(walkPoints.first?.time == walk.start && walkPoints.last?.time == walk.end, "untimed points spread over the walk")

        let run = workouts[1]
        #expect(run.uuid == UUID(uuidString: "6B1F4A52-3C0D-4E7A-9B7E-2F1D0C9A8B11"))
        #expect(run.totalDistance?.value == 5.2 && run.totalEnergyBurned?.value == 310)
        let runRate = try #require(run.statistics.first { $0.type == "heartRate" })
        #expect(runRate.average == 135 && runRate.minimum == 98 && runRate.maximum == 171)
        let runPoints = try await service.store.routePoints(try #require(run.routes.first).uuid, offset: 0, limit: 10)
        #expect(runPoints.map(\.time) == [ISO8601.date("2024-03-05T05:30:00Z"), ISO8601.date("2024-03-05T05:30:10Z")])
        #expect(runPoints.first?.speed == 2.9 && runPoints.first?.horizontalAccuracy == 4 && runPoints.last?.elevation == 511)
        #expect(run.metadata["HKIndoorWorkout"] == "0")

        let again = try await service.ingestHealthAutoExport(try Fixture.bytes("workouts-v2.json"))
        #expect(again.inserted == 0 && again.unchanged == 2)
        #expect(try await service.store.workouts(WorkoutQuery()).count == 3)
    }

    @Test func theSamePayloadTwiceLeavesTheStoreAsOneSend() async throws {
        let service = try await Fixture.ingestService()
        for name in ["metrics-hourly.json", "sleep-aggregated.json", "sleep-unaggregated.json", "workouts-v1.json",
                     "workouts-v2.json", "metrics-12h.json"] {
            let first = try await service.ingestHealthAutoExport(try Fixture.bytes(name))
            let anchor = try await service.store.currentAnchor()
            let types = try await service.store.typeSummaries()
            let second = try await service.ingestHealthAutoExport(try Fixture.bytes(name))
            #expect(second.inserted == 0 && second.replaced == 0, "\(name)")
            #expect(second.unchanged == first.inserted, "\(name)")
            #expect(try await service.store.currentAnchor() == anchor, "\(name): nothing changed")
            #expect(try await service.store.typeSummaries() == types, "\(name)")
        }
    }

    @Test func overlappingPushesStoreEachHourOnceAndTheLatestTotal() async throws {
        let service = try await Fixture.ingestService()
        let a = try await service.ingestHealthAutoExport(try Fixture.bytes("overlap-a.json"))
        let b = try await service.ingestHealthAutoExport(try Fixture.bytes("overlap-b.json"))
        #expect(a.inserted == 6)
        #expect(b.inserted == 3 && b.replaced == 1 && b.unchanged == 2, "hours 3–4 known, hour 5 grew, 6–8 new")
        let steps = try await Fixture.samples(service, "stepCount")
        #expect(steps.count == 9)
        #expect(steps.compactMap(Self.quantity) == [10, 0, 5, 40, 120, 450, 800, 1500, 900])
        #expect(steps.first { $0.start == ISO8601.date("2024-03-06T04:00:00Z") }?.syncVersion == 2)
        let day = try await service.acting(as: .owner).summary(SummaryRequest(type: "stepCount", start: "2024-03-06", end: "2024-03-07",
                                                           interval: "total"))
        #expect(day.buckets.first?.sum == 3825)
        // Either order, the same store.
        let reversed = try await Fixture.ingestService()
        _ = try await reversed.ingestHealthAutoExport(try Fixture.bytes("overlap-b.json"))
        _ = try await reversed.ingestHealthAutoExport(try Fixture.bytes("overlap-a.json"))
        #expect(try await Fixture.samples(reversed, "stepCount").count == 9)
    }

    /// HealthKit's hourly totals and the per-sample data they were computed from (arriving later from an export)
    /// are never added together: the totals outrank every other source where they exist.
    @Test func aggregatedTotalsAreNotAddedToPerSampleData() async throws {
        let service = try await Fixture.ingestService()
        let watch = HealthSource(name: "Sam’s Apple Watch", deviceDescription: "<<HKDevice: 0x1>, name:Apple Watch, model:Watch, hardware:Watch7,1>")
        let phone = HealthSource(name: "Sam’s iPhone", deviceDescription: "<<HKDevice: 0x2>, name:iPhone, model:iPhone, hardware:iPhone15,2>")
        func steps(_ source: HealthSource, _ start: String, _ minutes: Double, _ value: Double) -> HealthSample {
            let begin = ISO8601.date(start)!
            return HealthSample(type: "stepCount", start: begin, end: begin.addingTimeInterval(minutes * 60),
                                value: .quantity(value, unit: "count"), source: source)
        }
        // The export's samples for 08:00–11:00 local (07:00–10:00 Z): the watch and the phone counted the same
        // walks; and a walk at 12:00 local that no aggregated bucket covers.
        let export = [steps(watch, "2024-03-04T07:05:00Z", 20, 1150), steps(phone, "2024-03-04T07:06:00Z", 20, 1100),
                      steps(watch, "2024-03-04T08:10:00Z", 5, 340), steps(watch, "2024-03-04T09:00:00Z", 40, 2200),
                      steps(phone, "2024-03-04T09:01:00Z", 40, 2150), steps(watch, "2024-03-04T11:00:00Z", 10, 500)]
        _ = try await service.store.save(export)
        _ = try await service.ingestHealthAutoExport(try Fixture.bytes("metrics-hourly.json"))
        let hours = try await service.acting(as: .owner).summary(SummaryRequest(type: "stepCount", start: "2024-03-04T08:00:00+01:00",
                                                             end: "2024-03-04T11:00:00+01:00", interval: "total"))
        #expect(hours.buckets.first?.sum == 3750.5, "HealthKit's totals for those hours, not totals + samples")
        let day = try await service.acting(as: .owner).summary(SummaryRequest(type: "stepCount", start: "2024-03-04", end: "2024-03-05",
                                                           interval: "total"))
        #expect(day.buckets.first?.sum == 3750.5 + 500, "the totals, and the samples where no total exists")
        let everything = export.compactMap(Self.quantity).reduce(0, +) + 3750.5
        #expect(day.buckets.first?.sum != everything)
    }

    @Test func malformedJSONWritesNothing() async throws {
        let service = try await Fixture.ingestService()
        var bytes = try Fixture.bytes("metrics-hourly.json")
        bytes.removeLast(20)
        await #expect(throws: HealthError.self) { _ = try await service.ingestHealthAutoExport(bytes) }
        do {
            _ = try await service.ingestHealthAutoExport(bytes)
        } catch let error as HealthError {
            #expect(error.code == .invalidArgument && error.message.contains("malformed JSON"))
        }
        #expect(try await service.store.typeSummaries().isEmpty)
        #expect(try await service.store.currentAnchor() == 0)
    }

    @Test func aTokenWithoutGrantsWritesNothing() async throws {
        let owner = try Fixture.service()
        let phone = owner.acting(as: Fixture.phone)
        do {
            _ = try await phone.ingestHealthAutoExport(try Fixture.bytes("metrics-hourly.json"))
            Issue.record("an ingest token without grants wrote")
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized && error.message.contains("ingest:phone"))
        }
        #expect(try await owner.store.typeSummaries().isEmpty)
        // Grants for steps only: a payload with other types is refused whole.
        try await owner.updateGrants(GrantsUpdate(principal: Fixture.phone.id, allowWrite: ["stepCount"]))
        await #expect(throws: HealthError.self) { _ = try await phone.ingestHealthAutoExport(try Fixture.bytes("metrics-hourly.json")) }
        #expect(try await phone.ingestHealthAutoExport(try Fixture.bytes("overlap-a.json")).inserted == 6)
    }

    @Test func theBatchIsAuditedWithHeadersAndCountsNeverValues() async throws {
        let recorder = AuditRecorder()
        let service = try await Fixture.ingestService().auditing(to: recorder)
        let info = IngestBatchInfo(automationName: "Hourly push", automationId: "auto-7", aggregation: "hours",
                                   period: "Today", sessionId: "s-1")
        _ = try await service.ingestHealthAutoExport(try Fixture.bytes("metrics-hourly.json"), info: info)
        let entry = try #require(recorder.entries.last)
        #expect(entry.principal == Fixture.phone && entry.count == 17)
        #expect(entry.detail?["automation-name"] == "Hourly push" && entry.detail?["automation-id"] == "auto-7")
        #expect(entry.detail?["automation-aggregation"] == "hours" && entry.detail?["automation-period"] == "Today")
        #expect(entry.detail?["session-id"] == "s-1" && entry.detail?["inserted"] == "17")
        let text = "\(entry)"
        for value in ["1200", "340.5", "71.5", "154.3", "Sam’s"] { #expect(!text.contains(value), "\(value) in the audit") }
    }

    @Test func payloadsOverTheLimitAreRefused() async throws {
        let service = try await Fixture.ingestService()
        let big = [UInt8](repeating: 0x20, count: IngestBatch.maxBytes + 1)
        do {
            _ = try await service.ingestHealthAutoExport(big)
            Issue.record("accepted a payload over the limit")
        } catch let error as HealthError {
            #expect(error.code == .payloadTooLarge)
        }
    }
}

