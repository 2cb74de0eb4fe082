import Foundation
import Synchronization

/// Statistics of one quantity type over the predicate's range, merged across sources as HealthKit merges them:
/// HealthKit's `HKStatisticsQuery`. With no sample in the range the handler gets HealthKit's `errorNoData`.
///
/// ```swift
/// let query = HKStatisticsQuery(quantityType: HKQuantityType(.activeEnergyBurned), quantitySamplePredicate: today,
///                               options: .cumulativeSum) { _, statistics, error in
///     let kcal = statistics?.sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0
/// }
/// store.execute(query)
/// ```
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
    let options: HKStatisticsOptions
    let completionHandler: @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
                completionHandler handler: @escaping @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void) {
        self.options = options
        self.completionHandler = handler
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    override func run(on connection: HealthKitConnection) async throws {
        guard let type = objectType as? HKQuantityType else {
            throw HKError(.errorInvalidArgument, "statistics need a quantity type")
        }
        let (_, all) = try await connection.statistics(type, filter, options: options, interval: "total")
        guard !isCancelled else { return }
        guard let statistics = all.first, statistics.bucket.count > 0 else {
            completionHandler(self, nil, HKError(.errorNoData, "No data available for the specified predicate."))
            return
        }
        completionHandler(self, statistics, nil)
    }

    override func fail(_ error: HKError) { completionHandler(self, nil, error) }
}

/// Statistics in intervals (a day, a week, 15 minutes…): HealthKit's `HKStatisticsCollectionQuery`. Buckets start
/// at the device's local midnight for days and longer, on Mondays for weeks; the anchor date's time of day is not
/// used otherwise.
///
/// ```swift
/// let query = HKStatisticsCollectionQuery(quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: nil,
///                                         options: .cumulativeSum, anchorDate: midnight, intervalComponents: DateComponents(day: 1))
/// query.initialResultsHandler = { _, collection, _ in
///     collection?.enumerateStatistics(from: start, to: end) { statistics, _ in print(statistics.sumQuantity() ?? 0) }
/// }
/// store.execute(query)
/// ```
public final class HKStatisticsCollectionQuery: HKQuery, @unchecked Sendable {
    public let anchorDate: Date
    public let options: HKStatisticsOptions
    public let intervalComponents: DateComponents
    let handlers = Mutex<Handlers>(Handlers())

    struct Handlers {
        var initial: (@Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void)?
        var update: (@Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void)?
    }

    /// Called once with the statistics of the range.
    public var initialResultsHandler: (@Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void)? {
        get { handlers.withLock { $0.initial } }
        set { handlers.withLock { $0.initial = newValue } }
    }

    /// Set it to keep the query running: called with the new statistics whenever samples of the type change.
    public var statisticsUpdateHandler: (@Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void)? {
        get { handlers.withLock { $0.update } }
        set { handlers.withLock { $0.update = newValue } }
    }

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
                anchorDate: Date, intervalComponents: DateComponents) {
        self.anchorDate = anchorDate
        self.options = options
        self.intervalComponents = intervalComponents
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    /// The server's interval (`day`, `2week`, `15minute`) for the components.
    var interval: String? {
        let c = intervalComponents
        let parts: [(Int?, String)] = [(c.year, "year"), (c.month, "month"), (c.weekOfYear, "week"), (c.day, "day"),
                                       (c.hour, "hour"), (c.minute, "minute")]
        let given = parts.compactMap { value, unit in value.flatMap { $0 > 0 ? ($0, unit) : nil } }
        guard given.count == 1, let (count, unit) = given.first else { return nil }
        return count == 1 ? unit : "\(count)\(unit)"
    }

    override func run(on connection: HealthKitConnection) async throws {
        guard let type = objectType as? HKQuantityType else {
            throw HKError(.errorInvalidArgument, "statistics need a quantity type")
        }
        guard let interval else {
            throw HKError(.errorInvalidArgument, "intervalComponents must give one positive unit (DateComponents(day: 1))")
        }
        let start = filter.range?.start ?? anchorDate
        var (_, statistics) = try await connection.statistics(type, filter, options: options, interval: interval,
                                                              start: start)
        guard !isCancelled else { return }
        handlers.withLock { $0.initial }?(self, HKStatisticsCollection(statistics), nil)
        guard handlers.withLock({ $0.update }) != nil else { return }
        var anchor = try await connection.currentAnchor()
        var delay = 0.2
        while !isCancelled {
            do {
                let changes = try await connection.changes(of: [type.serverName], from: anchor, wait: 20, limit: 1)
                anchor = changes.anchor
                guard !changes.added.isEmpty || !changes.deleted.isEmpty else { continue }
                anchor = try await connection.currentAnchor()
                (_, statistics) = try await connection.statistics(type, filter, options: options, interval: interval, start: start)
                delay = 0.2
                guard !isCancelled else { return }
                handlers.withLock { $0.update }?(self, statistics.last, HKStatisticsCollection(statistics), nil)
            } catch {
                // A server restarting: wait and ask again from the same anchor; anything else ends the query.
                guard await connection.backoff(after: HKError.from(error), &delay) else { throw error }
            }
        }
    }

    override func fail(_ error: HKError) {
        let (initial, update) = handlers.withLock { ($0.initial, $0.update) }
        if let update { update(self, nil, nil, error) } else { initial?(self, nil, error) }
    }
}

/// The statistics of a collection query, one per interval: HealthKit's `HKStatisticsCollection`.
public final class HKStatisticsCollection: Sendable {
    let all: [HKStatistics]

    init(_ all: [HKStatistics]) { self.all = all }

    /// Every interval's statistics, oldest first.
    public func statistics() -> [HKStatistics] { all }

    /// The statistics of the interval that holds `date`.
    public func statistics(for date: Date) -> HKStatistics? {
        all.first { $0.startDate <= date && date < $0.endDate }
    }

    /// Calls `block` for each interval from `startDate` to `endDate`, with empty statistics where there is no data.
    public func enumerateStatistics(from startDate: Date, to endDate: Date,
                                    with block: (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void) {
        var stop = ObjCBool(false)
        for statistics in all where statistics.endDate > startDate && statistics.startDate <= endDate {
            block(statistics, &stop)
            if stop.boolValue { return }
        }
    }

    /// The sources with data.
    public func sources() -> Set<HKSource> { Set(all.flatMap { $0.sources ?? [] }) }
}
