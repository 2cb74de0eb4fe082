import Foundation
import HealthModel
import HealthStore
import HealthXML

/// A type as written in the file, resolved once and shared by reference (copying it into every record costs one
/// retain, not one per string inside).
final class TypeInfo: Sendable {
    /// As written, e.g. `HKQuantityTypeIdentifierStepCount`.
    let written: String
    /// The store's identifier: the registry's short name, or the written identifier for an unknown type.
    let identifier: String
    let type: SampleType?
    /// `type?.kind == .category`, read once per record.
    let isCategory: Bool
    /// This import's number for the type as written (an index into per-source tables).
    let index: Int
    /// The identifier's index in the batches' ``SampleTables``.
    let tableIndex: Int32

    init(written: String, identifier: String, type: SampleType?, index: Int, tableIndex: Int32) {
        self.written = written
        self.identifier = identifier
        self.type = type
        self.isCategory = type?.kind == .category
        self.index = index
        self.tableIndex = tableIndex
    }

    /// The type of an element without a `type` attribute.
    static let missing = TypeInfo(written: "", identifier: "", type: nil, index: -1, tableIndex: -1)
}

/// Decoded attribute values, looked up by their raw bytes so that the hot loop decodes a type, unit or source only
/// the first time it appears.
///
/// Exports interleave a handful of types and sources (a watch and a phone writing steps, distance and energy minute
/// by minute), so each cache remembers several recent values and compares raw bytes before any decoding; what
/// misses the recent ones falls back to a dictionary of everything seen in this import.
struct ParserCaches {
    /// The types, sources and units of the rows built so far; every batch carries a copy.
    private(set) var tables = SampleTables()

    private var recentTypes = RecentValues<TypeInfo>()
    private var types: [String: TypeInfo] = [:]

    private var recentUnits = RecentValues<Int32>()

    private var recentSources: [SourceEntry] = []
    private var nextSourceSlot = 0
    private var lastSourceSlot = 0
    private var sources: [SourceBytes: Int] = [:]
    /// Per source: its index in `tables` and its key (for natural UUIDs).
    private var sourceIndexes: [Int32] = []
    private var sourceKeys: [String] = []
    /// Natural-UUID hash states after type and source: `[source index][type index]`.
    private var prefixes: [[StableHasher?]] = []
    /// The index of the last source returned by `source(name:version:device:)`.
    private var currentSource = 0

    private var metadataKeys: [(bytes: [UInt8], key: String)] = []

    private var lastCategoryKey: [UInt8] = []
    private var lastCategoryType = -2
    private var lastCategory: Int? = nil

    /// A metadata key, decoded once and shared afterwards (exports use a few dozen distinct keys).
    mutating func metadataKey(_ value: XMLAttributeValue) -> String {
        for entry in metadataKeys where Self.equal(value.rawBytes, entry.bytes) { return entry.key }
        let key = value.string
        if metadataKeys.count < 256 { metadataKeys.append((Array(value.rawBytes), key)) }
        return key
    }

    /// The natural-UUID hash state for a type and the last source returned by `source(name:version:device:)`.
    mutating func uuidPrefix(type info: TypeInfo) -> StableHasher {
        guard info.index >= 0 else {
            return HealthSample.naturalUUIDPrefix(type: info.identifier, sourceKey: sourceKeys[currentSource])
        }
        if info.index < prefixes[currentSource].count, let prefix = prefixes[currentSource][info.index] { return prefix }
        let prefix = HealthSample.naturalUUIDPrefix(type: info.identifier, sourceKey: sourceKeys[currentSource])
        while prefixes[currentSource].count <= info.index { prefixes[currentSource].append(nil) }
        prefixes[currentSource][info.index] = prefix
        return prefix
    }

    mutating func type(_ value: XMLAttributeValue) -> TypeInfo {
        if let info = recentTypes.value(for: value.rawBytes) { return info }
        let written = value.string
        let info: TypeInfo
        if let cached = types[written] {
            info = cached
        } else {
            let type = SampleTypeRegistry.registered(written) ?? SampleTypeRegistry.unregistered(written)
            let identifier = type?.identifier ?? written
            info = TypeInfo(written: written, identifier: identifier, type: type, index: types.count,
                            tableIndex: tables.type(identifier))
            types[written] = info
        }
        recentTypes.insert(value.rawBytes, info)
        return info
    }

    /// A unit's index in ``tables``.
    mutating func unit(_ value: XMLAttributeValue) -> Int32 {
        if let unit = recentUnits.value(for: value.rawBytes) { return unit }
        let unit = tables.unit(value.string)
        recentUnits.insert(value.rawBytes, unit)
        return unit
    }

    mutating func unit(_ string: String) -> Int32 { tables.unit(string) }

    /// The source of a correlation or workout.
    mutating func source(name: XMLAttributeValue?, version: XMLAttributeValue?, device: XMLAttributeValue?) -> HealthSource {
        let index = sourceIndex(name: name, version: version, device: device)
        return tables.sources[Int(index)]
    }

    /// The index in ``tables`` of a record's source; the device's `HKDevice: 0x…` address is skipped before comparing.
    mutating func sourceIndex(name: XMLAttributeValue?, version: XMLAttributeValue?, device: XMLAttributeValue?) -> Int32 {
        let nameBytes = name?.rawBytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let versionBytes = version?.rawBytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let deviceBytes = device.map { Self.withoutAddress($0.rawBytes) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if lastSourceSlot < recentSources.count, recentSources[lastSourceSlot].matches(nameBytes, versionBytes, deviceBytes) {
            currentSource = recentSources[lastSourceSlot].index
            return sourceIndexes[currentSource]
        }
        for slot in recentSources.indices where recentSources[slot].matches(nameBytes, versionBytes, deviceBytes) {
            lastSourceSlot = slot
            currentSource = recentSources[slot].index
            return sourceIndexes[currentSource]
        }
        let bytes = SourceBytes(name: Array(nameBytes), version: Array(versionBytes), device: Array(deviceBytes))
        let index: Int
        if let known = sources[bytes] {
            index = known
        } else {
            let versionString = version?.string
            let source = HealthSource(name: name?.string ?? "",
                                      version: (versionString?.isEmpty ?? true) ? nil : versionString,
                                      deviceDescription: device?.string)
            index = sourceIndexes.count
            sources[bytes] = index
            sourceIndexes.append(tables.source(source))
            sourceKeys.append(source.key)
            prefixes.append([])
        }
        let entry = SourceEntry(bytes: bytes, index: index)
        if recentSources.count < RecentValues<Int>.capacity {
            recentSources.append(entry)
            lastSourceSlot = recentSources.count - 1
        } else {
            recentSources[nextSourceSlot] = entry
            lastSourceSlot = nextSourceSlot
            nextSourceSlot = (nextSourceSlot + 1) % RecentValues<Int>.capacity
        }
        currentSource = index
        return sourceIndexes[index]
    }

    @inline(__always)
    static func equal(_ bytes: UnsafeRawBufferPointer, _ array: [UInt8]) -> Bool {
        guard bytes.count == array.count else { return false }
        guard let pointer = bytes.baseAddress, !bytes.isEmpty else { return true }
        return array.withUnsafeBytes { stored in
            guard let base = stored.baseAddress else { return false }
            return memcmp(base, pointer, bytes.count) == 0
        }
    }

    /// The bytes after `<<HKDevice: 0x…>` (raw, entity-escaped: `&lt;&lt;HKDevice: 0x…&gt;, name:…`).
    static func withoutAddress(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        // Find the first ", " after "HKDevice"; everything before it is the address part.
        let n = bytes.count
        var i = 0
        while i + 1 < n {
            if bytes[i] == UInt8(ascii: ","), bytes[i + 1] == UInt8(ascii: " ") {
                return UnsafeRawBufferPointer(rebasing: bytes[i...])
            }
            i += 1
        }
        return bytes
    }

    mutating func category(_ value: XMLAttributeValue, type: TypeInfo) -> Int? {
        if type.index == lastCategoryType, Self.equal(value.rawBytes, lastCategoryKey) { return lastCategory }
        var raw: Int? = value.int
        if raw == nil, let sampleType = type.type {
            raw = SampleTypeRegistry.categoryValue(for: sampleType, exportValue: value.string)?.rawValue
        }
        lastCategoryType = type.index
        lastCategoryKey = Array(value.rawBytes)
        lastCategory = raw
        return raw
    }
}

/// A source's identifying attributes as raw bytes (the device without its memory address).
struct SourceBytes: Hashable {
    var name: [UInt8]
    var version: [UInt8]
    var device: [UInt8]
}

/// A recently seen source: its bytes and its index in this import's source table.
struct SourceEntry {
    var bytes: SourceBytes
    var index: Int

    @inline(__always)
    func matches(_ name: UnsafeRawBufferPointer, _ version: UnsafeRawBufferPointer, _ device: UnsafeRawBufferPointer) -> Bool {
        ParserCaches.equal(device, bytes.device) && ParserCaches.equal(name, bytes.name)
            && ParserCaches.equal(version, bytes.version)
    }
}

/// A few values keyed by raw bytes, checked newest hit first; the oldest entry is replaced when full.
struct RecentValues<Value> {
    static var capacity: Int { 8 }
    private var keys: [[UInt8]] = []
    private var values: [Value] = []
    private var next = 0
    private var lastHit = 0

    @inline(__always)
    mutating func value(for bytes: UnsafeRawBufferPointer) -> Value? {
        if lastHit < keys.count, ParserCaches.equal(bytes, keys[lastHit]) { return values[lastHit] }
        for index in keys.indices where ParserCaches.equal(bytes, keys[index]) {
            lastHit = index
            return values[index]
        }
        return nil
    }

    mutating func insert(_ bytes: UnsafeRawBufferPointer, _ value: Value) {
        if keys.count < Self.capacity {
            keys.append(Array(bytes))
            values.append(value)
            lastHit = keys.count - 1
        } else {
            keys[next] = Array(bytes)
            values[next] = value
            lastHit = next
            next = (next + 1) % Self.capacity
        }
    }
}
