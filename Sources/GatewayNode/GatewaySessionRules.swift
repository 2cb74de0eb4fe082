import Foundation

/// The limits a gateway's numbers are held to before they become delays, and the frames each handshake phase
/// accepts. A gateway (or whoever answers at its address) is not trusted to send sane numbers: every delay it asks
/// for is clamped, and every conversion from a JSON number is checked, so no value can trap the process.
public enum GatewaySessionRules {
    /// The longest `retryAfterMs` / `restartExpectedMs` honoured: beyond it the node retries after an hour anyway.
    public static let maxRetryDelayMs = 3_600_000
    /// `tickIntervalMs` is held to 100 ms … 10 min.
    public static let tickIntervalRangeMs = 100...600_000
    /// An invoke's `timeoutMs` is held to 1 ms … 10 min.
    public static let invokeTimeoutRangeMs = 1...600_000

    /// `value` as an Int64, clamped to Int64's range; NaN becomes 0. Never traps, unlike `Int64(_:)`.
    public static func int64(clamping value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }

    /// `value` as an Int, clamped to Int's range; NaN becomes 0.
    public static func int(clamping value: Double) -> Int {
        Int(truncatingIfNeeded: int64(clamping: value))
    }

    /// A delay in milliseconds the gateway asked for, held to 0 … ``maxRetryDelayMs``.
    public static func retryDelayMs(_ value: Int) -> Int {
        min(max(0, value), maxRetryDelayMs)
    }

    /// A delay in milliseconds scaled by a factor (jitter), held to 0 … ``maxRetryDelayMs`` whatever the inputs.
    public static func scaledDelayMs(_ value: Double, factor: Double) -> Int64 {
        let product = value * factor
        guard product.isFinite else { return product.isNaN ? 0 : Int64(maxRetryDelayMs) }
        return Int64(min(max(0, product), Double(maxRetryDelayMs)))
    }

    /// The phases of one connection's handshake.
    public enum Phase: Sendable, Equatable {
        /// The socket is open; only `connect.challenge` is meaningful.
        case awaitingChallenge
        /// `connect` was sent; its answer (or a `shutdown`) is expected.
        case awaitingHello
        /// `hello-ok` received: the session serves invokes.
        case ready
    }

    /// Whether an event is acted on in `phase`; any other is ignored (and logged at debug level).
    public static func accepts(event: String, in phase: Phase) -> Bool {
        switch event {
        case "connect.challenge": return phase == .awaitingChallenge
        case "shutdown": return phase != .awaitingChallenge
        case "tick", "node.invoke.request": return phase == .ready
        default: return false
        }
    }

    /// Whether a request from the gateway is answered in `phase` (before `hello-ok` nothing is).
    public static func acceptsRequests(in phase: Phase) -> Bool { phase == .ready }
}
