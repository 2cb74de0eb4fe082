import Foundation
import HealthModel

/// Turns the items and workouts a reader maps into an ``IngestBatch``: the dialect's keying. Each item gets a
/// HealthKit sync identifier built from its natural key — type and bucket for aggregated totals (whichever devices
/// the phone merged into it), type, dates and source for single samples, the night's start and the stage for a night
/// sent as totals, the id (or type and dates) for workouts — so a re-send or an overlapping period adds nothing.
///
/// ```swift
/// var builder = IngestBatchBuilder(format: .healthAutoExport)
/// let summary = try reader.read(body, item: { builder.append($0) }, workout: { builder.append($0) })
/// let batch = builder.finish(summary)
/// ```
struct IngestBatchBuilder {
    /// The formats read: how their objects are keyed and attributed.
    enum Format: Sendable {
        case healthAutoExport, healthConnect

        /// The report's `format`.
        var name: String { self == .healthAutoExport ? "health-auto-export" : "health-connect" }
        /// The first part of every sync identifier of the format.
        var keyPrefix: String { self == .healthAutoExport ? "hae" : "hc" }
        var label: String { self == .healthAutoExport ? "Health Auto Export" : "Health Connect" }
    }

    /// The source of workouts pushed by Health Auto Export.
    static let healthAutoExportSource = HealthSource(name: "Health Auto Export",
                                                     bundleIdentifier: "org.healthbridge.ingest.health-auto-export")

    let format: Format
    private(set) var batch: IngestBatch
    private var sourceIndexes: [String: Int] = [:]
    private var sourceHashes: [String: UInt64] = [:]

    init(format: Format, reserving bytes: Int = 0) {
        self.format = format
        // The totals of every writer are Health Auto Export's: only its payloads carry merged totals.
        batch = IngestBatch(format: format.name, label: format.label,
                            writerTotals: .init(name: "Health Auto Export", key: "health-auto-export"))
        // About one item per 70 bytes of an hourly payload: reserved once, so the array never grows by copying.
        batch.samples.reserveCapacity(bytes / 70)
    }

    /// Keys and attributes one mapped item. Nothing here can trap on a hostile number: instants are clamped, and
    /// the service checks every value before it stores or formats one.
    mutating func append(_ item: HAEItem) {
        let attribution: IngestBatch.Sample.Attribution
        var hash: UInt64 = 0
        if item.aggregated {
            attribution = .writerTotals
        } else {
            if let known = sourceHashes[item.source] { hash = known } else {
                hash = Self.sourceHash(item.source)
                sourceHashes[item.source] = hash
            }
            if let index = sourceIndexes[item.source] {
                attribution = .source(index)
            } else {
                sourceIndexes[item.source] = batch.sources.count
                attribution = .source(batch.sources.count)
                batch.sources.append(Self.source(item.source, format: format))
            }
        }
        let key = Key(item, sourceHash: hash).string(format.keyPrefix)
        let value: IngestBatch.Sample.Value
        switch item.value {
        case .quantity(let quantity): value = .quantity(quantity)
        case .category(let category): value = .category(category)
        case .bloodPressure(let systolic, let diastolic): value = .bloodPressure(systolic: systolic, diastolic: diastolic)
        }
        batch.samples.append(IngestBatch.Sample(
            label: item.metric, type: item.type, value: value, unit: item.unit,
            start: Date(timeIntervalSince1970: item.start), end: Date(timeIntervalSince1970: item.end),
            utcOffset: item.utcOffset, attribution: attribution, metadata: item.metadata, syncIdentifier: key,
            nightStart: item.night.map(Date.init(timeIntervalSince1970:))))
    }

    /// Maps one workout to HealthKit's, keyed.
    mutating func append(_ workout: HAEWorkout) {
        batch.workouts.append(IngestBatch.Workout(workout: healthWorkout(workout), route: workout.route))
    }

    /// The batch, with what the reader kept aside.
    consuming func finish(_ summary: HAEReadSummary) -> IngestBatch {
        batch.unknown = summary.unknown
        batch.rejected = summary.rejected
        batch.reasons = summary.reasons
        return batch
    }

    /// The source of a single sample as sent (`Sam's Apple Watch`, `com.google.android.apps.fitness`). A Health
    /// Connect data origin is an app's package name, kept as its bundle identifier too, unless it claims one of
    /// HealthBridge's own.
    static func source(_ sent: String, format: Format) -> HealthSource {
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

    /// The natural key of an item, without allocating until ``string(_:)`` builds the sync identifier.
    struct Key: Hashable {
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
            // Instants in milliseconds, clamped: a hostile date is refused by the service's checks, never a trap here.
            start = ((item.night ?? item.start) * 1000).clampedInt64()
            end = (item.end * 1000).clampedInt64()
            if case .category(let value) = item.value { category = Int32(clamping: value) } else { category = -1 }
            source = item.aggregated ? 0 : sourceHash
            night = item.night != nil
        }

        /// The sync identifier, after `prefix` (`hae`, `hc`).
        /// `prefix/type/start[/category]/end[/source in hex]`, or `prefix/type/night/start/category`: written
        /// byte by byte on the stack, then copied into a string of its exact size (one allocation per key).
        func string(_ prefix: String) -> String {
            var prefix = prefix, type = type
            let capacity = prefix.utf8.count + type.utf8.count + 6 + 5 * 20
            return prefix.withUTF8 { prefixBytes in
                type.withUTF8 { typeBytes in
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
                        var count = 0
                        func put(_ byte: UInt8) { buffer[count] = byte; count += 1 }
                        func put(_ bytes: UnsafeBufferPointer<UInt8>) { for byte in bytes { put(byte) } }
                        func put(_ value: Int64) {
                            if value < 0 { put(UInt8(ascii: "-")) }
                            let magnitude = value.magnitude
                            var digits = 1, power: UInt64 = 10
                            while digits < 20, magnitude >= power { digits += 1; power &*= 10 }
                            var rest = magnitude
                            for position in stride(from: count + digits - 1, through: count, by: -1) {
                                buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                                rest /= 10
                            }
                            count += digits
                        }
                        func putHex(_ value: UInt64) {
                            let digits = max(1, (64 - value.leadingZeroBitCount + 3) / 4)
                            var rest = value
                            for position in stride(from: count + digits - 1, through: count, by: -1) {
                                let digit = UInt8(truncatingIfNeeded: rest & 15)
                                buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                                rest >>= 4
                            }
                            count += digits
                        }
                        put(prefixBytes)
                        put(UInt8(ascii: "/"))
                        put(typeBytes)
                        put(UInt8(ascii: "/"))
                        if night {
                            for byte in "night/".utf8 { put(byte) }
                            put(start)
                            put(UInt8(ascii: "/"))
                            put(Int64(category))
                            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
                        }
                        put(start)
                        if category >= 0 { put(UInt8(ascii: "/")); put(Int64(category)) }
                        put(UInt8(ascii: "/"))
                        put(end)
                        if source != 0 { put(UInt8(ascii: "/")); putHex(source) }
                        return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
                    }
                }
            }
        }
    }

    static func sourceHash(_ source: String) -> UInt64 {
        var hasher = StableHasher()
        hasher.combine(source)
        let uuid = hasher.uuid().uuid
        return [uuid.8, uuid.9, uuid.10, uuid.11, uuid.12, uuid.13, uuid.14, uuid.15]
            .reduce(UInt64(0)) { $0 << 8 | UInt64($1) } | 1
    }

    /// A workout of the payload as HealthKit's: the id (HAE's UUID of the HealthKit workout) or the natural key
    /// makes its UUID, so a re-send is the same workout. Its creation date is the service's to set.
    func healthWorkout(_ workout: HAEWorkout) -> HealthWorkout {
        let start = workout.start.date, end = Date(timeIntervalSince1970: workout.end)
        let prefix = format.keyPrefix
        var key = workout.id.map { "\(prefix)/workout/\($0)" }
            ?? "\(prefix)/workout/\(workout.activityType)/\((workout.start.seconds * 1000).clampedInt64())/\((workout.end * 1000).clampedInt64())"
        let source: HealthSource
        if format == .healthConnect {
            // The app that wrote the exercise to Health Connect, part of the key as for samples.
            let origin = workout.metadata["HealthBridgeDataOrigin"] ?? ""
            source = Self.source(origin, format: format)
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
                             duration: workout.duration, source: source, metadata: metadata,
                             utcOffset: workout.start.offset,
                             totalDistance: workout.distance.map { .init($0 / 1000, "km") },
                             totalEnergyBurned: workout.activeEnergy.map { .init($0, "kcal") },
                             statistics: statistics, routes: routes)
    }
}
