import Foundation
import HealthModel

/// HealthKit's metadata keys the kit knows by name. An app's own keys (`"DietAppLogId"`) are stored with its samples,
/// returned with them and queryable with ``HKQuery/predicateForObjects(withMetadataKey:allowedValues:)``.
public let HKMetadataKeyFoodType = MetadataKey.foodType
public let HKMetadataKeySyncIdentifier = MetadataKey.syncIdentifier
public let HKMetadataKeySyncVersion = MetadataKey.syncVersion
public let HKMetadataKeyWasUserEntered = MetadataKey.wasUserEntered
public let HKMetadataKeyTimeZone = MetadataKey.timeZone
public let HKMetadataKeyExternalUUID = MetadataKey.externalUUID

/// One metadata value as HealthKit allows it: a string, a number, a date or a quantity. Held in a Sendable form.
enum HKMetadataValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    case integer(Int)
    case bool(Bool)
    case date(Date)
    case quantity(HKQuantity)

    /// The value an app passed (`[String: Any]`); nil for a type HealthKit does not allow in metadata.
    init?(_ any: Any) {
        switch any {
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(value)
        case let value as Double: self = .number(value)
        case let value as Float: self = .number(Double(value))
        case let value as NSNumber: self = .number(value.doubleValue)
        case let value as Date: self = .date(value)
        case let value as HKQuantity: self = .quantity(value)
        case let value as CustomStringConvertible: self = .string(value.description)
        default: return nil
        }
    }

    var anyValue: Any {
        switch self {
        case .string(let v): v
        case .number(let v): v
        case .integer(let v): v
        case .bool(let v): v
        case .date(let v): v
        case .quantity(let v): v
        }
    }

    /// The server keeps metadata as strings.
    var wire: String {
        switch self {
        case .string(let v): v
        case .number(let v): v.rounded() == v && abs(v) < 1e15 ? String(Int64(v)) : String(v)
        case .integer(let v): String(v)
        case .bool(let v): v ? "1" : "0"
        case .date(let v): ISO8601.string(v)
        case .quantity(let v): "\(v.value) \(v.unit.unitString)"
        }
    }

    /// A value read back: the sync version as a number, everything else as the string stored.
    static func fromWire(key: String, _ text: String) -> HKMetadataValue {
        if key == MetadataKey.syncVersion, let version = Int(text) { return .integer(version) }
        return .string(text)
    }
}

enum HKMetadata {
    /// The prefix of the log ids the kit gives the objects it saves, so a save sent twice is stored once.
    static let kitLogPrefix = "hk:"

    static func sendable(_ metadata: [String: Any]?) -> [String: HKMetadataValue] {
        guard let metadata else { return [:] }
        var result: [String: HKMetadataValue] = [:]
        for (key, value) in metadata { if let converted = HKMetadataValue(value) { result[key] = converted } }
        return result
    }

    /// The metadata an app sees: what was written, without what the kit or the server added for their own use.
    static func fromWire(_ metadata: [String: String]?) -> [String: HKMetadataValue] {
        guard let metadata else { return [:] }
        var result: [String: HKMetadataValue] = [:]
        let kitSync = metadata[MetadataKey.syncIdentifier]?.hasPrefix(kitLogPrefix) == true
        for (key, text) in metadata {
            if key == MetadataKey.logIdentifier, text.hasPrefix(kitLogPrefix) { continue }
            if kitSync, key == MetadataKey.syncIdentifier || key == MetadataKey.syncVersion { continue }
            if key == MetadataKey.wasUserEntered, text == "0" { continue }
            result[key] = .fromWire(key: key, text)
        }
        return result
    }
}
