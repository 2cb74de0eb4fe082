import Foundation
import HealthBridgeTesting
import Testing
import HealthDemo
import HealthModel
import HealthStore
@testable import HealthEngine

@Suite struct DemoMergeTests {
    /// iPhone and Watch record the same walks at a constant cadence within each sample: the merge gives back the
    /// true steps exactly; summing every source over-counts by about half; one source per day under-counts.
    @Test func mergedDailyStepsEqualTheTruth() async throws {
        let end = t("2024-06-30T20:00:00Z")
        let generator = DemoWorld(days: 28, seed: 7, end: end, zone: paris).generator
        let store = try SQLiteHealthStore.inMemory()
        let report = try await generator.populate(store)
        let engine = HealthEngine(store: store)
        let start = generator.firstDay
        let lastFullDay = try DateExpression.parse("2024-06-30", timeZone: paris)
        let merged = try await engine.statistics(StatisticsRequest(
            type: try SampleTypeRegistry.resolve("stepCount"), start: start, end: lastFullDay, interval: StatisticsInterval(1, .day), timeZone: paris))
        let summed = try await engine.unmergedSums(type: "stepCount", start: start, end: lastFullDay,
                                                   interval: StatisticsInterval(1, .day), timeZone: paris)
        #expect(merged.buckets.count == 27)
        var truthTotal = 0.0, summedTotal = 0.0, dominantTotal = 0.0
        var separate = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: start, end: lastFullDay,
                                         interval: StatisticsInterval(1, .day), timeZone: paris, separateBySource: true,
                                         includeEmpty: true)
        separate.includeEmpty = true
        let bySource = try await engine.statistics(separate).bySource ?? []
        for (index, bucket) in merged.buckets.enumerated() {
            let day = ISO8601.dateString(bucket.start, timeZone: paris)
            let truth = try #require(report.trueSteps[day])
            #expect(close(bucket.sum, truth, 1e-6), "day \(day)")
            truthTotal += truth
            summedTotal += summed[index]
            dominantTotal += bySource.map { $0.buckets[index].sum ?? 0 }.max() ?? 0
        }
        let overcount = summedTotal / truthTotal
        #expect(overcount > 1.3 && overcount < 1.9, "summing every source gives \(overcount)× the truth")
        #expect(dominantTotal < truthTotal, "one source per day under-counts")
    }
}
