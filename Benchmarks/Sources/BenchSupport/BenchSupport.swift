// What every benchmark executable of this package reads and prints with.
import Foundation

/// The value after `name` on the command line, else `value`.
///
/// ```swift
/// let days = Int(argument("--days", default: "365")) ?? 365
/// ```
public func argument(_ name: String, default value: String) -> String {
    let args = CommandLine.arguments
    if let index = args.firstIndex(of: name), index + 1 < args.count { return args[index + 1] }
    return value
}

/// The `p` quantile (0…1) of `values` by the nearest rank below, NaN when there are none.
///
/// ```swift
/// percentile([3, 1, 2], 0.5)   // 2
/// ```
public func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

/// A monotonic clock in milliseconds.
public func milliseconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }
