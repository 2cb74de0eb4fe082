import Foundation
import Synchronization

/// A token bucket per key (a client id, or an address for unauthenticated requests): `rate` requests per second
/// with bursts of up to `burst`. A rate of 0 disables limiting.
public final class RateLimiter: Sendable {
    public let rate: Double
    public let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    static let maxKeys = 10_000

    struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public init(rate: Double, burst: Double? = nil) {
        self.rate = rate
        self.burst = max(1, burst ?? max(rate, 1))
    }

    public enum Decision: Sendable, Equatable {
        case allowed
        /// Whole seconds until a request would be allowed (at least 1), for `Retry-After`.
        case limited(retryAfter: Int)
    }

    public func check(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Decision {
        guard rate > 0 else { return .allowed }
        return buckets.withLock { buckets in
            if buckets.count >= Self.maxKeys, buckets[key] == nil {
                // Forget buckets that have refilled: they behave exactly like new ones.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
                if buckets.count >= Self.maxKeys { buckets.removeAll() }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                buckets[key] = bucket
                return .allowed
            }
            buckets[key] = bucket
            return .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))))
        }
    }
}

/// Backs off an address that keeps sending wrong pairing codes: after `freeFailures` failures, each further failure
/// doubles a lock-out from `base` up to `maximum`. A success clears the address.
public final class PairingThrottle: Sendable {
    public let freeFailures: Int
    public let base: Double
    public let maximum: Double
    private let entries = Mutex<[String: Entry]>([:])

    struct Entry {
        var failures: Int
        var lockedUntil: Double
    }

    public init(freeFailures: Int = 3, base: Double = 2, maximum: Double = 300) {
        self.freeFailures = freeFailures; self.base = base; self.maximum = maximum
    }

    /// Seconds the address must still wait, or nil.
    public func retryAfter(_ address: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        entries.withLock { entries in
            guard let entry = entries[address], entry.lockedUntil > now else { return nil }
            return max(1, Int((entry.lockedUntil - now).rounded(.up)))
        }
    }

    public func failed(_ address: String, now: Double = ProcessInfo.processInfo.systemUptime) {
        entries.withLock { entries in
            if entries.count > 10_000 { entries = entries.filter { $0.value.lockedUntil > now } }
            var entry = entries[address] ?? Entry(failures: 0, lockedUntil: 0)
            entry.failures += 1
            if entry.failures > freeFailures {
                let exponent = Double(min(entry.failures - freeFailures - 1, 16))
                entry.lockedUntil = now + min(maximum, base * pow(2, exponent))
            }
            entries[address] = entry
        }
    }

    public func succeeded(_ address: String) {
        _ = entries.withLock { $0.removeValue(forKey: address) }
    }
}
