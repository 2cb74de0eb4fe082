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
    /// The most objects one payload may hold (a real 25 MB payload holds about 130,000): what is kept per payload
    /// while it is read stays bounded (about 200 bytes an object), whatever the body holds.
    public static let maxIngestItems = 1_000_000
    /// How far past now a single pushed sample (not a bucket) may be dated: a phone's clock or the offset it wrote
    /// may be off by hours.
    static let ingestSampleAhead: TimeInterval = 86_400

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
    public func ingestHealthAutoExport(_ body: consuming [UInt8], info: IngestBatchInfo = IngestBatchInfo())
        async throws -> IngestReport
    {
        guard body.count <= Self.maxIngestBytes else {
            throw HealthError(.payloadTooLarge, "a Health Auto Export payload is at most \(Self.maxIngestBytes / 1_048_576) MB")
        }
        let reader = HAEPayloadReader(aggregation: HAEBucket(header: info.aggregation))
        return try await ingest(consume body, format: .healthAutoExport, info: info) { body, item, workout in
            try reader.read(body, item: item, workout: workout)
        }
    }

    /// Stores what an Android phone pushes through HC Webhook (Google Health Connect's records: steps, heart rate,
    /// sleep stages, distance, active energy, weight, blood pressure, nutrition, exercise…; see
    /// ``HealthConnectPayloadReader``) for this principal, exactly as ``ingestHealthAutoExport(_:info:)`` stores an
    /// iPhone's: the same checks (``IngestValidator``), the same write consent, one transaction, exactly once. Each
    /// record's source is its Health Connect data origin (the package name of the app that wrote it); its sync
    /// identifier (`hc/TYPE/START/END[/STAGE]/SOURCE`) makes a re-send store nothing new.
    ///
    /// ```swift
    /// let report = try await service.acting(as: Principal(kind: .ingest, name: "pixel"))
    ///     .ingestHealthConnect(Array(body))
    /// report.format     // "health-connect"
    /// report.inserted   // 31
    /// ```
    public func ingestHealthConnect(_ body: consuming [UInt8], info: IngestBatchInfo = IngestBatchInfo())
        async throws -> IngestReport
    {
        guard body.count <= Self.maxIngestBytes else {
            throw HealthError(.payloadTooLarge, "a Health Connect payload is at most \(Self.maxIngestBytes / 1_048_576) MB")
        }
        let reader = HealthConnectPayloadReader()
        return try await ingest(consume body, format: .healthConnect, info: info) { body, item, workout in
            try reader.read(body, item: item, workout: workout)
        }
    }

    /// The formats an ingest reads: how their objects are keyed and attributed.
    enum IngestFormat: Sendable {
        case healthAutoExport, healthConnect

        /// The report's `format`.
        var name: String { self == .healthAutoExport ? "health-auto-export" : "health-connect" }
        /// The first part of every sync identifier of the format.
        var keyPrefix: String { self == .healthAutoExport ? "hae" : "hc" }
        var label: String { self == .healthAutoExport ? "Health Auto Export" : "Health Connect" }
    }

    /// The source of a single sample of `format` as sent (`Sam's Apple Watch`, `com.google.android.apps.fitness`).
    /// A Health Connect data origin is an app's package name, kept as its bundle identifier too, unless it claims
    /// one of HealthBridge's own.
    static func ingestSource(_ sent: String, format: IngestFormat) -> HealthSource {
        guard !sent.isEmpty else { return HealthSource(name: format.label) }
        switch format {
        case .healthAutoExport:
            return HealthSource(name: sent)
        case .healthConnect:
            guard sent != HealthConnectPayloadReader.defaultSource, !sent.lowercased().hasPrefix("org.healthbridge") else {
                return HealthSource(name: sent)
            }
            return HealthSource(name: sent, bundleIdentifier: sent)
        }
    }

    /// The ingest of one payload of any format: read and validated item by item, keyed, authorized, compared with
    /// what is stored and committed in one transaction.
    func ingest(_ body: consuming [UInt8], format: IngestFormat, info: IngestBatchInfo,
                read: ([UInt8], (HAEItem) throws -> Void, (HAEWorkout) throws -> Void) throws -> HAEReadSummary)
        async throws -> IngestReport
    {
        // Items are keyed as they are read; a key seen twice in one payload keeps the last item.
        var entries: [IngestEntry] = []
        // About one item per 70 bytes of an hourly payload: reserved once, so the array never grows by copying
        // (pages not written stay out of memory).
        entries.reserveCapacity(body.count / 70)
        var positions: [IngestKey: Int] = [:]
        var sourceHashes: [String: UInt64] = [:]
        var sourceNames: [String: String] = [:]
        var workouts: [HAEWorkout] = []
        // Every item passes the checks every write passes (finite, within its type's bounds, dated from 1900 to a
        // little after now) before anything is built from it: a hostile number is counted as rejected, never keyed,
        // stored or formatted.
        var validator = IngestValidator(now: clock())
        let summary = try read(body, { read in
            guard validator.accepts(read) else { return }
            guard entries.count < Self.maxIngestItems else {
                throw HealthError(.payloadTooLarge, "a \(format.label) payload holds at most \(Self.maxIngestItems) objects; send a shorter period")
            }
            var item = read
            item.metadata = validator.checkedMetadata(item)
            // One copy of each source string, shared by its items.
            if let shared = sourceNames[item.source] { item.source = shared } else { sourceNames[item.source] = item.source }
            var hash: UInt64 = 0
            if !item.aggregated {
                if let known = sourceHashes[item.source] { hash = known } else {
                    hash = Self.sourceHash(item.source)
                    sourceHashes[item.source] = hash
                }
            }
            let key = IngestKey(item, sourceHash: hash)
            if let index = positions[key] {
                entries[index] = IngestEntry(item: item, key: key, version: 1)
            } else {
                positions[key] = entries.count
                entries.append(IngestEntry(item: item, key: key, version: 1))
            }
        }, { workout in
            guard validator.accepts(workout) else { return }
            workouts.append(workout)
        })
        positions = [:]
        // The body is not needed any more: a caller that handed it over (`consume`) gets its memory back now.
        _ = consume body

        var report = IngestReport()
        report.format = format.name
        report.unknown = summary.unknown
        report.rejected = summary.rejected.merging(validator.rejected, uniquingKeysWith: +)
        report.reasons = summary.reasons.merging(validator.reasons) { first, _ in first }

        // Consent first: a type this principal may not write refuses the whole payload.
        var types = Set(entries.map(\.item.type))
        if types.contains("bloodPressure") { types.formUnion(["bloodPressureSystolic", "bloodPressureDiastolic"]) }
        if !workouts.isEmpty { types.insert("workout") }
        for type in types.sorted() { try await authorizeWrite(type) }

        let replacedObjects = try await compareWithStored(&entries, prefix: format.keyPrefix)
        let now = clock()
        var batch = SampleBatch(capacity: entries.count)
        // Sync versions are settled above: the store inserts in bulk, a row already stored (same key, same version,
        // hence the same UUID) is ignored, and the versions replaced are deleted in the same transaction.
        batch.syncIdentifiersChecked = true
        batch.reserveText(entries.count * 224)
        var correlations: [HealthCorrelation] = []
        var sources: [String: HealthSource] = [:]
        let totals = ingestTotalsSource
        for entry in entries {
            let item = entry.item
            report.types[item.type, default: 0] += 1
            guard let version = entry.version else { report.unchanged += 1; continue }
            let source: HealthSource
            if item.aggregated {
                source = totals
            } else if let known = sources[item.source] {
                source = known
            } else {
                source = Self.ingestSource(item.source, format: format)
                sources[item.source] = source
            }
            let metadata = item.metadata
            // A single sample's source is its device; a merged total's devices (joined with "|") are not kept per
            // bucket: the totals source stands for them all.
            let key = entry.key.string(format.keyPrefix)
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
                batch.append(sample(item.type, .quantity(value, unit: item.unit), key: key))
            case .category(let value):
                batch.append(sample(item.type, .category(value), key: key))
            case .bloodPressure(let systolic, let diastolic):
                let high = sample("bloodPressureSystolic", .quantity(systolic, unit: "mmHg"), key: key + "/systolic")
                let low = sample("bloodPressureDiastolic", .quantity(diastolic, unit: "mmHg"), key: key + "/diastolic")
                batch.append(high)
                batch.append(low)
                correlations.append(HealthCorrelation(type: "bloodPressure", start: start, end: end, source: source,
                                                      creationDate: now, metadata: metadata, members: [high.uuid, low.uuid]))
            }
        }
        entries = []

        var healthWorkouts: [HealthWorkout] = []
        var routes: [UUID: RoutePointColumns] = [:]
        for workout in workouts {
            let mapped = healthWorkout(workout, now: now, format: format)
            report.types["workout", default: 0] += 1
            report.routePoints += workout.route.count
            if let route = mapped.routes.first, !workout.route.isEmpty { routes[route.uuid] = workout.route }
            healthWorkouts.append(mapped)
        }

        var transaction = StoreTransaction(deletions: replacedObjects, batch: batch, correlations: correlations,
                                           workouts: healthWorkouts, routes: routes)
        // A large payload spills its pages to the WAL as it goes instead of holding them until the commit.
        if batch.count > 20_000 { transaction.pageCacheMegabytes = 8 }
        let result = try await store.commit(transaction)
        // A bucket with a new total: its older version deleted, the new one inserted.
        report.replaced = min(result.deleted, result.saved.inserted)
        report.inserted = result.saved.inserted - report.replaced
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

    /// An item with its natural key and the version to write (nil: already stored as sent).
    struct IngestEntry {
        var item: HAEItem
        var key: IngestKey
        var version: Int?
    }

    /// The natural key of an item, without allocating: type and bucket for an aggregated total (whichever devices
    /// the phone merged into it), type, dates and source for a sample, the night's start and the stage for a night
    /// sent as totals. ``string`` is the sync identifier.
    struct IngestKey: Hashable {
        var type: String
        var start: Int64
        var end: Int64
        /// The category value, -1 for quantities.
        var category: Int32
        /// A hash of the source string of a single sample; 0 for aggregated items.
        var source: UInt64
        var night: Bool

        init(_ item: HAEItem, sourceHash: UInt64) {
            type = item.type
            // Validated instants (1900 to a year ahead) in milliseconds: far inside Int64; clamped all the same.
            start = ((item.night ?? item.start) * 1000).clampedInt64()
            end = (item.end * 1000).clampedInt64()
            if case .category(let value) = item.value { category = Int32(clamping: value) } else { category = -1 }
            source = item.aggregated ? 0 : sourceHash
            night = item.night != nil
        }

        /// The sync identifier, after `prefix` (`hae`, `hc`).
        func string(_ prefix: String) -> String {
            if night { return "\(prefix)/\(type)/night/\(start)/\(category)" }
            var key = "\(prefix)/\(type)/\(start)"
            if category >= 0 { key += "/\(category)" }
            key += "/\(end)"
            if source != 0 { key += "/" + String(source, radix: 16) }
            return key
        }
    }

    static func sourceHash(_ source: String) -> UInt64 {
        var hasher = StableHasher()
        hasher.combine(source)
        let uuid = hasher.uuid().uuid
        return [uuid.8, uuid.9, uuid.10, uuid.11, uuid.12, uuid.13, uuid.14, uuid.15]
            .reduce(UInt64(0)) { $0 << 8 | UInt64($1) } | 1
    }

    /// The source of the bucket totals this principal pushes: one per writer (`Health Auto Export (ingest:phone)`),
    /// so that two tokens pushing the same hour never replace each other's totals — a principal replaces only what
    /// it wrote, as it deletes only what it wrote. Its bundle identifier marks it as merged totals for the priority
    /// order.
    var ingestTotalsSource: HealthSource {
        let writer = principal.source.bundleIdentifier.map { String($0.dropFirst("org.healthbridge.".count)) } ?? "owner"
        return HealthSource(name: "Health Auto Export (\(principal.id))",
                            bundleIdentifier: HealthSource.mergedTotalsPrefix + "health-auto-export." + writer)
    }

    /// Compares aggregated buckets with the stored ones of the totals source over the payload's range: unchanged
    /// ones are not written (version nil), changed ones get the next version. Returns the stored objects the new
    /// versions replace.
    func compareWithStored(_ entries: inout [IngestEntry], prefix: String = "hae") async throws -> [UUID] {
        var replaced: [UUID] = []
        var ranges: [String: (Double, Double)] = [:]
        for entry in entries where entry.item.aggregated {
            let type = entry.item.type
            // Stored objects are found by their start; a night's stages start at the night's start or later.
            let first = entry.item.night ?? entry.item.start
            let range = ranges[type] ?? (first, entry.item.end)
            ranges[type] = (min(range.0, first), max(range.1, entry.item.end))
        }
        let totalsKey = ingestTotalsSource.key
        for (type, range) in ranges {
            let stored = try await store.syncedObjects(type: type, sourceKey: totalsKey,
                                                       start: Date(timeIntervalSince1970: range.0),
                                                       end: Date(timeIntervalSince1970: range.1 + 1))
            guard !stored.isEmpty else { continue }
            for index in entries.indices where entries[index].item.aggregated && entries[index].item.type == type {
                guard let old = stored[entries[index].key.string(prefix)] else { continue }
                let item = entries[index].item
                let value: Double
                switch item.value {
                case .quantity(let v): value = v
                case .category(let c): value = Double(c)
                case .bloodPressure: value = .nan
                }
                let same = abs(value - old.value) <= 1e-9 * max(1, abs(value))
                if same && old.end.timeIntervalSince1970 == item.end {
                    entries[index].version = nil
                } else {
                    entries[index].version = old.version + 1
                    replaced.append(old.uuid)
                }
            }
        }
        return replaced
    }

    /// A workout of the payload as HealthKit's: the id (HAE's UUID of the HealthKit workout) or the natural key
    /// makes its UUID, so a re-send is the same workout.
    func healthWorkout(_ workout: HAEWorkout, now: Date, format: IngestFormat = .healthAutoExport) -> HealthWorkout {
        let start = workout.start.date, end = Date(timeIntervalSince1970: workout.end)
        let prefix = format.keyPrefix
        var key = workout.id.map { "\(prefix)/workout/\($0)" }
            ?? "\(prefix)/workout/\(workout.activityType)/\((workout.start.seconds * 1000).clampedInt64())/\((workout.end * 1000).clampedInt64())"
        let source: HealthSource
        if format == .healthConnect {
            // The app that wrote the exercise to Health Connect, part of the key as for samples.
            let origin = workout.metadata["HealthBridgeDataOrigin"] ?? ""
            source = Self.ingestSource(origin, format: format)
            if workout.id == nil, !origin.isEmpty { key += "/" + String(Self.sourceHash(origin), radix: 16) }
        } else {
            source = Self.healthAutoExportSource
        }
        let uuid = workout.id.flatMap(UUID.init(uuidString:))
            ?? HealthSample.naturalUUID(type: "workout", sourceKey: source.key, start: start, end: end,
                                        value: .quantity(1, unit: key))
        var metadata = workout.metadata
        metadata[MetadataKey.syncIdentifier] = key
        metadata[MetadataKey.syncVersion] = "1"
        if !workout.name.isEmpty, format == .healthAutoExport { metadata["HealthBridgeHAEName"] = workout.name }
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
