import Foundation
import HealthEngine
import HealthImport
import HealthModel
import HealthStore
import Testing

@Suite("Statistics after a multi-source import")
struct MergeTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// iPhone and Watch record the same walks. By hand, with the Watch first in priority and the iPhone filling the
    /// Watch's gaps pro rata:
    /// 10:00–10:05 iPhone 1200×5/20 = 300, 10:05–10:15 Watch 900, 10:15–10:20 iPhone 300, 10:30–10:40 Watch 280,
    /// 14:00–14:10 iPhone only 500, 18:00–18:10 Watch only 200: 2,480 steps; every source added up: 3,380.
    static var export: ExportFixture {
        func watch(_ value: Int, _ start: String, _ end: String, address: String) -> String {
            X.steps(value, start: "2024-05-01 \(start):00 +0200", end: "2024-05-01 \(end):00 +0200",
                    source: "Alex’s Apple Watch",
                    device: X.device("Apple Watch", model: "Watch", hardware: "Watch6,2", software: "10.4", address: address))
        }
        func phone(_ value: Int, _ start: String, _ end: String) -> String {
            X.steps(value, start: "2024-05-01 \(start):00 +0200", end: "2024-05-01 \(end):00 +0200")
        }
        return ExportFixture([
            phone(1200, "10:00", "10:20"), phone(300, "10:30", "10:40"), phone(500, "14:00", "14:10"),
            watch(900, "10:05", "10:15", address: "0x2813d5c20"), watch(280, "10:30", "10:40", address: "0x2813d9f00"),
            watch(200, "18:00", "18:10", address: "0x2813e0a10"),
        ])
    }

    @Test("stepCount totals are merged by source priority, not summed")
    func mergedSteps() async throws {
        let dir = try TempDir()
        let (store, report) = try await importFresh(try Self.export.writeXML(in: dir.url))
        #expect(report.samplesInserted == 6)
        let sources = try await store.sources(type: "stepCount")
        #expect(sources.count == 2, "one source per device, whatever the HKDevice addresses")

        let engine = HealthEngine(store: store)
        let day = date("2024-04-30T22:00:00Z")  // midnight in Paris
        let total = try await engine.statistics(StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: day, end: day.addingTimeInterval(86_400),
                                                                   timeZone: Self.paris))
        #expect(total.merged)
        #expect(total.priority.first == "Alex’s Apple Watch")
        let sum = try #require(total.buckets.first?.sum)
        #expect(abs(sum - 2_480) < 1e-6)

        let hourly = try await engine.statistics(StatisticsRequest(type: try SampleTypeRegistry.resolve("stepCount"), start: day, end: day.addingTimeInterval(86_400),
                                                                    interval: StatisticsInterval(1, .hour), timeZone: Self.paris))
        let byHour = Dictionary(uniqueKeysWithValues: hourly.buckets.compactMap { bucket in
            bucket.sum.map { (Calendar.current.dateComponents(in: Self.paris, from: bucket.start).hour ?? -1, $0) }
        })
        #expect(abs((byHour[10] ?? 0) - 1_780) < 1e-6)
        #expect(abs((byHour[14] ?? 0) - 500) < 1e-6)
        #expect(abs((byHour[18] ?? 0) - 200) < 1e-6)
        #expect(abs(byHour.values.reduce(0, +) - 2_480) < 1e-6)

        // What adding every source up would give: the figure to avoid.
        let unmerged = try await engine.unmergedSums(type: "stepCount", start: day, end: day.addingTimeInterval(86_400),
                                                     interval: StatisticsInterval(1, .day), timeZone: Self.paris)
        #expect(abs(unmerged.reduce(0, +) - 3_380) < 1e-6)
    }
}
