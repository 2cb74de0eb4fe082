import Foundation
import HealthAPI
import HealthModel

extension HealthService {
    /// Every page of a summary, as one result: the buckets, the per-source series and the contributions of all
    /// pages, the total summed over them.
    ///
    /// ```swift
    /// let month = try await service.summaryPages(SummaryRequest(type: "stepCount", start: "30d", interval: "hour"))
    /// month.hasMore   // false
    /// ```
    public func summaryPages(_ request: SummaryRequest) async throws -> SummaryResult {
        var result = try await summary(request)
        var cursor = result.nextCursor
        while let next = cursor {
            let page = try await summary(SummaryRequest(cursor: next))
            result.buckets += page.buckets
            if let series = page.bySource, var all = result.bySource {
                for index in all.indices {
                    all[index].buckets += series.first { $0.source == all[index].source }?.buckets ?? []
                }
                result.bySource = all
            }
            if let parts = page.contributions, var all = result.contributions {
                for part in parts {
                    if let index = all.firstIndex(where: { $0.source == part.source }) {
                        all[index].contribution += part.contribution
                        all[index].ownTotal += part.ownTotal
                    } else {
                        all.append(part)
                    }
                }
                result.contributions = all
            }
            result.end = page.end
            cursor = page.nextCursor
        }
        result.hasMore = false
        result.nextCursor = nil
        let sums = result.buckets.compactMap(\.sum)
        result.totalSum = result.totalSum == nil || sums.isEmpty ? result.totalSum : sums.reduce(0, +)
        return result
    }
}
