import Foundation

/// Samples of one type matching a predicate, sorted and limited: HealthKit's `HKSampleQuery`.
///
/// ```swift
/// let query = HKSampleQuery(sampleType: HKQuantityType(.bodyMass), predicate: nil, limit: 1,
///                           sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]) { _, samples, error in
///     let latest = samples?.first as? HKQuantitySample
/// }
/// store.execute(query)
/// ```
///
/// The sort keys are HealthKit's `HKSampleSortIdentifierStartDate` and `…EndDate`; without a sort descriptor samples
/// come oldest first.
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    public let limit: Int
    let sort: [(key: String, ascending: Bool)]
    let resultsHandler: @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void

    public init(sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
                resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void) {
        self.limit = limit
        self.sort = (sortDescriptors ?? []).map { ($0.healthKitKey ?? "", $0.ascending) }
        self.resultsHandler = resultsHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    override func run(on connection: HealthKitConnection) async throws {
        guard let type = sampleType else { throw HKError(.errorInvalidArgument, "a sample query needs a sample type") }
        if let unknown = sort.first(where: { $0.key != HKSampleSortIdentifierStartDate && $0.key != HKSampleSortIdentifierEndDate }) {
            throw HKError(.errorInvalidArgument, "samples sort by HKSampleSortIdentifierStartDate or …EndDate only\(unknown.key.isEmpty ? "" : ", not '\(unknown.key)'")")
        }
        let byStart = sort.first.map { $0.key == HKSampleSortIdentifierStartDate } ?? true
        let ascending = sort.first?.ascending ?? true
        let limit = limit > 0 ? limit : nil
        // The server orders by start date; any other order needs every match first.
        var samples = try await connection.samples(of: type, filter, limit: byStart ? limit : nil,
                                                   ascending: byStart ? ascending : true)
        if !byStart || sort.count > 1 {
            samples.sort { a, b in
                for (key, ascending) in sort {
                    let (x, y) = key == HKSampleSortIdentifierEndDate ? (a.endDate, b.endDate) : (a.startDate, b.startDate)
                    if x != y { return ascending ? x < y : x > y }
                }
                return false
            }
            if let limit { samples = Array(samples.prefix(limit)) }
        }
        guard !isCancelled else { return }
        resultsHandler(self, samples, nil)
    }

    override func fail(_ error: HKError) { resultsHandler(self, nil, error) }
}
