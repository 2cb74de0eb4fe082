import Foundation
import HealthModel
import HealthXML

/// A type as written in the file, resolved once.
struct TypeInfo {
    /// As written, e.g. `HKQuantityTypeIdentifierStepCount`.
    var written: String
    /// The store's identifier: the registry's short name, or the written identifier for an unknown type.
    var identifier: String
    var type: SampleType?
}

/// Remembers the last few decoded attribute values, so that the hot loop decodes a type, unit or source only when it
/// changes (exports are sorted by type, and consecutive records mostly share their source).
struct ParserCaches {
    private var lastTypeBytes: [UInt8] = []
    private var lastType = TypeInfo(written: "", identifier: "", type: nil)
    private var types: [String: TypeInfo] = [:]

    private var lastUnitBytes: [UInt8] = []
    private var lastUnit = ""

    private var lastSourceName: [UInt8] = []
    private var lastSourceVersion: [UInt8] = []
    private var lastDevice: [UInt8] = []
    private var lastSource = HealthSource(name: "")
    /// `lastSource.key`, computed once per source change.
    private(set) var lastSourceKey = ""
    private var hasSource = false

    private var metadataKeys: [(bytes: [UInt8], key: String)] = []
    private var prefixType = ""
    private var prefixSourceKey = ""
    private var prefix = StableHasher()

    /// A metadata key, decoded once and shared afterwards (exports use a few dozen distinct keys).
    mutating func metadataKey(_ value: XMLAttributeValue) -> String {
        for entry in metadataKeys where Self.equal(value.rawBytes, entry.bytes) { return entry.key }
        let key = value.string
        if metadataKeys.count < 256 { metadataKeys.append((Array(value.rawBytes), key)) }
        return key
    }

    /// The natural-UUID hash state for the current type and source (the last source returned by `source`).
    mutating func uuidPrefix(type identifier: String) -> StableHasher {
        if identifier != prefixType || lastSourceKey != prefixSourceKey {
            prefix = HealthSample.naturalUUIDPrefix(type: identifier, sourceKey: lastSourceKey)
            prefixType = identifier
            prefixSourceKey = lastSourceKey
        }
        return prefix
    }

    private var lastCategoryKey: [UInt8] = []
    private var lastCategoryType = ""
    private var lastCategory: Int? = nil

    mutating func type(_ value: XMLAttributeValue) -> TypeInfo {
        if Self.equal(value.rawBytes, lastTypeBytes) { return lastType }
        let written = value.string
        let info: TypeInfo
        if let cached = types[written] {
            info = cached
        } else if let registered = SampleTypeRegistry.registered(written) {
            info = TypeInfo(written: written, identifier: registered.identifier, type: registered)
        } else if let unregistered = SampleTypeRegistry.unregistered(written) {
            info = TypeInfo(written: written, identifier: unregistered.identifier, type: unregistered)
        } else {
            info = TypeInfo(written: written, identifier: written, type: nil)
        }
        types[written] = info
        lastTypeBytes = Array(value.rawBytes)
        lastType = info
        return info
    }

    mutating func unit(_ value: XMLAttributeValue) -> String {
        if Self.equal(value.rawBytes, lastUnitBytes) { return lastUnit }
        lastUnitBytes = Array(value.rawBytes)
        lastUnit = value.string
        return lastUnit
    }

    /// The source of a record; the device's `HKDevice: 0x…` address is skipped before comparing.
    mutating func source(name: XMLAttributeValue?, version: XMLAttributeValue?, device: XMLAttributeValue?) -> HealthSource {
        let nameBytes = name?.rawBytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let versionBytes = version?.rawBytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let deviceBytes = device.map { Self.withoutAddress($0.rawBytes) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if hasSource, Self.equal(nameBytes, lastSourceName), Self.equal(versionBytes, lastSourceVersion),
           Self.equal(deviceBytes, lastDevice) {
            return lastSource
        }
        let versionString = version?.string
        lastSource = HealthSource(name: name?.string ?? "", version: (versionString?.isEmpty ?? true) ? nil : versionString,
                                  deviceDescription: device?.string)
        lastSourceName = Array(nameBytes)
        lastSourceVersion = Array(versionBytes)
        lastDevice = Array(deviceBytes)
        lastSourceKey = lastSource.key
        hasSource = true
        return lastSource
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
        if type.identifier == lastCategoryType, Self.equal(value.rawBytes, lastCategoryKey) { return lastCategory }
        var raw: Int? = value.int
        if raw == nil, let sampleType = type.type {
            raw = SampleTypeRegistry.categoryValue(for: sampleType, exportValue: value.string)?.rawValue
        }
        lastCategoryType = type.identifier
        lastCategoryKey = Array(value.rawBytes)
        lastCategory = raw
        return raw
    }
}
