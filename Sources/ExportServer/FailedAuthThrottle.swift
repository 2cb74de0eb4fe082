import Foundation
import Synchronization

/// Limits failed authentications (missing, unknown or revoked bearer tokens) per peer address: a token bucket of
/// `burst` failures refilled at `rate` per second. While an address has no failure left, every request from it that
/// needs a token is answered 429 with `Retry-After` before the token is even looked up.
public final class FailedAuthThrottle: Sendable {
    public let rate: Double
    public let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    static let maxKeys = 10_000

    struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// - Parameters:
    ///   - rate: failures per second an address earns back; 0 disables the throttle.
    ///   - burst: failures an address may make in a row before it is throttled.
    public init(rate: Double = 1, burst: Double = 10) {
        self.rate = rate
        self.burst = max(1, burst)
    }

    /// Seconds `address` must wait before its next attempt, or nil when it may try now.
    public func retryAfter(_ address: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        guard rate > 0 else { return nil }
        return buckets.withLock { buckets in
            guard let bucket = buckets[address] else { return nil }
            let tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            guard tokens < 1 else { return nil }
            return max(1, Int(((1 - tokens) / rate).rounded(.up)))
        }
    }

    /// Counts one failed authentication from `address`.
    public func failed(_ address: String, now: Double = ProcessInfo.processInfo.systemUptime) {
        guard rate > 0 else { return }
        buckets.withLock { buckets in
            if buckets.count >= Self.maxKeys, buckets[address] == nil {
                // Forget addresses that have earned every failure back: they behave exactly like new ones.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
                if buckets.count >= Self.maxKeys { buckets.removeAll() }
            }
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = max(0, min(burst, bucket.tokens + (now - bucket.updated) * rate) - 1)
            bucket.updated = now
            buckets[address] = bucket
        }
    }
}
