import Foundation
import HealthModel

/// Samples packed for a bulk save: fixed-size rows that hold no references, the strings rows share (types,
/// sources, units) in ``SampleTables``, and per-row text (metadata JSON, time zone, sync identifier) in one byte
/// buffer.
///
/// Saving a batch is the same as saving its ``samples``, with no per-sample allocation on either side: an importer
/// fills rows straight from the file, and the SQLite store binds them straight from the buffers.
///
/// ```swift
/// var batch = SampleBatch()
/// batch.append(sample)          // interns the sample's strings
/// try await store.save(batch)
/// ```
public struct SampleBatch: Sendable {
    /// Which column of a row carries the value.
    public enum ValueKind: UInt8, Sendable {
        case quantity, category, none
    }

    /// A span of ``text``; empty when absent.
    public struct TextRange: Sendable, Hashable {
        public var offset: Int32
        public var count: Int32
        public init(offset: Int32, count: Int32) {
            self.offset = offset
            self.count = count
        }
        public static let none = TextRange(offset: 0, count: 0)
        public var isEmpty: Bool { count == 0 }
    }

    /// One sample, without references: strings are indexes into ``tables`` or ranges of ``text``.
    public struct Row: Sendable {
        public var uuid: UUID
        /// Seconds since 1970.
        public var start: Double
        public var end: Double
        /// The quantity (`kind == .quantity`) or the category's raw value (`.category`); unused for `.none`.
        public var value: Double
        /// Seconds since 1970; NaN when unknown.
        public var created: Double
        /// Index into `tables.types`.
        public var type: Int32
        /// Index into `tables.sources`.
        public var source: Int32
        /// Index into `tables.units`; -1 unless `kind == .quantity`.
        public var unit: Int32
        /// Seconds east of UTC; `Int32.min` when unknown.
        public var utcOffset: Int32
        public var kind: ValueKind
        /// The metadata as a JSON object (see ``MetadataCoding``).
        public var metadata: TextRange
        public var timeZone: TextRange
        public var syncIdentifier: TextRange
        /// `Int64.min` when absent.
        public var syncVersion: Int64

        public init(uuid: UUID, start: Double, end: Double, value: Double, created: Double, type: Int32, source: Int32,
                    unit: Int32, utcOffset: Int32, kind: ValueKind, metadata: TextRange = .none,
                    timeZone: TextRange = .none, syncIdentifier: TextRange = .none, syncVersion: Int64 = .min) {
            self.uuid = uuid
            self.start = start
            self.end = end
            self.value = value
            self.created = created
            self.type = type
            self.source = source
            self.unit = unit
            self.utcOffset = utcOffset
            self.kind = kind
            self.metadata = metadata
            self.timeZone = timeZone
            self.syncIdentifier = syncIdentifier
            self.syncVersion = syncVersion
        }
    }

    public var tables: SampleTables
    /// Set by a caller that has already compared its rows' sync identifiers with the stored objects (and deletes the
    /// versions it replaces in the same transaction): rows with a sync identifier are then inserted like the others,
    /// 32 per statement, without a lookup each; a row whose UUID is stored is ignored as usual.
    public var syncIdentifiersChecked = false
    public private(set) var rows: [Row] = []
    /// The bytes ``Row`` text ranges point into.
    public private(set) var text: [UInt8] = []

    public init(tables: SampleTables = SampleTables(), capacity: Int = 0) {
        self.tables = tables
        rows.reserveCapacity(capacity)
        text.reserveCapacity(capacity * 16)
    }

    /// A batch of `samples`, in order.
    public init(_ samples: [HealthSample]) {
        self.init(capacity: samples.count)
        for sample in samples { append(sample) }
    }

    public var count: Int { rows.count }
    public var isEmpty: Bool { rows.isEmpty }

    /// Reserves room for `bytes` more bytes of per-row text (metadata, sync identifiers), so that a large batch
    /// does not grow its buffer by copying.
    public mutating func reserveText(_ bytes: Int) {
        text.reserveCapacity(text.count + bytes)
    }

    /// Appends a row whose table indexes and text ranges belong to this batch.
    public mutating func append(_ row: Row) {
        rows.append(row)
    }

    /// Copies bytes into ``text`` and returns their range.
    public mutating func appendText(_ bytes: UnsafeRawBufferPointer) -> TextRange {
        let offset = Int32(truncatingIfNeeded: text.count)
        text.append(contentsOf: bytes)
        return TextRange(offset: offset, count: Int32(truncatingIfNeeded: bytes.count))
    }

    public mutating func appendText(_ string: String) -> TextRange {
        var string = string
        return string.withUTF8 { appendText(UnsafeRawBufferPointer($0)) }
    }

    /// Writes into ``text`` with `body`, which appends to the buffer it is given, and returns the range written.
    public mutating func writeText(_ body: (inout [UInt8]) -> Void) -> TextRange {
        let offset = text.count
        body(&text)
        return TextRange(offset: Int32(truncatingIfNeeded: offset), count: Int32(truncatingIfNeeded: text.count - offset))
    }

    /// Appends a sample, interning its type, source and unit.
    public mutating func append(_ sample: HealthSample) {
        let type = tables.type(sample.type)
        let source = tables.source(sample.source)
        var unit: Int32 = -1
        let kind: ValueKind
        var value = 0.0
        switch sample.value {
        case .quantity(let quantity, let unitString):
            kind = .quantity
            value = quantity
            unit = tables.unit(unitString)
        case .category(let raw):
            kind = .category
            value = Double(raw)
        case .none:
            kind = .none
        }
        var row = Row(uuid: sample.uuid, start: sample.start.timeIntervalSince1970, end: sample.end.timeIntervalSince1970,
                      value: value, created: sample.creationDate?.timeIntervalSince1970 ?? .nan, type: type,
                      source: source, unit: unit, utcOffset: sample.utcOffset.map { Int32(clamping: $0) } ?? .min,
                      kind: kind)
        if !sample.metadata.isEmpty {
            row.metadata = writeText { MetadataCoding.encode(sample.metadata, into: &$0) }
            if let syncID = sample.syncIdentifier {
                row.syncIdentifier = appendText(syncID)
                row.syncVersion = sample.syncVersion.map(Int64.init) ?? .min
            }
        }
        if let timeZone = sample.timeZone { row.timeZone = appendText(timeZone) }
        rows.append(row)
    }

    /// The bytes of a range.
    public func text(_ range: TextRange) -> String? {
        guard !range.isEmpty else { return nil }
        let start = Int(range.offset)
        return String(decoding: text[start..<start + Int(range.count)], as: UTF8.self)
    }

    /// The sample of a row.
    public func sample(_ row: Row) -> HealthSample {
        let value: SampleValue
        switch row.kind {
        case .quantity: value = .quantity(row.value, unit: tables.units[Int(row.unit)])
        case .category: value = .category(row.value.clampedInt())
        case .none: value = .none
        }
        return HealthSample(
            uuid: row.uuid, type: tables.types[Int(row.type)], start: Date(timeIntervalSince1970: row.start),
            end: Date(timeIntervalSince1970: row.end), value: value, source: tables.sources[Int(row.source)],
            creationDate: row.created.isNaN ? nil : Date(timeIntervalSince1970: row.created),
            metadata: MetadataCoding.decode(text(row.metadata)),
            utcOffset: row.utcOffset == .min ? nil : Int(row.utcOffset), timeZone: text(row.timeZone))
    }

    /// The samples, in order.
    public var samples: [HealthSample] { rows.map(sample) }
}

/// The strings a batch's rows share, each stored once and referred to by index. Tables only grow, so one value can
/// be handed from batch to batch (copy-on-write keeps that cheap).
public struct SampleTables: Sendable {
    public private(set) var types: [String] = []
    public private(set) var sources: [HealthSource] = []
    public private(set) var units: [String] = []
    private var typeIndex: [String: Int32] = [:]
    private var sourceIndex: [HealthSource: Int32] = [:]
    private var unitIndex: [String: Int32] = [:]
    /// The last few indexes returned, checked before hashing: consecutive samples mostly share their strings (often
    /// the very same objects, which compare by identity).
    private var recentTypes = RecentIndexes()
    private var recentSources = RecentIndexes()
    private var recentUnits = RecentIndexes()

    public init() {}

    /// The index of a type identifier, added when new.
    public mutating func type(_ identifier: String) -> Int32 {
        if let index = recentTypes.first(where: { types[Int($0)] == identifier }) { return index }
        let index = typeIndex[identifier] ?? {
            let index = Int32(types.count)
            types.append(identifier)
            typeIndex[identifier] = index
            return index
        }()
        recentTypes.remember(index)
        return index
    }

    /// The index of a source (name, version and device), added when new.
    public mutating func source(_ source: HealthSource) -> Int32 {
        if let index = recentSources.first(where: { sources[Int($0)] == source }) { return index }
        let index = sourceIndex[source] ?? {
            let index = Int32(sources.count)
            sources.append(source)
            sourceIndex[source] = index
            return index
        }()
        recentSources.remember(index)
        return index
    }

    /// The index of an HKUnit string, added when new.
    public mutating func unit(_ unit: String) -> Int32 {
        if let index = recentUnits.first(where: { units[Int($0)] == unit }) { return index }
        let index = unitIndex[unit] ?? {
            let index = Int32(units.count)
            units.append(unit)
            unitIndex[unit] = index
            return index
        }()
        recentUnits.remember(index)
        return index
    }
}

/// Up to four table indexes, the newest replacing the oldest.
struct RecentIndexes: Sendable {
    private var slots: (Int32, Int32, Int32, Int32) = (-1, -1, -1, -1)
    private var next = 0

    @inline(__always)
    func first(where matches: (Int32) -> Bool) -> Int32? {
        if slots.0 >= 0, matches(slots.0) { return slots.0 }
        if slots.1 >= 0, matches(slots.1) { return slots.1 }
        if slots.2 >= 0, matches(slots.2) { return slots.2 }
        if slots.3 >= 0, matches(slots.3) { return slots.3 }
        return nil
    }

    mutating func remember(_ index: Int32) {
        switch next {
        case 0: slots.0 = index
        case 1: slots.1 = index
        case 2: slots.2 = index
        default: slots.3 = index
        }
        next = (next + 1) % 4
    }
}

extension SampleBatch {
    /// Refuses a row that points outside its batch or breaks a sample's invariants: what every store checks before it
    /// writes a packed batch (``BulkImportStore/save(_:)``).
    ///
    /// ```swift
    /// for row in batch.rows { try SampleBatch.validate(row, types: types, sources: sources, units: units, textCount: text.count) }
    /// ```
    public static func validate(_ row: SampleBatch.Row, types: [String], sources: Int, units: Int, textCount: Int) throws {
        guard row.type >= 0, Int(row.type) < types.count, row.source >= 0, Int(row.source) < sources,
              row.kind != .quantity || (row.unit >= 0 && Int(row.unit) < units) else {
            throw HealthError(.invalidArgument, "sample \(row.uuid) refers to a type, source or unit its batch lacks; nothing was saved")
        }
        for range in [row.metadata, row.timeZone, row.syncIdentifier] where !range.isEmpty {
            guard range.offset >= 0, range.count > 0, Int(range.offset) + Int(range.count) <= textCount else {
                throw HealthError(.invalidArgument, "sample \(row.uuid) has text outside its batch; nothing was saved")
            }
        }
        guard row.start <= row.end else {
            throw HealthError(.invalidArgument,
                              "sample \(row.uuid) of \(types[Int(row.type)]) ends before it starts; nothing was saved")
        }
        guard row.kind != .category || (row.value.isFinite && row.value == row.value.rounded()) else {
            throw HealthError(.invalidArgument, "sample \(row.uuid) has a category value that is not an integer; nothing was saved")
        }
    }
}
