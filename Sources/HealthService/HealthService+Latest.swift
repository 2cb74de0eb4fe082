import Foundation
import HealthEngine
import HealthModel
import HealthStore

/// The most recent sample of a type.
///
/// ```swift
/// let weight = try await service.latest(LatestRequest(type: "bodyMass"))
/// weight.value   // 72.4 (kg)
/// ```
public struct LatestRequest: Codable, Sendable, Hashable {
    public var type: String?
    public var sources: [String]?
    public var timeZone: String?

    public init(type: String? = nil, sources: [String]? = nil, timeZone: String? = nil) {
        self.type = type; self.sources = sources; self.timeZone = timeZone
    }
}

public struct LatestResult: Codable, Sendable, Hashable {
    public var type: String
    /// False when the store has no sample of the type (or this principal may not read it).
    public var found: Bool
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var start: String?
    public var end: String?
    public var source: String?
    /// Hours between the sample's end and now.
    public var ageHours: Double?
    public var timeZone: String
    public var note: String?

    enum CodingKeys: String, CodingKey {
        case type, found, value, unit, category, start, end, source, ageHours = "age_hours", timeZone = "time_zone", note
    }
}

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
        if type.isCumulative {
            result.note = "\(type.identifier) is cumulative: this is one sample, not a total; use a summary or today's overview for totals"
        }
        return result
    }
}
