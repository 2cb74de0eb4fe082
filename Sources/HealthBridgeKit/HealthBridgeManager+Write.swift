import Foundation
import HealthAPI
import HealthModel

// The seed's writes (§4). Every write is idempotent: a meal by its log id (and version), a weight or water by its
// sync id. Sending the same write again — after a timeout whose answer was lost, say — changes nothing.
extension HealthBridgeManager {
    /// Writes a meal: a sample per nutrient and a food correlation linking them, in one transaction. The meal's
    /// `id` makes it idempotent; a greater `version` replaces it.
    ///
    /// ```swift
    /// try await manager.writeNutrition(from: HealthBridgeMeal(id: "meal-42", calories: 320, protein: 11, carbs: 54, fat: 6))
    /// ```
    @discardableResult
    public func writeNutrition(from foodLog: HealthBridgeMeal) async throws(HealthBridgeError) -> WriteResult {
        try await post("log/food", body: foodLog.body, as: WriteResult.self)
    }

    /// Writes a weight in kg. `syncId` makes it idempotent (a fresh one when absent); a greater `syncVersion`
    /// with the same sync id replaces it.
    ///
    /// ```swift
    /// try await manager.writeWeight(72.4, date: Date(), syncId: "weight-2026-11-25")
    /// ```
    @discardableResult
    public func writeWeight(_ weightKg: Double, date: Date = Date(), syncId: String? = nil,
                            syncVersion: Int? = nil) async throws(HealthBridgeError) -> WriteResult {
        try await post("log/weight", body: QuantityBody(value: weightKg, unit: "kg", at: HealthBridgeDates.string(date),
                                                        syncId: syncId ?? Self.newSyncId(), syncVersion: syncVersion),
                       as: WriteResult.self)
    }

    /// Writes water drunk in mL, idempotent by `syncId` (a fresh one when absent).
    ///
    /// ```swift
    /// try await manager.writeWater(250)
    /// ```
    @discardableResult
    public func writeWater(_ milliliters: Double, date: Date = Date(), syncId: String? = nil,
                           syncVersion: Int? = nil) async throws(HealthBridgeError) -> WriteResult {
        try await post("log/water", body: QuantityBody(value: milliliters, unit: "mL", at: HealthBridgeDates.string(date),
                                                       syncId: syncId ?? Self.newSyncId(), syncVersion: syncVersion),
                       as: WriteResult.self)
    }

    /// Saves one measurement of any writable quantity type (`POST /api/v1/log`): a value in one of the type's entry
    /// units (``HealthDataType/entryUnits``; default the first), with the metadata the type allows by name. `syncId`
    /// makes it idempotent (a fresh one when absent); a greater `syncVersion` with the same sync id replaces it.
    ///
    /// ```swift
    /// try await manager.save(quantity: .bodyMass, value: 160, unit: "lb", syncId: "scale-2026-11-25")
    /// ```
    @discardableResult
    public func save(quantity type: HealthDataType, value: Double, unit: String? = nil, date: Date = Date(),
                     metadata: [String: String]? = nil, syncId: String? = nil,
                     syncVersion: Int? = nil) async throws(HealthBridgeError) -> WriteResult {
        try await post("log", body: QuantityLog(type: type.rawValue, value: value, unit: unit,
                                                at: HealthBridgeDates.string(date),
                                                metadata: metadata?.isEmpty == true ? nil : metadata,
                                                syncId: syncId ?? Self.newSyncId(), syncVersion: syncVersion),
                       as: WriteResult.self)
    }

    /// Saves quantity samples in one transaction (`POST /api/v1/health/samples`), each idempotent by its sync id.
    ///
    /// ```swift
    /// try await manager.save([SampleWrite(type: .dietaryWater, value: 250, unit: "mL", date: Date(), syncId: "w-1")])
    /// ```
    @discardableResult
    public func save(_ samples: [SampleWrite]) async throws(HealthBridgeError) -> WriteResult {
        struct Body: Encodable, Sendable { var samples: [SampleWrite.Body] }
        return try await post("health/samples", body: Body(samples: samples.map(\.body)), as: WriteResult.self)
    }

    /// Deletes every object this app wrote for a meal (its nutrients and the food correlation). Deleting a meal
    /// that is already gone deletes nothing and does not fail.
    ///
    /// ```swift
    /// try await manager.deleteNutrition(logId: "meal-42")
    /// ```
    @discardableResult
    public func deleteNutrition(logId: String) async throws(HealthBridgeError) -> DeleteResult {
        do {
            return try await call("DELETE", "log/" + Self.percentEncode(logId), as: DeleteResult.self)
        } catch {
            throw HealthBridgeError.wrap(error, .save)
        }
    }

    static func newSyncId() -> String { "hbk-" + UUID().uuidString.lowercased() }

    struct QuantityBody: Encodable, Sendable {
        var value: Double
        var unit: String
        var at: String
        var syncId: String
        var syncVersion: Int?
        enum CodingKeys: String, CodingKey { case value, unit, at, syncId = "sync_id", syncVersion = "sync_version" }
    }
}

/// One quantity sample to save with ``HealthBridgeManager/save(_:)``.
///
/// ```swift
/// let write = SampleWrite(type: .dietaryWater, value: 250, unit: "mL", date: Date(), syncId: "water-7")
/// ```
public struct SampleWrite: Codable, Sendable, Hashable {
    public var type: HealthDataType
    public var value: Double
    public var unit: String
    public var date: Date
    /// Makes the write idempotent: the same sync id from the same app is stored once.
    public var syncId: String
    public var syncVersion: Int?
    /// Metadata the type allows, by name (or HealthKit metadata by key).
    public var metadata: [String: String]?

    public init(type: HealthDataType, value: Double, unit: String, date: Date, syncId: String, syncVersion: Int? = nil,
                metadata: [String: String]? = nil) {
        self.type = type; self.value = value; self.unit = unit; self.date = date; self.syncId = syncId
        self.syncVersion = syncVersion; self.metadata = metadata
    }

    struct Body: Encodable, Sendable {
        var type: String
        var value: Double
        var unit: String
        var start: String
        var syncId: String
        var syncVersion: Int?
        var metadata: [String: String]?
        enum CodingKeys: String, CodingKey {
            case type, value, unit, start, syncId = "sync_id", syncVersion = "sync_version", metadata
        }
    }

    var body: Body {
        Body(type: type.rawValue, value: value, unit: unit, start: HealthBridgeDates.string(date), syncId: syncId,
             syncVersion: syncVersion, metadata: metadata)
    }
}
