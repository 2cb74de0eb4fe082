import Foundation
import HealthModel
import HealthStore
import PostgresNIO

/// A batch's rows with their dictionaries resolved to database ids: the columns of one row, for a statement's
/// parameters or a line of `COPY … FROM STDIN` text.
struct RowPlan: Sendable {
    let batch: SampleBatch
    let typeIDs: [Int64]
    let sourceIDs: [Int64]
    let unitIDs: [Int64]

    /// One row's columns, as the `samples` table holds them.
    struct Columns {
        var uuid: UUID
        var typeID: Int64
        var sourceID: Int64
        var start: Double
        var end: Double
        var value: Double?
        var unitID: Int64?
        var created: Double?
        var utcOffset: Int64?
        var timeZone: String?
        var sourceVersion: String?
        var syncID: String?
        var syncVersion: Int64?
        var metadata: String?
    }

    func columns(_ index: Int) -> Columns {
        let row = batch.rows[index]
        var value: Double?
        var unitID: Int64?
        switch row.kind {
        case .quantity:
            value = row.value
            unitID = unitIDs[Int(row.unit)]
        case .category:
            value = Double(row.value.clampedInt64())
        case .none:
            break
        }
        let version = batch.tables.sources[Int(row.source)].version
        let syncID = batch.text(row.syncIdentifier)
        return Columns(uuid: row.uuid, typeID: typeIDs[Int(row.type)], sourceID: sourceIDs[Int(row.source)],
                       start: row.start, end: row.end, value: value, unitID: unitID,
                       created: row.created.isNaN ? nil : row.created,
                       utcOffset: row.utcOffset == .min ? nil : Int64(row.utcOffset),
                       timeZone: batch.text(row.timeZone), sourceVersion: version?.isEmpty == false ? version : nil,
                       syncID: syncID, syncVersion: syncID == nil || row.syncVersion == .min ? nil : row.syncVersion,
                       metadata: batch.text(row.metadata))
    }

    /// Appends row `index` as one line of COPY's text format (tab-separated, `\N` for NULL, text escaped), with
    /// `ord` first: the staging table's column order. Written straight from the batch's buffers into the buffer's
    /// memory (``CopyLineWriter``), without a string per field: building the text was most of a save's time.
    func appendCopyLine(_ index: Int, ord: Int64, to buffer: inout ByteBuffer) {
        let row = batch.rows[index]
        let version = batch.tables.sources[Int(row.source)].version ?? ""
        // Numbers take at most 32 bytes each (15 columns), text at most twice its length once escaped.
        let most = 16 * 32 + 2 * (Int(row.timeZone.count) + Int(row.syncIdentifier.count) + Int(row.metadata.count)
            + version.utf8.count)
        _ = batch.text.withUnsafeBytes { text in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: most) { out in
                guard let base = out.baseAddress else { return 0 }
                var line = CopyLineWriter(base.assumingMemoryBound(to: UInt8.self))
                line.integer(ord)
                line.tab()
                line.uuid(row.uuid)
                line.tab()
                line.integer(typeIDs[Int(row.type)])
                line.tab()
                line.integer(sourceIDs[Int(row.source)])
                line.tab()
                line.double(row.start)
                line.tab()
                line.double(row.end)
                line.tab()
                switch row.kind {
                case .quantity:
                    line.double(row.value)
                    line.tab()
                    line.integer(unitIDs[Int(row.unit)])
                case .category:
                    line.integer(row.value.clampedInt64())
                    line.tab()
                    line.null()
                case .none:
                    line.null()
                    line.tab()
                    line.null()
                }
                line.tab()
                if row.created.isNaN { line.null() } else { line.double(row.created) }
                line.tab()
                if row.utcOffset == .min { line.null() } else { line.integer(Int64(row.utcOffset)) }
                line.tab()
                line.escaped(text, row.timeZone)
                line.tab()
                if version.isEmpty { line.null() } else {
                    var version = version
                    version.withUTF8 { line.escaped(UnsafeRawBufferPointer($0)) }
                }
                line.tab()
                line.escaped(text, row.syncIdentifier)
                line.tab()
                if row.syncIdentifier.isEmpty || row.syncVersion == .min { line.null() } else { line.integer(row.syncVersion) }
                line.tab()
                line.escaped(text, row.metadata)
                line.byte(UInt8(ascii: "\n"))
                return line.count
            }
        }
    }

    /// A double as PostgreSQL's `float8` input reads it back exactly (Swift prints the shortest exact form).
    static func text(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }
}

/// Writes one COPY text line into memory the caller sized for it.
struct CopyLineWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func byte(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    mutating func tab() { byte(9) }

    mutating func null() {
        byte(UInt8(ascii: "\\"))
        byte(UInt8(ascii: "N"))
    }

    /// Decimal digits.
    mutating func integer(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 0
        var probe = magnitude
        repeat { digits += 1; probe /= 10 } while probe > 0
        var position = count + digits - 1
        repeat {
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            position -= 1
        } while magnitude > 0
        count += digits
    }

    /// A double as PostgreSQL's `float8` input reads it back exactly: whole numbers below 2^53 as integers, the rest
    /// in Swift's shortest exact form (`NaN`, `Infinity` spelled as PostgreSQL does).
    mutating func double(_ value: Double) {
        if value.isFinite, value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992,
           !(value == 0 && value.sign == .minus) {
            integer(Int64(value))
            return
        }
        var text = RowPlan.text(value)
        text.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// The UUID's 36 characters, lower-case.
    mutating func uuid(_ uuid: UUID) {
        let hex = Self.hex
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for position in 0..<16 {
                if position == 4 || position == 6 || position == 8 || position == 10 { byte(UInt8(ascii: "-")) }
                let value = bytes[position]
                byte(hex[Int(value >> 4)])
                byte(hex[Int(value & 0x0F)])
            }
        }
    }

    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// A range of the batch's text, escaped; `\N` when empty.
    mutating func escaped(_ text: UnsafeRawBufferPointer, _ range: SampleBatch.TextRange) {
        guard !range.isEmpty else { null(); return }
        escaped(UnsafeRawBufferPointer(rebasing: text[Int(range.offset)..<Int(range.offset) + Int(range.count)]))
    }

    /// Bytes escaped as COPY's text format wants (backslash, tab, newline, carriage return); plain runs copied at once.
    mutating func escaped(_ bytes: UnsafeRawBufferPointer) {
        var runStart = 0
        for position in 0..<bytes.count {
            let escape: UInt8
            switch bytes[position] {
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case 9: escape = UInt8(ascii: "t")
            case 10: escape = UInt8(ascii: "n")
            case 13: escape = UInt8(ascii: "r")
            default: continue
            }
            raw(UnsafeRawBufferPointer(rebasing: bytes[runStart..<position]))
            byte(UInt8(ascii: "\\"))
            byte(escape)
            runStart = position + 1
        }
        raw(UnsafeRawBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
}
