import Foundation
import HealthAutoExport
import HealthModel
import HealthStore

/// What came with a pushed batch besides its body: Health Auto Export's request headers. Recorded in the audit log
/// with the batch's counts (never a value).
///
/// ```swift
/// IngestBatchInfo(automationName: "Hourly", aggregation: "hours")
/// ```
public struct IngestBatchInfo: Sendable, Hashable, Codable {
    public var automationName: String?
    public var automationId: String?
    /// `automation-aggregation`: the time grouping of aggregated data (`hours`, `days`…).
    public var aggregation: String?
    /// `automation-period`: the range the app exported (`Today`, `Last 7 Days`…).
    public var period: String?
    public var sessionId: String?

    public init(automationName: String? = nil, automationId: String? = nil, aggregation: String? = nil,
                period: String? = nil, sessionId: String? = nil) {
        func clean(_ text: String?) -> String? {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return String(text.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(128)
                .map(Character.init))
        }
        self.automationName = clean(automationName); self.automationId = clean(automationId)
        self.aggregation = clean(aggregation); self.period = clean(period); self.sessionId = clean(sessionId)
    }

    /// The non-empty fields, by header name.
    public var headers: [String: String] {
        var fields: [String: String] = [:]
        fields["automation-name"] = automationName
        fields["automation-id"] = automationId
        fields["automation-aggregation"] = aggregation
        fields["automation-period"] = period
        fields["session-id"] = sessionId
        return fields
    }
}

/// What an ingest did: objects new, replaced (a bucket whose total changed since the last send) and already stored,
/// per HealthKit type, and what was kept aside.
public struct IngestReport: Codable, Sendable, Hashable {
    public var format = "health-auto-export"
    /// Samples, correlations and workouts written for the first time.
    public var inserted = 0
    /// Buckets re-sent with a new total: the newer replaced the older.
    public var replaced = 0
    /// Already stored as sent: a re-send or an overlapping period.
    public var unchanged = 0
    /// Objects per HealthKit type in the payload (`workout` for workouts).
    public var types: [String: Int] = [:]
    /// Route points of the payload's workouts.
    public var routePoints = 0
    /// Metrics and sections HealthBridge does not know, with their item counts: not stored, not an error.
    public var unknown: [String: Int] = [:]
    /// Items of known metrics that could not be stored, per metric, and the first reason of each.
    public var rejected: [String: Int] = [:]
    public var reasons: [String: String] = [:]
    /// The change feed's anchor after the ingest.
    public var anchor = "0"

    public init() {}
}

extension HealthService {
    /// The largest payload an ingest takes (real payloads reach about 25 MB).
    public static let maxIngestBytes = 64 * 1024 * 1024

    /// The source of workouts pushed by Health Auto Export.
    public static let healthAutoExportSource = HealthSource(name: "Health Auto Export",
                                                            bundleIdentifier: "org.healthbridge.ingest.health-auto-export")

    /// Stores a Health Auto Export payload for this principal (an `ingest:NAME` token, or the owner importing a
    /// file): every item mapped to its HealthKit type and unit, in one transaction, exactly once.
    ///
    /// Each item carries a HealthKit sync identifier built from its natural key — type and bucket for aggregated
    /// totals (which are stored under the ``HealthSource/healthAutoExportTotals`` source), type, source and dates
    /// for single samples, the id (or type and dates) for workouts — so a re-send or an overlapping period adds
    /// nothing, and a bucket re-sent with a new total (the hour was not over) replaces the older one with the next
    /// sync version. Unknown metrics are counted in the report, never an error; malformed JSON is
    /// `HEALTH_INVALID_ARGUMENT` and writes nothing; a type this principal may not write is `HEALTH_NOT_AUTHORIZED`
    /// and writes nothing.
    ///
    /// ```swift
    /// let report = try await service.acting(as: Principal(kind: .ingest, name: "phone"))
    ///     .ingestHealthAutoExport(Array(body), info: IngestBatchInfo(aggregation: "hours"))
    /// report.inserted   // 48
    /// ```
    public func ingestHealthAutoExport(_ body: [UInt8], info: IngestBatchInfo = IngestBatchInfo()) async throws
        -> IngestReport
    {
        guard body.count <= Self.maxIngestBytes else {
            throw HealthError(.payloadTooLarge, "a Health Auto Export payload is at most \(Self.maxIngestBytes / 1_048_576) MB")
        }
        var items: [HAEItem] = []
        var workouts: [HAEWorkout] = []
        let reader = HAEPayloadReader(aggregation: HAEBucket(header: info.aggregation))
        let summary = try reader.read(body, item: { items.append($0) }, workout: { workouts.append($0) })

        var report = IngestReport()
        report.unknown = summary.unknown
        report.rejected = summary.rejected
        report.reasons = summary.reasons

        // Consent first: a type this principal may not write refuses the whole payload.
        var types = Set(items.map(\.type))
        if types.contains("bloodPressure") { types.formUnion(["bloodPressureSystolic", "bloodPressureDiastolic"]) }
        if !workouts.isEmpty { types.insert("workout") }
        for type in types.sorted() { try await authorizeWrite(type) }

        let plan = try await ingestPlan(items)
        let now = clock()
        var batch = SampleBatch(capacity: plan.count)
        var correlations: [HealthCorrelation] = []
        var sources: [String: HealthSource] = [:]
        for entry in plan {
            let item = entry.item
            report.types[item.type, default: 0] += 1
            guard let version = entry.version else { report.unchanged += 1; continue }
            let source: HealthSource
            if item.aggregated {
                source = .healthAutoExportTotals
            } else if let known = sources[item.source] {
                source = known
            } else {
                source = HealthSource(name: item.source.isEmpty ? "Health Auto Export" : item.source)
                sources[item.source] = source
            }
            var metadata = item.metadata
            if !item.source.isEmpty { metadata["HealthBridgeHAESource"] = item.source }
            metadata[MetadataKey.wasUserEntered] = "0"
            let start = Date(timeIntervalSince1970: item.start), end = Date(timeIntervalSince1970: item.end)
            func sample(_ type: String, _ value: SampleValue, key: String) -> HealthSample {
                var metadata = metadata
                metadata[MetadataKey.syncIdentifier] = key
                metadata[MetadataKey.syncVersion] = String(version)
                let uuid = HealthSample.naturalUUID(type: type, sourceKey: source.key, start: start, end: end,
                                                    value: .quantity(Double(version), unit: key))
                return HealthSample(uuid: uuid, type: type, start: start, end: end, value: value, source: source,
                                    creationDate: now, metadata: metadata, utcOffset: item.utcOffset)
            }
            switch item.value {
            case .quantity(let value):
                batch.append(sample(item.type, .quantity(value, unit: item.unit), key: entry.key))
            case .category(let value):
                batch.append(sample(item.type, .category(value), key: entry.key))
            case .bloodPressure(let systolic, let diastolic):
                let high = sample("bloodPressureSystolic", .quantity(systolic, unit: "mmHg"), key: entry.key + "/systolic")
                let low = sample("bloodPressureDiastolic", .quantity(diastolic, unit: "mmHg"), key: entry.key + "/diastolic")
                batch.append(high)
                batch.append(low)
                correlations.append(HealthCorrelation(type: "bloodPressure", start: start, end: end, source: source,
                                                      creationDate: now, metadata: metadata, members: [high.uuid, low.uuid]))
            }
        }

        var healthWorkouts: [HealthWorkout] = []
        var routes: [UUID: RoutePointColumns] = [:]
        for workout in workouts {
            let mapped = healthWorkout(workout, now: now)
            report.types["workout", default: 0] += 1
            report.routePoints += workout.route.count
            if let route = mapped.routes.first, !workout.route.isEmpty { routes[route.uuid] = workout.route }
            healthWorkouts.append(mapped)
        }

        let result = try await store.commit(StoreTransaction(batch: batch, correlations: correlations,
                                                             workouts: healthWorkouts, routes: routes))
        // The store counts a replacement as replaced, not inserted.
        report.replaced = result.saved.replaced
        report.inserted = result.saved.inserted
        report.unchanged += result.saved.ignored
        report.anchor = String(result.anchor)
        await audit(.write, types: report.types.keys, count: report.inserted + report.replaced,
                    detail: Self.ingestAuditDetail(report, info: info))
        return report
    }

    /// The audit entry's facts of an ingest: its headers and counts, never a value.
    public static func ingestAuditDetail(_ report: IngestReport, info: IngestBatchInfo) -> [String: String] {
        var detail = info.headers
        detail["format"] = report.format
        detail["inserted"] = String(report.inserted)
        detail["replaced"] = String(report.replaced)
        detail["unchanged"] = String(report.unchanged)
        if !report.unknown.isEmpty { detail["unknown"] = report.unknown.keys.sorted().joined(separator: ",") }
        let rejected = report.rejected.values.reduce(0, +)
        if rejected > 0 { detail["rejected"] = String(rejected) }
        if report.routePoints > 0 { detail["routePoints"] = String(report.routePoints) }
        return detail
    }

    /// An item with its sync identifier and the version to write (nil: already stored as sent).
    struct IngestEntry {
        var item: HAEItem
        var key: String
        var version: Int?
    }

    /// Keys every item, drops repeats within the payload (the last one wins), and compares aggregated buckets with
    /// the stored ones: unchanged ones are not written, changed ones get the next version.
    func ingestPlan(_ items: [HAEItem]) async throws -> [IngestEntry] {
        var entries: [IngestEntry] = []
        entries.reserveCapacity(items.count)
        var positions: [String: Int] = [:]
        for item in items {
            let key = Self.syncKey(item)
            if let index = positions[key] {
                entries[index] = IngestEntry(item: item, key: key, version: 1)
            } else {
                positions[key] = entries.count
                entries.append(IngestEntry(item: item, key: key, version: 1))
            }
        }
        // Stored buckets of the totals source over the payload's range, per type.
        var ranges: [String: (Double, Double)] = [:]
        for entry in entries where entry.item.aggregated {
            let type = entry.item.type
            let range = ranges[type] ?? (entry.item.start, entry.item.end)
            ranges[type] = (min(range.0, entry.item.start), max(range.1, entry.item.end))
        }
        let totalsKey = HealthSource.healthAutoExportTotals.key
        for (type, range) in ranges {
            var stored: [String: (version: Int, value: SampleValue, end: Date)] = [:]
            var cursor: String?
            repeat {
                let page = try await store.samples(SampleQuery(
                    type: type, start: Date(timeIntervalSince1970: range.0), end: Date(timeIntervalSince1970: range.1),
                    sources: [totalsKey], limit: 10_000, cursor: cursor))
                for sample in page.samples {
                    guard let id = sample.syncIdentifier else { continue }
                    stored[id] = (sample.syncVersion ?? 0, sample.value, sample.end)
                }
                cursor = page.nextCursor
            } while cursor != nil
            guard !stored.isEmpty else { continue }
            for index in entries.indices where entries[index].item.aggregated && entries[index].item.type == type {
                guard let old = stored[entries[index].key] else { continue }
                let item = entries[index].item
                let same: Bool
                switch (item.value, old.value) {
                case (.quantity(let a), .quantity(let b, _)): same = abs(a - b) <= 1e-9 * max(1, abs(a))
                case (.category(let a), .category(let b)): same = a == b
                default: same = false
                }
                entries[index].version = same && old.end.timeIntervalSince1970 == item.end ? nil : old.version + 1
            }
        }
        return entries
    }

    /// The natural key of an item as a sync identifier: type and bucket for an aggregated total (whichever
    /// devices the phone merged into it), type, source and dates for a sample; a night's stage for a night total.
    static func syncKey(_ item: HAEItem) -> String {
        let start = Int64((item.start * 1000).rounded()), end = Int64((item.end * 1000).rounded())
        var key = "hae/\(item.type)/\(start)"
        if case .category(let value) = item.value { key += "/\(value)" }
        if let night = item.night {
            return "hae/\(item.type)/night/\(Int64((night * 1000).rounded()))/\(Self.categoryKey(item))"
        }
        key += "/\(end)"
        if !item.aggregated {
            var hasher = StableHasher()
            hasher.combine(item.source)
            key += "/" + hasher.uuid().uuidString.prefix(13).lowercased()
        }
        return key
    }

    static func categoryKey(_ item: HAEItem) -> String {
        if case .category(let value) = item.value { return String(value) }
        return "0"
    }

    /// A workout of the payload as HealthKit's: the id (HAE's UUID of the HealthKit workout) or the natural key
    /// makes its UUID, so a re-send is the same workout.
    func healthWorkout(_ workout: HAEWorkout, now: Date) -> HealthWorkout {
        let start = workout.start.date, end = Date(timeIntervalSince1970: workout.end)
        let key = workout.id.map { "hae/workout/\($0)" }
            ?? "hae/workout/\(workout.activityType)/\(Int64(workout.start.seconds * 1000))/\(Int64(workout.end * 1000))"
        let source = Self.healthAutoExportSource
        let uuid = workout.id.flatMap(UUID.init(uuidString:))
            ?? HealthSample.naturalUUID(type: "workout", sourceKey: source.key, start: start, end: end,
                                        value: .quantity(1, unit: key))
        var metadata = workout.metadata
        metadata[MetadataKey.syncIdentifier] = key
        metadata[MetadataKey.syncVersion] = "1"
        if !workout.name.isEmpty { metadata["HealthBridgeHAEName"] = workout.name }
        var statistics: [HealthWorkout.Statistic] = []
        if let rate = workout.heartRate {
            statistics.append(.init(type: "heartRate", start: start, end: end, average: rate.average,
                                    minimum: rate.minimum, maximum: rate.maximum, unit: "count/min"))
        }
        if let energy = workout.activeEnergy {
            statistics.append(.init(type: "activeEnergyBurned", start: start, end: end, sum: energy, unit: "kcal"))
        }
        var routes: [HealthWorkout.Route] = []
        if !workout.route.isEmpty {
            let routeUUID = HealthSample.naturalUUID(type: "workoutRoute", sourceKey: source.key, start: start, end: end,
                                                     value: .quantity(1, unit: uuid.uuidString))
            let times = workout.route.time
            routes.append(.init(uuid: routeUUID, start: Date(timeIntervalSince1970: times.min() ?? workout.start.seconds),
                                end: Date(timeIntervalSince1970: times.max() ?? workout.end),
                                sourceName: source.name, file: nil, pointCount: workout.route.count, metadata: nil))
        }
        return HealthWorkout(uuid: uuid, activityType: workout.activityType, start: start, end: end,
                             duration: workout.duration, source: source, creationDate: now, metadata: metadata,
                             utcOffset: workout.start.offset,
                             totalDistance: workout.distance.map { .init($0 / 1000, "km") },
                             totalEnergyBurned: workout.activeEnergy.map { .init($0, "kcal") },
                             statistics: statistics, routes: routes)
    }
}
