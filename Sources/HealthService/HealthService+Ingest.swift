import Foundation
import HealthAPI
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

extension HealthService {
    /// How far past now a single pushed sample (not a bucket) may be dated: a phone's clock or the offset it wrote
    /// may be off by hours.
    static let ingestSampleAhead: TimeInterval = 86_400

    /// Stores a batch a receiver read (Health Auto Export's `HAEPayloadReader`, Health Connect's
    /// `HealthConnectPayloadReader`) for this principal (an `ingest:NAME` token, or the owner importing a file):
    /// every object checked as every write is (``IngestValidator``), in one transaction, exactly once.
    ///
    /// Objects carry the sync identifier their reader gave them, so a re-send or an overlapping period adds nothing;
    /// a bucket total (stored under this writer's own totals source) re-sent with a new value replaces the older
    /// one with the next sync version. What fails the checks is counted in the report beside what the reader kept
    /// aside, never an error; a type this principal may not write is `HEALTH_NOT_AUTHORIZED` and writes nothing.
    ///
    /// ```swift
    /// let batch = try HAEPayloadReader(aggregation: HAEBucket(header: "hours")).batch(body)
    /// let report = try await service.acting(as: Principal(kind: .ingest, name: "phone"))
    ///     .ingest(batch, info: IngestBatchInfo(aggregation: "hours"))
    /// report.inserted   // 48
    /// ```
    public func ingest(_ batch: consuming IngestBatch, info: IngestBatchInfo = IngestBatchInfo()) async throws
        -> IngestReport
    {
        var batch = batch
        // Every object passes the checks every write passes (finite, within its type's bounds, dated from 1900 to a
        // little after now) before anything is built from it: a hostile number is counted as rejected, never stored
        // or formatted. Of two objects with one sync identifier, the later one that passes is kept.
        var validator = IngestValidator(now: clock())
        var entries: [IngestEntry] = []
        entries.reserveCapacity(batch.samples.count)
        var positions: [String: Int] = [:]
        for index in batch.samples.indices {
            guard validator.accepts(batch.samples[index]) else { continue }
            guard entries.count < IngestBatch.maxObjects else {
                throw HealthError(.payloadTooLarge, "a \(batch.label) payload holds at most \(IngestBatch.maxObjects) objects; send a shorter period")
            }
            batch.samples[index].metadata = validator.checkedMetadata(batch.samples[index])
            let key = batch.samples[index].syncIdentifier
            if let position = positions[key] {
                entries[position] = IngestEntry(index: index, version: 1)
            } else {
                positions[key] = entries.count
                entries.append(IngestEntry(index: index, version: 1))
            }
        }
        positions = [:]
        let workouts = batch.workouts.filter { validator.accepts($0) }
        batch.workouts = []

        var report = IngestReport()
        report.format = batch.format
        report.unknown = batch.unknown
        report.rejected = batch.rejected.merging(validator.rejected, uniquingKeysWith: +)
        report.reasons = batch.reasons.merging(validator.reasons) { first, _ in first }

        // Consent first: a type this principal may not write refuses the whole batch. (A payload comes metric by
        // metric: a type is hashed once per run of it, not once per sample.)
        var types = Set<String>()
        var lastType: String?
        for entry in entries where batch.samples[entry.index].type != lastType {
            lastType = batch.samples[entry.index].type
            types.insert(batch.samples[entry.index].type)
        }
        if types.contains("bloodPressure") { types.formUnion(["bloodPressureSystolic", "bloodPressureDiastolic"]) }
        if !workouts.isEmpty { types.insert("workout") }
        for type in types.sorted() { try await authorizeWrite(type) }

        let totals = ingestTotalsSource(batch.writerTotals)
        let replacedObjects = try await compareWithStored(&entries, in: batch.samples, totals: totals)
        let now = clock()
        var rows = IngestRowWriter(capacity: entries.count, created: now)
        var correlations: [HealthCorrelation] = []
        var typeCount = (type: "", count: 0)
        for entry in entries {
            let item = batch.samples[entry.index]
            if item.type != typeCount.type {
                if typeCount.count > 0 { report.types[typeCount.type, default: 0] += typeCount.count }
                typeCount = (item.type, 0)
            }
            typeCount.count += 1
            guard let version = entry.version else { report.unchanged += 1; continue }
            // A single sample's source is its device; a merged total's devices are not kept per bucket: the
            // writer's totals source stands for them all.
            let source: HealthSource, slot: Int
            switch item.attribution {
            case .writerTotals: source = totals; slot = -1
            case .source(let index): source = batch.sources[index]; slot = index
            }
            let key = item.syncIdentifier
            switch item.value {
            case .quantity(let value):
                rows.append(item, type: item.type, value: .quantity(value, unit: item.unit), source: source, slot: slot,
                            key: key, version: version)
            case .category(let value):
                rows.append(item, type: item.type, value: .category(value), source: source, slot: slot, key: key,
                            version: version)
            case .bloodPressure(let systolic, let diastolic):
                let high = rows.append(item, type: "bloodPressureSystolic", value: .quantity(systolic, unit: "mmHg"),
                                       source: source, slot: slot, key: key + "/systolic", version: version)
                let low = rows.append(item, type: "bloodPressureDiastolic", value: .quantity(diastolic, unit: "mmHg"),
                                      source: source, slot: slot, key: key + "/diastolic", version: version)
                correlations.append(HealthCorrelation(type: "bloodPressure", start: item.start, end: item.end,
                                                      source: source, creationDate: now, metadata: item.metadata,
                                                      members: [high, low]))
            }
        }
        if typeCount.count > 0 { report.types[typeCount.type, default: 0] += typeCount.count }
        entries = []
        batch.samples = []
        let samples = rows.batch
        rows = IngestRowWriter(capacity: 0, created: now)

        var healthWorkouts: [HealthWorkout] = []
        var routes: [UUID: RoutePointColumns] = [:]
        for var workout in workouts {
            workout.workout.creationDate = now
            report.types["workout", default: 0] += 1
            report.routePoints += workout.route.count
            if let route = workout.workout.routes.first, !workout.route.isEmpty { routes[route.uuid] = workout.route }
            healthWorkouts.append(workout.workout)
        }

        var transaction = BulkTransaction(deletions: replacedObjects, batch: samples, correlations: correlations,
                                          workouts: healthWorkouts, routes: routes)
        // A large payload spills its pages to the WAL as it goes instead of holding them until the commit.
        if samples.count > 20_000 { transaction.pageCacheMegabytes = 8 }
        let result = try await bulk.commit(transaction)
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

    /// Writes an ingest's samples straight into a ``SampleBatch``'s rows — the rows ``SampleBatch/append(_:)`` would
    /// make of the `HealthSample` with the item's metadata plus its sync identifier and version, without building
    /// it: no metadata dictionary, source key or hash prefix per sample (consecutive samples share their type and
    /// source, so both are resolved once per run).
    struct IngestRowWriter {
        private(set) var batch: SampleBatch
        let created: Double
        private var runType = ""
        private var runSlot = Int.min
        private var runPrefix = StableHasher()
        private var runTypeIndex: Int32 = -1
        private var runSourceIndex: Int32 = -1

        init(capacity: Int, created: Date) {
            batch = SampleBatch(capacity: capacity)
            // Sync versions are settled before the rows are written: the store inserts in bulk, a row already
            // stored (same key, same version, hence the same UUID) is ignored, and the versions replaced are
            // deleted in the same transaction.
            batch.syncIdentifiersChecked = true
            batch.reserveText(capacity * 160)
            self.created = created.timeIntervalSince1970
        }

        /// Appends one sample of `item` and answers its UUID (the natural UUID of its type, source, dates, version
        /// and sync identifier). `slot` identifies `source` within the batch (-1: the writer's totals).
        @discardableResult
        mutating func append(_ item: IngestBatch.Sample, type: String, value: SampleValue, source: HealthSource,
                             slot: Int, key: String, version: Int) -> UUID {
            if slot != runSlot || type != runType {
                runPrefix = HealthSample.naturalUUIDPrefix(type: type, sourceKey: source.key)
                runTypeIndex = batch.tables.type(type)
                runSourceIndex = batch.tables.source(source)
                runType = type
                runSlot = slot
            }
            let uuid = HealthSample.naturalUUID(prefix: runPrefix, start: item.start, end: item.end,
                                                value: .quantity(Double(version), unit: key))
            var unit: Int32 = -1, number = 0.0
            let kind: SampleBatch.ValueKind
            switch value {
            case .quantity(let quantity, let unitString):
                kind = .quantity; number = quantity; unit = batch.tables.unit(unitString)
            case .category(let raw):
                kind = .category; number = Double(raw)
            case .none:
                kind = .none
            }
            var row = SampleBatch.Row(uuid: uuid, start: item.start.timeIntervalSince1970,
                                      end: item.end.timeIntervalSince1970, value: number, created: created,
                                      type: runTypeIndex, source: runSourceIndex, unit: unit,
                                      utcOffset: Int32(clamping: item.utcOffset), kind: kind)
            let versionText = String(version)
            if item.metadata.isEmpty {
                // The two keys in MetadataCoding's (sorted) order.
                row.metadata = batch.writeText { buffer in
                    buffer.append(contentsOf: #"{"HKMetadataKeySyncIdentifier":"#.utf8)
                    MetadataCoding.appendQuoted(key, to: &buffer)
                    buffer.append(contentsOf: #","HKMetadataKeySyncVersion":"#.utf8)
                    MetadataCoding.appendQuoted(versionText, to: &buffer)
                    buffer.append(UInt8(ascii: "}"))
                }
            } else {
                var metadata = item.metadata
                metadata[MetadataKey.syncIdentifier] = key
                metadata[MetadataKey.syncVersion] = versionText
                row.metadata = batch.writeText { MetadataCoding.encode(metadata, into: &$0) }
                if let timeZone = metadata[MetadataKey.timeZone] { row.timeZone = batch.appendText(timeZone) }
            }
            row.syncIdentifier = batch.appendText(key)
            row.syncVersion = Int64(version)
            batch.append(row)
            return uuid
        }
    }

    /// A sample of the batch (by index) that passed the checks, with the version to write (nil: already stored as
    /// sent).
    struct IngestEntry {
        var index: Int
        var version: Int?
    }

    /// The source of the bucket totals this principal pushes: one per writer (`Health Auto Export (ingest:phone)`),
    /// so that two tokens pushing the same hour never replace each other's totals — a principal replaces only what
    /// it wrote, as it deletes only what it wrote. Its bundle identifier marks it as merged totals for the priority
    /// order.
    func ingestTotalsSource(_ totals: IngestBatch.WriterTotals) -> HealthSource {
        let writer = principal.source.bundleIdentifier.map { String($0.dropFirst("org.healthbridge.".count)) } ?? "owner"
        return HealthSource(name: "\(totals.name) (\(principal.id))",
                            bundleIdentifier: HealthSource.mergedTotalsPrefix + totals.key + "." + writer)
    }

    /// Compares the writer's totals in `entries` with the stored ones of its totals source over the batch's range:
    /// unchanged ones are not written (version nil), changed ones get the next version. Returns the stored objects
    /// the new versions replace.
    func compareWithStored(_ entries: inout [IngestEntry], in samples: [IngestBatch.Sample],
                           totals: HealthSource) async throws -> [UUID] {
        var replaced: [UUID] = []
        // Per type: the range of its totals, and the spans of entries that hold them (a payload comes metric by
        // metric: runs of one type are gathered without hashing each entry).
        var ranges: [String: (Date, Date)] = [:]
        var members: [String: [Range<Int>]] = [:]
        var runType: String?, runFirst = Date.distantPast, runLast = Date.distantPast, runStart = 0, runEnd = 0
        func closeRun() {
            guard let runType else { return }
            let range = ranges[runType] ?? (runFirst, runLast)
            ranges[runType] = (min(range.0, runFirst), max(range.1, runLast))
            members[runType, default: []].append(runStart..<runEnd)
        }
        for index in entries.indices where samples[entries[index].index].attribution == .writerTotals {
            let item = samples[entries[index].index]
            // Stored objects are found by their start; a night's stages start at the night's start or later.
            let first = item.nightStart ?? item.start
            if item.type == runType {
                runFirst = min(runFirst, first)
                runLast = max(runLast, item.end)
            } else {
                closeRun()
                runType = item.type; runFirst = first; runLast = item.end; runStart = index
            }
            runEnd = index + 1
        }
        closeRun()
        for (type, range) in ranges {
            let stored = try await bulk.syncedObjects(type: type, sourceKey: totals.key, start: range.0,
                                                      end: range.1.addingTimeInterval(1))
            guard !stored.isEmpty else { continue }
            for index in (members[type] ?? []).joined() {
                let item = samples[entries[index].index]
                // A span may hold other entries between the totals of its type.
                guard item.attribution == .writerTotals, item.type == type,
                      let old = stored[item.syncIdentifier] else { continue }
                let value: Double
                switch item.value {
                case .quantity(let v): value = v
                case .category(let c): value = Double(c)
                case .bloodPressure: value = .nan
                }
                let same = abs(value - old.value) <= 1e-9 * max(1, abs(value))
                if same && old.end == item.end {
                    entries[index].version = nil
                } else {
                    entries[index].version = old.version + 1
                    replaced.append(old.uuid)
                }
            }
        }
        return replaced
    }
}
