/// Conversions of a `Double` that came from outside (a payload, a file, a request) to an integer, which never trap:
/// Swift's `Int64(_:)` of a non-finite or too large `Double` stops the process, so every number from input goes
/// through these instead. CI refuses a bare `Int(`/`Int64(` of a `Double` in the ingest, import and wire targets
/// (`scripts/check-conversions.sh`).
///
/// ```swift
/// (1e300).checkedInt64()            // nil
/// (12.6).checkedInt64()             // 13
/// (Double.nan).checkedInt()         // nil
/// (3.9e18).clampedInt64()           // 3_900_000_000_000_000_000
/// (1e300).clampedInt64()            // Int64.max
/// ```
extension Double {
    /// `2^63`, exactly representable: the first `Double` that no `Int64` holds.
    private static let int64Bound = 9_223_372_036_854_775_808.0

    /// The value rounded by `rule` as an `Int64`, or nil when it is not finite or outside `Int64`'s range.
    public func checkedInt64(rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64? {
        let whole = rounded(rule)
        guard whole.isFinite, whole >= -Self.int64Bound, whole < Self.int64Bound else { return nil }
        return Int64(whole)
    }

    /// The value rounded by `rule` as an `Int`, or nil when it is not finite or outside `Int`'s range.
    public func checkedInt(rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int? {
        checkedInt64(rounding: rule).flatMap { Int(exactly: $0) }
    }

    /// The value rounded by `rule` as an `Int64`, held to `Int64`'s range (NaN is 0): for readers that must show
    /// something for any stored value and never stop.
    public func clampedInt64(rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64 {
        if isNaN { return 0 }
        return checkedInt64(rounding: rule) ?? (self < 0 ? .min : .max)
    }

    /// As ``clampedInt64(rounding:)``, as an `Int`.
    public func clampedInt(rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        Int(clamping: clampedInt64(rounding: rule))
    }
}
