import Foundation
import Synchronization

/// A token bucket per key (a client id, or an address for unauthenticated requests): `rate` requests per second
/// with bursts of up to `burst`. A rate of 0 disables limiting. The export API uses one per client for requests
/// (``check(_:now:)``) and one per address for failed authentications (``charge(_:now:)`` on each failure,
/// ``retryAfter(_:now:)`` before looking a token up).
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

    /// Takes a token for `key` when one is left.
    public func check(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Decision {
        guard rate > 0 else { return .allowed }
        return buckets.withLock { buckets in
            var bucket = refilled(&buckets, key, now: now)
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return .allowed
            }
            return .limited(retryAfter: retryAfter(bucket))
        }
    }

    /// Seconds until `key` has a token again, or nil when it has one now. Takes nothing.
    public func retryAfter(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        guard rate > 0 else { return nil }
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            return tokens >= 1 ? nil : retryAfter(Bucket(tokens: tokens, updated: now))
        }
    }

    /// Takes a token for `key` whether or not one is left (the count never goes below zero): counting failures.
    public func charge(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) {
        guard rate > 0 else { return }
        buckets.withLock { buckets in
            var bucket = refilled(&buckets, key, now: now)
            bucket.tokens = max(0, bucket.tokens - 1)
            buckets[key] = bucket
        }
    }

    /// The bucket of `key` refilled up to `now`; makes room when too many keys are kept.
    private func refilled(_ buckets: inout [String: Bucket], _ key: String, now: Double) -> Bucket {
        if buckets.count >= Self.maxKeys, buckets[key] == nil {
            // Forget buckets that have refilled: they behave exactly like new ones.
            buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
            if buckets.count >= Self.maxKeys { buckets.removeAll() }
        }
        var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        return bucket
    }

    private func retryAfter(_ bucket: Bucket) -> Int {
        max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
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
