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
/// try engine.enqueue(.water(milliliters: 250, date: Date()), syncId: "water-1", in: db)
/// ```
public enum OutboxOperation: Codable, Sendable, Hashable {
    /// A meal (its nutrients and the food correlation), idempotent by its log id and version.
    case food(FoodLogRecord)
    /// Water drunk, mL.
    case water(milliliters: Double, date: Date)
    /// A weight, kg.
    case weight(kilograms: Double, date: Date)
    /// Deleting a meal by its log id (after the meal's write, in outbox order).
    case deleteFood(logId: String)

    var kind: String {
        switch self {
        case .food: "food"
        case .water: "water"
        case .weight: "weight"
        case .deleteFood: "deleteFood"
        }
    }

    /// Water and weights go to the server in batches (one transaction each).
    var sample: (type: HealthDataType, value: Double, unit: String, date: Date)? {
        switch self {
        case .water(let ml, let date): (.dietaryWater, ml, "mL", date)
        case .weight(let kg, let date): (.bodyMass, kg, "kg", date)
        case .food, .deleteFood: nil
        }
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
    /// Water and weights per request.
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
