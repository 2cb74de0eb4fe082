import Foundation
import HealthBridgeTesting
import HealthModel
import HealthStore
import Testing
@testable import HealthEngine

/// Which source won: the merge's per-source parts add up to the merged sum, and no source counts more than it recorded.
@Suite struct ContributionTests {
    @Test func partsAddUpToTheMergedSumAndStayWithinEachSourcesOwnTotal() async throws {
        let end = t("2024-06-30T20:00:00Z")
        let generator = DemoWorld(days: 28, seed: 7, end: end, zone: paris).generator
        let store = try SQLiteHealthStore.inMemory()
        try await generator.populate(store)
        let engine = HealthEngine(store: store)
        var request = StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: generator.firstDay, end: end,
                                        interval: StatisticsInterval(1, .day), timeZone: paris, separateBySource: true,
                                        includeEmpty: true, contributions: true)
        let result = try await engine.statistics(request)
        let own = Dictionary(uniqueKeysWithValues: (result.bySource ?? []).map { series in
            (series.source, series.buckets.reduce(0) { $0 + ($1.sum ?? 0) })
        })
        #expect(own.keys.contains { $0.contains("Watch") } && own.keys.contains { $0.contains("iPhone") }, "\(own.keys)")
        var parts: [String: Double] = [:]
        var total = 0.0
        for bucket in result.buckets {
            guard let sum = bucket.sum else {
                #expect(bucket.contributions == nil)
                continue
            }
            let contributions = try #require(bucket.contributions)
            let added = contributions.values.reduce(0, +)
            #expect(abs(added - sum) <= 1e-9 * max(1, abs(sum)), "\(bucket.start): \(added) vs \(sum)")
            for (source, part) in contributions { parts[source, default: 0] += part }
            total += sum
        }
        #expect(abs(parts.values.reduce(0, +) - total) <= 1e-9 * total)
        #expect(parts.count >= 2, "both devices count somewhere: \(parts)")
        for (source, part) in parts {
            let ownTotal = try #require(own[source])
            #expect(ownTotal >= part * (1 - 1e-9), "\(source): \(part) counted of \(ownTotal)")
        }

        // The plain path is unchanged: the same sums without tracking, and no contributions.
        request.contributions = false
        request.separateBySource = false
        let plain = try await engine.statistics(request)
        #expect(plain.buckets.map(\.sum) == result.buckets.map(\.sum))
        #expect(plain.buckets.allSatisfy { $0.contributions == nil })
    }
}
