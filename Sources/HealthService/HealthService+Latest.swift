import Foundation
import HealthAPI
import HealthEngine
import HealthModel
import HealthStore

extension HealthService {
    /// The most recent sample of a quantity or category type, with its age.
    public func latest(_ request: LatestRequest) async throws -> LatestResult {
        let service = try zoned(request.timeZone)
        let type = try await resolveType(request.type)
        try requireSampleType(type, use: "latest")
        let sources = Self.list(request.sources)
        try await checkSources(sources, type: type)
        var result = LatestResult(type: type.identifier, found: false, timeZone: service.homeTimeZone.identifier)
        let readable = try await authorizeRead([type.identifier])
        let page = readable
            ? try await engine.samples(SampleQuery(type: type.identifier, sources: sources, limit: 1, ascending: false))
            : SamplePage(samples: [], nextCursor: nil)
        guard let sample = page.samples.first else {
            result.note = "no \(type.identifier) samples\(sources.map { " from " + $0.joined(separator: ", ") } ?? "") in the store"
            return result
        }
        let record = try service.record(sample, type: type)
        result.found = true
        result.value = record.value
        result.unit = record.unit
        result.category = record.category
        result.start = record.start
        result.end = record.end
        result.source = record.source
        result.ageHours = (clock().timeIntervalSince(sample.end) / 36).rounded() / 100
        if type.summaryStyle == .total {
            result.note = "\(type.identifier) is cumulative: this is one sample, not a total; use a summary or today's overview for totals"
        }
        return result
    }
}
