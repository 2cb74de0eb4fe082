/// Where a sample came from: the app (source) and, when known, the device that recorded it.
///
/// Apple's exports write the device as a description string that embeds a memory address
/// (`<<HKDevice: 0x282e3a260>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,6, software:13.3>`).
/// The address differs from sample to sample, so it is never part of the identity: ``key`` is built from the source
/// name, bundle identifier and the device's name, model and hardware only.
///
/// ```swift
/// let watch = HealthSource(name: "Alex’s Apple Watch",
///                          deviceDescription: "<<HKDevice: 0x2801>, name:Apple Watch, model:Watch, hardware:Watch6,2>")
/// watch.device?.model   // "Watch"
/// watch.category        // .appleWatch
/// ```
public struct HealthSource: Sendable, Hashable, Codable {
    /// The fields live in one immutable object, so that copying a source — once per sample, millions of times in an
    /// import — retains one reference instead of up to eight strings. A setter replaces the object.
    final class Storage: Sendable {
        let name: String
        let bundleIdentifier: String?
        let version: String?
        let device: HealthDevice?

        init(name: String, bundleIdentifier: String?, version: String?, device: HealthDevice?) {
            self.name = name
            self.bundleIdentifier = bundleIdentifier
            self.version = version
            self.device = device
        }
    }

    private var storage: Storage

    public var name: String {
        get { storage.name }
        set { storage = Storage(name: newValue, bundleIdentifier: bundleIdentifier, version: version, device: device) }
    }

    public var bundleIdentifier: String? {
        get { storage.bundleIdentifier }
        set { storage = Storage(name: name, bundleIdentifier: newValue, version: version, device: device) }
    }

    public var version: String? {
        get { storage.version }
        set { storage = Storage(name: name, bundleIdentifier: bundleIdentifier, version: newValue, device: device) }
    }

    public var device: HealthDevice? {
        get { storage.device }
        set { storage = Storage(name: name, bundleIdentifier: bundleIdentifier, version: version, device: newValue) }
    }

    public init(name: String, bundleIdentifier: String? = nil, version: String? = nil, device: HealthDevice? = nil) {
        storage = Storage(name: name, bundleIdentifier: bundleIdentifier, version: version, device: device)
    }

    public static func == (lhs: HealthSource, rhs: HealthSource) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.name == rhs.name && lhs.bundleIdentifier == rhs.bundleIdentifier && lhs.version == rhs.version
                && lhs.device == rhs.device)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(bundleIdentifier)
        hasher.combine(version)
        hasher.combine(device)
    }

    enum CodingKeys: String, CodingKey {
        case name, bundleIdentifier, version, device
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  bundleIdentifier: try container.decodeIfPresent(String.self, forKey: .bundleIdentifier),
                  version: try container.decodeIfPresent(String.self, forKey: .version),
                  device: try container.decodeIfPresent(HealthDevice.self, forKey: .device))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(bundleIdentifier, forKey: .bundleIdentifier)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeIfPresent(device, forKey: .device)
    }

    /// Builds a source from an export's `sourceName`, `sourceVersion` and `device` attributes.
    public init(name: String, version: String? = nil, deviceDescription: String?) {
        self.init(name: name, version: version, device: deviceDescription.flatMap(HealthDevice.init(exportDescription:)))
    }

    /// The normalised identity of the source: name, bundle id, device name, model and hardware — never the version
    /// (a software update does not make a new source) nor the `HKDevice` address.
    public var key: String {
        var key = name
        key += "\u{1F}" + (bundleIdentifier ?? "")
        key += "\u{1F}" + (device?.name ?? "")
        key += "\u{1F}" + (device?.model ?? "")
        key += "\u{1F}" + (device?.hardware ?? "")
        return key
    }

    /// True when both sources have the same ``key``, without building it.
    public func hasSameIdentity(as other: HealthSource) -> Bool {
        if storage === other.storage { return true }
        return name == other.name && bundleIdentifier == other.bundleIdentifier && device?.name == other.device?.name
            && device?.model == other.device?.model && device?.hardware == other.device?.hardware
    }

    /// The bundle identifiers of sources whose samples are totals HealthKit already merged across devices (bucket
    /// totals pushed by Health Auto Export) start with this.
    public static let mergedTotalsPrefix = "org.healthbridge.totals."

    /// Health Auto Export's aggregated data: hourly or daily totals and averages that HealthKit computed over every
    /// source of the phone, one source for every ingest token.
    ///
    /// ```swift
    /// HealthSource.healthAutoExportTotals.category   // .mergedTotals
    /// ```
    public static let healthAutoExportTotals = HealthSource(name: "Health Auto Export",
                                                             bundleIdentifier: mergedTotalsPrefix + "health-auto-export")

    /// The names the Health app goes by in the languages an iPhone can be set to: what an export calls the source of
    /// data the user entered by hand (such records carry no device).
    public static let healthAppNames: Set<String> = [
        "Health", "Santé", "Salud", "Salute", "Saúde", "Gezondheid", "Hälsa", "Helse", "Sundhed", "Terveys",
        "Zdrowie", "Zdraví", "Zdravie", "Zdravlje", "Egészség", "Sănătate", "Salut", "Υγεία", "Здоровье",
        "Здоров’я", "Sağlık", "בריאות", "الصحة", "สุขภาพ", "Kesehatan", "Kesihatan", "Sức khỏe", "健康",
        "ヘルスケア", "건강", "स्वास्थ्य",
    ]

    /// The class of source that decides the default priority order, decided language-independently: from the
    /// device's hardware identifier (`Watch6,1`, `iPhone14,2`), then its model (`Watch`, `iPhone`), and only when the
    /// export names no device from the names, so that "Apple Watch de Marie" and "Apple Watch von Max" are watches
    /// and the Health app is user-entered data under its name in any language.
    ///
    /// ```swift
    /// HealthSource(name: "iPhone de Marie", deviceDescription: "<<HKDevice: 0x1>, name:iPhone, model:iPhone, hardware:iPhone14,2>")
    ///     .category   // .iPhone
    /// HealthSource(name: "Santé").category   // .userEntered
    /// ```
    public var category: SourceCategory {
        if let bundle = bundleIdentifier, bundle.hasPrefix(Self.mergedTotalsPrefix) { return .mergedTotals }
        if bundleIdentifier == "com.apple.Health" || (device == nil && Self.healthAppNames.contains(name)) {
            return .userEntered
        }
        if let device {
            if let hardware = device.hardware, let category = Self.appleCategory(hardware) { return category }
            if let model = device.model, let category = Self.appleCategory(model) { return category }
            let names = (device.model ?? "") + " " + (device.hardware ?? "") + " " + (device.name ?? "")
            if names.contains("Watch") { return .appleWatch }
            if names.contains("iPhone") { return .iPhone }
            return .otherDevice
        }
        // No device string: name-based fallback, as in exports from old iOS versions.
        if name.contains("Watch") { return .appleWatch }
        if name.contains("iPhone") { return .iPhone }
        return .app
    }

    /// The class of an Apple hardware identifier or model (`Watch6,1`, `Watch`, `iPhone14,2`, `iPhone`).
    static func appleCategory(_ identifier: String) -> SourceCategory? {
        if identifier.hasPrefix("Watch") { return .appleWatch }
        if identifier.hasPrefix("iPhone") { return .iPhone }
        return nil
    }
}

/// The classes of source in HealthKit's default priority order, highest first. ``mergedTotals`` comes before them
/// all: its samples are HealthKit's own merge of every other source over their bucket, so where such a bucket
/// exists it is the answer, and the samples it was computed from (arriving later from an export) are not added
/// to it.
public enum SourceCategory: Int, Sendable, Hashable, Codable, Comparable, CaseIterable {
    case mergedTotals = -1, userEntered = 0, appleWatch, iPhone, otherDevice, app

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var label: String {
        switch self {
        case .mergedTotals: "merged totals"
        case .userEntered: "user-entered"
        case .appleWatch: "Apple Watch"
        case .iPhone: "iPhone"
        case .otherDevice: "other device"
        case .app: "app"
        }
    }
}

/// A device as described by HealthKit's `HKDevice`.
public struct HealthDevice: Sendable, Hashable, Codable {
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var hardware: String?
    public var software: String?

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil, hardware: String? = nil,
                software: String? = nil) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardware = hardware
        self.software = software
    }

    /// Parses an export's device description, ignoring the `HKDevice: 0x…` address. Returns nil when the string
    /// names no field (an empty or unrecognised description).
    public init?(exportDescription: String) {
        var result = HealthDevice()
        var found = false
        // Fields are ", key:value" pairs; values may themselves contain commas only in rare cases (names), which
        // we keep by splitting on ", " followed by a known key.
        let keys = ["name", "manufacturer", "model", "hardware", "software", "localIdentifier", "UDIDeviceIdentifier",
                    "firmware", "FDA"]
        var body = Substring(exportDescription)
        if body.hasPrefix("<") { body = body.dropFirst() }
        if body.hasSuffix(">") { body = body.dropLast() }
        var fields: [(String, Substring)] = []
        var current: (String, Substring.Index)? = nil
        var index = body.startIndex
        while index < body.endIndex {
            if body[index] == "," || index == body.startIndex {
                var keyStart = body[index] == "," ? body.index(after: index) : index
                while keyStart < body.endIndex, body[keyStart] == " " { keyStart = body.index(after: keyStart) }
                if let key = keys.first(where: { body[keyStart...].hasPrefix($0 + ":") }) {
                    if let (k, start) = current { fields.append((k, body[start..<index])) }
                    current = (key, body.index(keyStart, offsetBy: key.count + 1))
                }
            }
            index = body.index(after: index)
        }
        if let (k, start) = current { fields.append((k, body[start..<body.endIndex])) }
        for (key, raw) in fields {
            let value = raw.trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, value != "(null)" else { continue }
            found = true
            switch key {
            case "name": result.name = value
            case "manufacturer": result.manufacturer = value
            case "model": result.model = value
            case "hardware": result.hardware = value
            case "software": result.software = value
            default: break
            }
        }
        guard found else { return nil }
        self = result
    }
}

import Foundation
