import Foundation

/// The value a sample carries.
public enum SampleValue: Sendable, Hashable, Codable {
    /// A quantity in the unit it was recorded with (an HKUnit string).
    case quantity(Double, unit: String)
    /// A category type's raw value.
    case category(Int)
    /// No value (mindfulSession, a correlation or workout row).
    case none

    public var quantity: Double? { if case .quantity(let v, _) = self { v } else { nil } }
    public var unit: String? { if case .quantity(_, let u) = self { u } else { nil } }
    public var category: Int? { if case .category(let c) = self { c } else { nil } }
}

/// Well-known metadata keys, as stored in exports and by HealthKit.
public enum MetadataKey {
    public static let syncIdentifier = "HKMetadataKeySyncIdentifier"
    public static let syncVersion = "HKMetadataKeySyncVersion"
    public static let wasUserEntered = "HKWasUserEntered"
    public static let timeZone = "HKTimeZone"
    public static let foodType = "HKFoodType"
    public static let externalUUID = "HKExternalUUID"
    /// The log id a writer gave an entry (a meal, a weigh-in): what delete-by-log-id finds, across types.
    public static let logIdentifier = "HealthBridgeLogID"
}

/// A quantity or category sample: HealthKit's `HKQuantitySample` / `HKCategorySample`.
///
/// Dates are UTC instants. `utcOffset` keeps the offset the sample was recorded (or exported) with and `timeZone` the
/// IANA zone name when known (`HKTimeZone` metadata), so that day boundaries can be taken in the right zone.
///
/// ```swift
/// let walk = HealthSample(type: "stepCount", start: t0, end: t0 + 600, value: .quantity(850, unit: "count"),
///                         source: HealthSource(name: "iPhone"))
/// ```
public struct HealthSample: Sendable, Hashable, Codable, Identifiable {
    public var uuid: UUID
    /// The short type identifier (`stepCount`), or the full identifier of an unregistered type.
    public var type: String
    public var start: Date
    public var end: Date
    public var value: SampleValue
    public var source: HealthSource
    public var creationDate: Date?
    public var metadata: [String: String]
    /// Seconds east of UTC the dates were written with.
    public var utcOffset: Int?
    /// IANA time zone name, when known.
    public var timeZone: String?

    public var id: UUID { uuid }

    public init(
        uuid: UUID? = nil,
        type: String,
        start: Date,
        end: Date,
        value: SampleValue,
        source: HealthSource,
        creationDate: Date? = nil,
        metadata: [String: String] = [:],
        utcOffset: Int? = nil,
        timeZone: String? = nil
    ) {
        self.type = type
        self.start = start
        self.end = end
        self.value = value
        self.source = source
        self.creationDate = creationDate
        self.metadata = metadata
        self.utcOffset = utcOffset
        self.timeZone = timeZone ?? (metadata.isEmpty ? nil : metadata[MetadataKey.timeZone])
        self.uuid = uuid ?? HealthSample.naturalUUID(type: type, sourceKey: source.key, start: start, end: end, value: value)
    }

    public var syncIdentifier: String? { metadata[MetadataKey.syncIdentifier] }
    public var syncVersion: Int? { metadata[MetadataKey.syncVersion].flatMap { Int($0) } }
    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// A deterministic UUID derived from the natural key (type, source, start, end, value, unit), so that the same
    /// sample imported twice — from the same or a newer export — is recognised and stored once.
    ///
    /// Laid out like a UUIDv7: the first 48 bits are the start date in milliseconds since 1970, so that UUIDs of
    /// samples saved in time order are close together in the store's index (a bulk import appends instead of
    /// scattering), and the remaining 74 bits are a hash of the natural key.
    public static func naturalUUID(type: String, sourceKey: String, start: Date, end: Date, value: SampleValue) -> UUID {
        naturalUUID(prefix: naturalUUIDPrefix(type: type, sourceKey: sourceKey), start: start, end: end, value: value)
    }

    /// The hash state after the type and source: compute it once for many samples of one type and source, then
    /// call ``naturalUUID(prefix:start:end:value:)`` (the same UUIDs, less work in an import loop).
    public static func naturalUUIDPrefix(type: String, sourceKey: String) -> StableHasher {
        var hasher = StableHasher()
        hasher.combine(type)
        hasher.combine(sourceKey)
        return hasher
    }

    public static func naturalUUID(prefix: StableHasher, start: Date, end: Date, value: SampleValue) -> UUID {
        naturalUUID(prefix: prefix, start: start, end: end, value: value, created: nil)
    }

    /// The version of the natural key an Apple Health export's records are stored under. Version 1 was (type,
    /// source, start, end, value, unit); version 2 adds the creation date the export carries, so that two entries
    /// equal in everything but their creation date (two glasses of water logged minutes apart for the same time)
    /// are two objects, as in HealthKit. Stores written under version 1 are rekeyed once when opened.
    public static let exportNaturalKeyVersion = 2

    /// The natural UUID of an export's record: the version-1 key plus the creation date (seconds since 1970) when
    /// the record has one. Without a creation date it is the version-1 UUID.
    ///
    /// ```swift
    /// let prefix = HealthSample.naturalUUIDPrefix(type: "dietaryWater", sourceKey: source.key)
    /// let first = HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: .quantity(250, unit: "mL"),
    ///                                      created: 1_717_000_000)
    /// let second = HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: .quantity(250, unit: "mL"),
    ///                                       created: 1_717_000_240)
    /// first != second   // two glasses, two objects
    /// ```
    public static func naturalUUID(prefix: StableHasher, start: Date, end: Date, value: SampleValue,
                                   created: Double?) -> UUID {
        var hasher = prefix
        hasher.timePrefix = UInt64(max(0, min(start.timeIntervalSince1970 * 1000, Double(1 << 47))))
        hasher.combine(start.timeIntervalSince1970.bitPattern)
        hasher.combine(end.timeIntervalSince1970.bitPattern)
        switch value {
        case .quantity(let v, let unit):
            hasher.combine(UInt64(1)); hasher.combine(v.bitPattern); hasher.combine(unit)
        case .category(let c):
            hasher.combine(UInt64(2)); hasher.combine(UInt64(bitPattern: Int64(c)))
        case .none:
            hasher.combine(UInt64(3))
        }
        if let created, !created.isNaN {
            hasher.combine(UInt64(4)); hasher.combine(created.bitPattern)
        }
        return hasher.uuid()
    }
}

/// A 128-bit FNV-1a-style stable hash (the same on every platform and run), used for natural UUIDs.
/// Not cryptographic: it only needs to tell different natural keys apart.
public struct StableHasher: Sendable {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x8422_2325_cbf2_9ce4
    /// When set, the UUID's first 48 bits (a millisecond timestamp), as in UUIDv7.
    public var timePrefix: UInt64? = nil

    public init() {}

    @inlinable
    public mutating func combine(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { combine(bytes: $0) }
    }

    public mutating func combine(_ string: String) {
        var s = string
        s.withUTF8 { combine(bytes: UnsafeRawBufferPointer($0)) }
        combine(UInt64(0xff))  // terminator, so ("ab","c") != ("a","bc")
    }

    public mutating func combine(bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 ^ (a >> 29)
        }
    }

    /// An RFC 4122 version-8 style UUID from the hash state.
    public func uuid() -> UUID {
        // Final avalanche so that close inputs give far-apart UUIDs.
        func mix(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        let hi = mix(a ^ 0x9e37_79b9_7f4a_7c15), lo = mix(b &+ hi)
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: hi >> (56 - 8 * UInt64(i))) }
        for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: lo >> (56 - 8 * UInt64(i))) }
        if let prefix = timePrefix {
            for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: prefix >> (40 - 8 * UInt64(i))) }
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
