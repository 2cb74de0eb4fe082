import Foundation
import HealthModel

/// The cursor of a page of samples, the same text on every store: the bit pattern of the last sample's start and its
/// change number, base64. A cursor from one store continues the same query on another (after `store copy`).
///
/// ```swift
/// let cursor = SampleCursor.encode(start: 1_700_000_000, seq: 42)
/// SampleCursor.decode(cursor)   // (1_700_000_000, 42)
/// ```
public enum SampleCursor {
    public static func encode(start: Double, seq: Int64) -> String {
        Data("\(start.bitPattern):\(seq)".utf8).base64EncodedString()
    }

    /// Nil for text that is not a cursor.
    public static func decode(_ cursor: String) -> (start: Double, seq: Int64)? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let bits = UInt64(parts[0]), let seq = Int64(parts[1]) else { return nil }
        return (Double(bitPattern: bits), seq)
    }
}

extension Dictionary where Key == Int64, Value == HealthSource {
    /// The IDs, ascending, of the sources whose name or key equals one of `names` (case-insensitive): how a query's
    /// `sources` filter is resolved by every store.
    public func ids(matching names: [String]) -> [Int64] {
        let wanted = Set(names.map { $0.lowercased() })
        return compactMap { id, source in
            wanted.contains(source.name.lowercased()) || wanted.contains(source.key.lowercased()) ? id : nil
        }.sorted()
    }
}
