import Foundation
import HealthModel
import HealthStore

extension HealthEngine {
    /// The metadata keys of a sample that stands for a bucket of readings (a Health Auto Export hour of heart rate
    /// `{Min, Avg, Max}`, a Health Connect aggregate): its value is the bucket's average, these its lowest and
    /// highest reading, in the sample's unit.
    public static let bucketMinimumKey = "HealthBridgeMinimum"
    public static let bucketMaximumKey = "HealthBridgeMaximum"

    /// Lets the stored minimum and maximum of bucket samples count in discrete statistics: a statistics bucket's
    /// `min` is the lowest of its samples' values and of their stored minimums, its `max` likewise (the average
    /// stays the average of the values). Samples are placed as the discrete accumulator places them, by start.
    ///
    /// ```swift
    /// // an hour stored as 71.5 count/min with HealthBridgeMinimum 58 and HealthBridgeMaximum 112
    /// let day = try await engine.statistics(StatisticsRequest(type: heartRate, start: day, end: next, …))
    /// day.buckets[0].min   // 58, not 71.5
    /// day.buckets[0].max   // 112
    /// ```
    func applyBucketExtremes(_ buckets: inout [StatisticsBucket], _ bySource: inout [SourceSeries]?, type: String,
                             request: StatisticsRequest, unit: String?, options: Set<StatisticsOption>) async throws {
        let target = try unit.map { try HealthUnit.parse($0) }
        var converters: [String: HealthModel.UnitConverter] = [:]
        let rangeStart = request.start.timeIntervalSince1970, rangeEnd = request.end.timeIntervalSince1970
        var series = bySource ?? []
        defer { if bySource != nil { bySource = series } }
        for (key, isMinimum) in [(Self.bucketMinimumKey, true), (Self.bucketMaximumKey, false)] {
            guard options.contains(isMinimum ? .min : .max) else { continue }
            var cursor: String?
            repeat {
                let page = try await store.samples(SampleQuery(type: type, start: request.start, end: request.end,
                                                               sources: request.sources, metadataKey: key,
                                                               limit: 5000, cursor: cursor))
                cursor = page.nextCursor
                for sample in page.samples {
                    let start = sample.start.timeIntervalSince1970
                    guard start >= rangeStart, start < rangeEnd, case .quantity(_, let sampleUnit) = sample.value,
                          let text = sample.metadata[key], let raw = Double(text), raw.isFinite else { continue }
                    var value = raw
                    if let target {
                        if converters[sampleUnit] == nil {
                            converters[sampleUnit] = try? HealthUnit.parse(sampleUnit).converter(to: target)
                        }
                        guard let converter = converters[sampleUnit] else { continue }
                        value = converter.convert(raw)
                    }
                    guard value.isFinite else { continue }
                    Self.widen(&buckets, at: sample.start, with: value, isMinimum: isMinimum)
                    if let index = series.firstIndex(where: { $0.source == sample.source.name }) {
                        Self.widen(&series[index].buckets, at: sample.start, with: value, isMinimum: isMinimum)
                    }
                }
            } while cursor != nil
        }
    }

    /// Lowers the minimum (or raises the maximum) of the non-empty bucket holding `date`. Buckets are in start
    /// order: found by binary search, so a year of hourly buckets costs ~13 comparisons a sample, not 8,760.
    static func widen(_ buckets: inout [StatisticsBucket], at date: Date, with value: Double, isMinimum: Bool) {
        var low = 0, high = buckets.count   // the first bucket starting after `date` lies in low…high
        while low < high {
            let middle = (low + high) / 2
            if buckets[middle].start <= date { low = middle + 1 } else { high = middle }
        }
        let index = low - 1
        guard index >= 0, date < buckets[index].end, buckets[index].count > 0 else { return }
        if isMinimum {
            if let current = buckets[index].min, value < current { buckets[index].min = value }
        } else {
            if let current = buckets[index].max, value > current { buckets[index].max = value }
        }
    }
}
