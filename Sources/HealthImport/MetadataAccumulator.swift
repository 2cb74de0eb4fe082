import HealthModel
import HealthStore
import HealthXML

/// A record's metadata entries, gathered as the `MetadataEntry` children are read and written once, at the end of
/// the record, as the store's JSON object (``MetadataCoding``'s format: sorted keys, the last of equal keys wins).
///
/// Values are JSON-escaped straight from the file's bytes into one reused buffer: no string or dictionary per entry.
/// The time zone (`HKTimeZone`) and sync identifier are also kept as plain text, for their own columns.
struct MetadataAccumulator {
    private var keys: [String] = []
    /// Each entry's value as a JSON string literal, in `literals`.
    private var values: [Range<Int>] = []
    private var literals: [UInt8] = []
    /// Decoded text of the special keys, in `plain`.
    private var timeZone: Range<Int>?
    private var syncIdentifier: Range<Int>?
    private var plain: [UInt8] = []
    private var syncVersion: Int64 = .min
    private var order: [Int] = []

    var isEmpty: Bool { keys.isEmpty }

    mutating func reset() {
        guard !keys.isEmpty else { return }
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        literals.removeAll(keepingCapacity: true)
        plain.removeAll(keepingCapacity: true)
        timeZone = nil
        syncIdentifier = nil
        syncVersion = .min
    }

    /// Adds an entry from a `MetadataEntry`'s `value` attribute (a missing value is an empty string).
    mutating func add(key: String, value: XMLAttributeValue?) {
        if let value {
            value.withDecodedBytes { add(key: key, bytes: $0) }
        } else {
            add(key: key, bytes: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    mutating func add(key: String, string: String) {
        var string = string
        string.withUTF8 { add(key: key, bytes: UnsafeRawBufferPointer($0)) }
    }

    private mutating func add(key: String, bytes: UnsafeRawBufferPointer) {
        let start = literals.count
        MetadataCoding.appendQuoted(bytes, to: &literals)
        keys.append(key)
        values.append(start..<literals.count)
        if key == MetadataKey.timeZone {
            timeZone = keepPlain(bytes)
        } else if key == MetadataKey.syncIdentifier {
            syncIdentifier = keepPlain(bytes)
        } else if key == MetadataKey.syncVersion {
            syncVersion = Self.integer(bytes).map(Int64.init) ?? .min
        }
    }

    private mutating func keepPlain(_ bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        guard !bytes.isEmpty else { return nil }
        let start = plain.count
        plain.append(contentsOf: bytes)
        return start..<plain.count
    }

    /// `Int(string)`: an optional sign and ASCII digits, nothing else.
    private static func integer(_ bytes: UnsafeRawBufferPointer) -> Int? {
        Int(String(decoding: bytes, as: UTF8.self))
    }

    /// Writes the entries into `batch`'s text and fills the row's metadata, time zone and sync columns.
    mutating func write(into batch: inout SampleBatch, row: inout SampleBatch.Row) {
        guard !keys.isEmpty else { return }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: keys.indices)
        if keys.count > 1 {
            // Stable: equal keys keep their file order, so that the last one can win below.
            order.sort { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
        }
        row.metadata = batch.writeText { buffer in
            buffer.append(UInt8(ascii: "{"))
            var first = true
            for (position, index) in order.enumerated() {
                if position + 1 < order.count, keys[order[position + 1]] == keys[index] { continue }
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                MetadataCoding.appendQuoted(keys[index], to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                buffer.append(contentsOf: literals[values[index]])
            }
            buffer.append(UInt8(ascii: "}"))
        }
        plain.withUnsafeBytes { plain in
            if let timeZone { row.timeZone = batch.appendText(UnsafeRawBufferPointer(rebasing: plain[timeZone])) }
            if let syncIdentifier {
                row.syncIdentifier = batch.appendText(UnsafeRawBufferPointer(rebasing: plain[syncIdentifier]))
                row.syncVersion = syncVersion
            }
        }
    }
}
