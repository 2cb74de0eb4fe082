import Foundation

/// A write the ``SyncEngine`` owes the server, kept in the app's SQLite file until the server confirmed it.
///
/// ```swift
/// for entry in try engine.outbox(status: .denied) { print(entry.syncId, entry.lastError ?? "") }
/// ```
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    /// Position in the outbox (writes are sent in this order).
    public var id: Int64
    /// The id that makes the write idempotent on the server: a retry after a crash, a lost answer or a server
    /// restart is applied once.
    public var syncId: String
    public var operation: OutboxOperation
    public var status: OutboxStatus
    /// Attempts so far.
    public var attempts: Int
    /// When the next attempt is due (pending entries).
    public var nextAttemptAt: Date
    public var createdAt: Date
    public var syncedAt: Date?
    /// The last failure, for the person (never a health value).
    public var lastError: String?
    /// The server's code of the last failure (`HEALTH_NOT_AUTHORIZED`…).
    public var lastCode: String?
}

/// What an outbox entry does.
///
/// ```swift
/// try engine.enqueue(.quantity(QuantityEntry(type: .dietaryWater, value: 250, unit: "mL", date: Date())),
///                    syncId: "water-1", in: db)
/// ```
public enum OutboxOperation: Codable, Sendable, Hashable {
    /// A meal (its nutrients and the food correlation), idempotent by its log id and version.
    case food(HealthBridgeMeal)
    /// One measurement of any writable quantity type (water, a weight, a glucose reading…), in one of its entry units.
    case quantity(QuantityEntry)
    /// Deleting a meal by its log id (after the meal's write, in outbox order).
    case deleteFood(logId: String)

    /// Water drunk, mL: the diet app's shortcut for a `dietaryWater` quantity.
    public static func water(milliliters: Double, date: Date) -> OutboxOperation {
        .quantity(QuantityEntry(type: .dietaryWater, value: milliliters, unit: "mL", date: date))
    }

    /// A weight, kg: the diet app's shortcut for a `bodyMass` quantity.
    public static func weight(kilograms: Double, date: Date) -> OutboxOperation {
        .quantity(QuantityEntry(type: .bodyMass, value: kilograms, unit: "kg", date: date))
    }

    var kind: String {
        switch self {
        case .food: "food"
        case .quantity: "quantity"
        case .deleteFood: "deleteFood"
        }
    }

    /// Quantities go to the server in batches (one transaction each).
    var sample: QuantityEntry? {
        if case .quantity(let entry) = self { return entry }
        return nil
    }

    // The stored form: `{"food":{"_0":…}}`, `{"quantity":{…}}`, `{"deleteFood":{"logId":…}}`. Rows written before the
    // generic case, `{"water":{"milliliters":…,"date":…}}` and `{"weight":{"kilograms":…,"date":…}}`, still decode.
    private enum CodingKeys: String, CodingKey { case food, quantity, deleteFood, water, weight }
    private enum FoodKeys: String, CodingKey { case _0 }
    private enum DeleteKeys: String, CodingKey { case logId }
    private enum LegacyKeys: String, CodingKey { case milliliters, kilograms, date }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.food) {
            self = .food(try container.nestedContainer(keyedBy: FoodKeys.self, forKey: .food)
                .decode(HealthBridgeMeal.self, forKey: ._0))
        } else if container.contains(.quantity) {
            self = .quantity(try container.decode(QuantityEntry.self, forKey: .quantity))
        } else if container.contains(.deleteFood) {
            self = .deleteFood(logId: try container.nestedContainer(keyedBy: DeleteKeys.self, forKey: .deleteFood)
                .decode(String.self, forKey: .logId))
        } else if container.contains(.water) {
            let legacy = try container.nestedContainer(keyedBy: LegacyKeys.self, forKey: .water)
            self = .water(milliliters: try legacy.decode(Double.self, forKey: .milliliters),
                          date: try legacy.decode(Date.self, forKey: .date))
        } else if container.contains(.weight) {
            let legacy = try container.nestedContainer(keyedBy: LegacyKeys.self, forKey: .weight)
            self = .weight(kilograms: try legacy.decode(Double.self, forKey: .kilograms),
                           date: try legacy.decode(Date.self, forKey: .date))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not an outbox operation"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .food(let meal):
            var nested = container.nestedContainer(keyedBy: FoodKeys.self, forKey: .food)
            try nested.encode(meal, forKey: ._0)
        case .quantity(let entry):
            try container.encode(entry, forKey: .quantity)
        case .deleteFood(let logId):
            var nested = container.nestedContainer(keyedBy: DeleteKeys.self, forKey: .deleteFood)
            try nested.encode(logId, forKey: .logId)
        }
    }
}

/// One measurement waiting in the outbox: a writable type, a value in one of its entry units, when, and the
/// metadata the type allows by name.
///
/// ```swift
/// let reading = QuantityEntry(type: "heartRate", value: 62, unit: "bpm", date: Date())
/// ```
public struct QuantityEntry: Codable, Sendable, Hashable {
    public var type: HealthDataType
    public var value: Double
    /// One of the type's entry units (``HealthDataType/entryUnits``).
    public var unit: String
    public var date: Date
    /// Metadata the type allows, by name; nil when none.
    public var metadata: [String: String]?

    public init(type: HealthDataType, value: Double, unit: String, date: Date, metadata: [String: String]? = nil) {
        self.type = type; self.value = value; self.unit = unit; self.date = date
        self.metadata = metadata?.isEmpty == true ? nil : metadata
    }
}

/// Where an outbox entry stands.
///
/// ```swift
/// let waiting = try engine.outbox(status: .pending).count
/// ```
public enum OutboxStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// Not confirmed yet: retried with backoff until it is.
    case pending
    /// Stored on the server (or found already stored: a retry).
    case synced
    /// The server refused it as contradicting what it holds (`HEALTH_CONFLICT`): not retried.
    case conflict
    /// The owner did not grant the write, or revoked the pairing (`HEALTH_NOT_AUTHORIZED`, `HEALTH_UNAUTHENTICATED`):
    /// not retried until ``SyncEngine/retry(status:)``.
    case denied
    /// The server refused the write as invalid (a value out of bounds, a date in the future): not retried.
    case invalid
}

/// How the ``SyncEngine`` spaces retries: exponential backoff with jitter.
///
/// ```swift
/// let quick = RetryPolicy(baseDelay: .milliseconds(50), maxDelay: .seconds(1))
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The delay after the first failure.
    public var baseDelay: Duration
    /// The longest delay.
    public var maxDelay: Duration
    /// Quantities per request.
    public var batchSize: Int

    public init(baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300), batchSize: Int = 100) {
        self.baseDelay = baseDelay; self.maxDelay = maxDelay; self.batchSize = max(1, min(batchSize, 1_000))
    }

    /// The delay after `attempts` failures: `baseDelay · 2^(attempts-1)`, at most `maxDelay`, times a random
    /// factor in 0.5…1 so that many clients do not retry in step.
    ///
    /// ```swift
    /// RetryPolicy().delay(afterAttempts: 3)   // 2…4 s
    /// ```
    public func delay(afterAttempts attempts: Int, retryAfter: Int? = nil) -> TimeInterval {
        let base = Self.seconds(baseDelay), cap = Self.seconds(maxDelay)
        let exponential = min(cap, base * pow(2, Double(max(0, min(attempts - 1, 30)))))
        let jittered = exponential * Double.random(in: 0.5...1)
        return max(jittered, Double(retryAfter ?? 0))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
