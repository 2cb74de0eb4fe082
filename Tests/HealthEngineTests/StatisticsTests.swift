import Foundation
import Testing
import HealthModel
import HealthStore
@testable import HealthEngine

@Suite struct StatisticsTests {
    @Test func sampleSpanningABucketEdgeIsSplitProportionally() async throws {
        let store = try await makeStore([steps("2024-05-01T13:57:00Z", "2024-05-01T14:02:00Z", 100, phone)])
        let result = try await HealthEngine(store: store).statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: t("2024-05-01T13:00:00Z"), end: t("2024-05-01T15:00:00Z"),
            interval: StatisticsInterval(1, .hour), timeZone: utc))
        #expect(result.buckets.count == 2)
        #expect(close(result.buckets[0].sum, 60, 1e-9))
        #expect(close(result.buckets[1].sum, 40, 1e-9))
        #expect(result.merged)
    }

    @Test func overlappingSourcesMergeByPriorityAndTheLowerFillsGaps() async throws {
        // Watch 10:00–10:10 (100 steps); phone 10:05–10:20 at 10 steps/min (150 steps).
        let store = try await makeStore([
            steps("2024-05-01T10:00:00Z", "2024-05-01T10:10:00Z", 100, watch),
            steps("2024-05-01T10:05:00Z", "2024-05-01T10:20:00Z", 150, phone),
        ])
        let engine = HealthEngine(store: store)
        let request = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: t("2024-05-01T00:00:00Z"),
                                        end: t("2024-05-02T00:00:00Z"), timeZone: utc)
        let merged = try await engine.statistics(request)
        // Watch wins 10:05–10:10; the phone fills 10:10–10:20 (100 steps).
        #expect(close(merged.buckets.first?.sum, 200, 1e-9))
        #expect(merged.priority == ["Alex’s Apple Watch", "Alex’s iPhone"])
        #expect(merged.buckets.first?.sources == ["Alex’s Apple Watch", "Alex’s iPhone"])

        // Reversed priority: phone first — 150 from the phone plus the watch's 10:00–10:05 (50).
        try await store.setPriority(type: "stepCount", sources: ["Alex’s iPhone"])
        let reversed = try await engine.statistics(request)
        #expect(close(reversed.buckets.first?.sum, 200, 1e-9))
        #expect(reversed.priority.first == "Alex’s iPhone")

        // By source: no merge.
        var separate = request
        separate.separateBySource = true
        let bySource = try await engine.statistics(separate)
        let sums = Dictionary(uniqueKeysWithValues: (bySource.bySource ?? []).map { ($0.source, $0.buckets.first?.sum ?? 0) })
        #expect(sums == ["Alex’s Apple Watch": 100, "Alex’s iPhone": 150])
    }

    @Test func userEnteredBeatsDevicesAndAppsComeLast() async throws {
        let typed = HealthSource(name: "Health", bundleIdentifier: "com.apple.Health")
        let store = try await makeStore([
            steps("2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", 600, app),
            steps("2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", 500, phone),
            steps("2024-05-01T09:30:00Z", "2024-05-01T09:40:00Z", 1000, typed),
        ])
        let result = try await HealthEngine(store: store).statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: t("2024-05-01T00:00:00Z"), end: t("2024-05-02T00:00:00Z"), timeZone: utc))
        #expect(result.priority == ["Health", "Alex’s iPhone", "Pedometer++"])
        // 1000 typed + the phone's 50 minutes at 500/60 per minute.
        let expected = 1000 + 500.0 * 50 / 60
        #expect(close(result.buckets.first?.sum, expected))
    }

    @Test(arguments: [("2024-03-31", 23.0), ("2024-10-27", 25.0), ("2024-06-15", 24.0)])
    func dayBucketsFollowDaylightSavingTime(day: String, hours: Double) async throws {
        // One 60-step sample every hour for three days around the date, in UTC.
        let center = try DateExpression.parse(day, timeZone: paris)
        var samples: [HealthSample] = []
        var cursor = center.addingTimeInterval(-86_400)
        while cursor < center.addingTimeInterval(2 * 86_400) {
            samples.append(HealthSample(type: "stepCount", start: cursor, end: cursor.addingTimeInterval(3600),
                                        value: .quantity(60, unit: "count"), source: phone))
            cursor = cursor.addingTimeInterval(3600)
        }
        let store = try await makeStore(samples)
        let result = try await HealthEngine(store: store).statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: center, end: center.addingTimeInterval(hours * 3600),
            interval: StatisticsInterval(1, .day), timeZone: paris))
        #expect(result.buckets.count == 1)
        let bucket = try #require(result.buckets.first)
        #expect(bucket.end.timeIntervalSince(bucket.start) == hours * 3600)
        #expect(close(bucket.sum, hours * 60, 1e-6))
        #expect(ISO8601.string(bucket.start, timeZone: paris).hasPrefix(day + "T00:00:00"))
    }

    @Test func emptyBucketsAppearOnlyWhenAsked() async throws {
        let store = try await makeStore([
            steps("2024-05-01T10:00:00Z", "2024-05-01T10:10:00Z", 100, phone),
            steps("2024-05-03T10:00:00Z", "2024-05-03T10:10:00Z", 50, phone),
        ])
        var request = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: t("2024-05-01T00:00:00Z"),
                                        end: t("2024-05-04T00:00:00Z"), interval: StatisticsInterval(1, .day),
                                        timeZone: utc)
        let engine = HealthEngine(store: store)
        #expect(try await engine.statistics(request).buckets.map(\.sum) == [100, 50])
        request.includeEmpty = true
        let all = try await engine.statistics(request).buckets
        #expect(all.map(\.sum) == [100, nil, 50])
        #expect(all[1].isEmpty)
    }

    @Test func discreteStatistics() async throws {
        let store = try await makeStore([
            heart("2024-05-01T08:00:00Z", 60), heart("2024-05-01T09:00:00Z", 90),
            heart("2024-05-01T10:00:00Z", 75, phone), heart("2024-05-02T10:00:00Z", 70),
        ])
        let result = try await HealthEngine(store: store).statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("heartRate"), start: t("2024-05-01T00:00:00Z"), end: t("2024-05-03T00:00:00Z"),
            interval: StatisticsInterval(1, .day), timeZone: utc))
        let day = try #require(result.buckets.first)
        #expect(day.average == 75)
        #expect(day.min == 60)
        #expect(day.max == 90)
        #expect(day.mostRecent == 75)
        #expect(day.mostRecentDate == t("2024-05-01T10:00:00Z"))
        #expect(Set(day.sources) == ["Alex’s Apple Watch", "Alex’s iPhone"])
        #expect(result.unit == "count/min")
        #expect(!result.merged)
    }

    @Test func unitConversionOnRequest() async throws {
        let store = try await makeStore([
            HealthSample(type: "bodyMass", start: t("2024-05-01T08:00:00Z"), end: t("2024-05-01T08:00:00Z"),
                         value: .quantity(160, unit: "lb"), source: phone),
        ])
        let engine = HealthEngine(store: store)
        let request = StatisticsRequest(type: try SampleTypeRegistry.resolve("bodyMass"), start: t("2024-05-01T00:00:00Z"), end: t("2024-05-02T00:00:00Z"),
                                        timeZone: utc, options: [.average])
        let kg = try await engine.statistics(request)
        #expect(close(kg.buckets.first?.average, 72.57472, 1e-4))
        var inPounds = request
        inPounds.unit = "lb"
        #expect(close(try await engine.statistics(inPounds).buckets.first?.average, 160, 1e-9))
        // An incompatible unit is the service's to refuse (ServiceValidationTests): the engine trusts its request.
    }

    @Test func zeroDurationSamplesCountOnceExceptExactDuplicates() async throws {
        let water = { (source: HealthSource, value: Double, at: String) in
            HealthSample(type: "dietaryWater", start: t(at), end: t(at), value: .quantity(value, unit: "mL"), source: source)
        }
        let store = try await makeStore([
            water(phone, 250, "2024-05-01T09:00:00Z"), water(app, 250, "2024-05-01T09:00:00Z"),
            water(app, 300, "2024-05-01T09:00:00Z"), water(phone, 250, "2024-05-01T12:00:00Z"),
        ])
        let result = try await HealthEngine(store: store).statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("dietaryWater"), start: t("2024-05-01T00:00:00Z"), end: t("2024-05-02T00:00:00Z"), timeZone: utc))
        #expect(result.buckets.first?.sum == 800)
    }

    @Test func weeklyAndMonthlyBucketsAlignToTheCalendar() async throws {
        let store = try await makeStore([
            steps("2024-01-31T10:00:00Z", "2024-01-31T10:10:00Z", 10, phone),
            steps("2024-02-01T10:00:00Z", "2024-02-01T10:10:00Z", 20, phone),
            steps("2024-02-05T10:00:00Z", "2024-02-05T10:10:00Z", 40, phone),
        ])
        let engine = HealthEngine(store: store)
        let months = try await engine.statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: t("2024-01-15T00:00:00Z"), end: t("2024-03-01T00:00:00Z"),
            interval: StatisticsInterval(1, .month), timeZone: utc))
        #expect(months.buckets.map(\.sum) == [10, 60])
        #expect(months.buckets.map { ISO8601.string($0.start) } == ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"])
        let weeks = try await engine.statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: t("2024-01-29T00:00:00Z"), end: t("2024-02-12T00:00:00Z"),
            interval: StatisticsInterval(1, .week), timeZone: utc))
        // 2024-01-29 and 2024-02-05 are Mondays.
        #expect(weeks.buckets.map(\.sum) == [30, 40])
    }
}
