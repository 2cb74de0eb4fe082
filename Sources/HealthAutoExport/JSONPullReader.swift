import Foundation
import HealthModel
import HealthXML

/// A small pull reader over JSON bytes: the caller asks for the value it expects next (an object's keys, an array's
/// elements, a string, a number) and skips what it does not want, so a payload of any size is read without building
/// a document tree. Every byte is bounds-checked, nesting is limited, and every failure is a `HealthError`
/// (`HEALTH_INVALID_ARGUMENT`) naming the byte offset — written to be fuzzed.
///
/// ```swift
/// var reader = JSONPullReader(Array(#"{"a": [1, 2]}"#.utf8))
/// try reader.beginObject()
/// while let key = try reader.nextKey() { … }
/// ```
public struct JSONPullReader {
    public enum Kind: Sendable, Equatable { case object, array, string, number, bool, null }

    let bytes: [UInt8]
    var index = 0
    /// True right after `{` or `[`: the next element needs no comma.
    var first = true
    var depth = 0
    static let maxDepth = 64

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var offset: Int { index }

    func error(_ what: String) -> HealthError {
        HealthError(.invalidArgument, "malformed JSON at byte \(index): \(what)")
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The kind of the next value, without reading it.
    public mutating func peek() throws(HealthError) -> Kind {
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw error("unexpected character")
        }
    }

    mutating func expect(_ byte: UInt8) throws(HealthError) {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        index += 1
    }

    public mutating func beginObject() throws(HealthError) {
        try expect(UInt8(ascii: "{"))
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth)") }
        first = true
    }

    public mutating func beginArray() throws(HealthError) {
        try expect(UInt8(ascii: "["))
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth)") }
        first = true
    }

    /// The next key of the current object, or nil after its closing brace.
    public mutating func nextKey() throws(HealthError) -> String? {
        guard try nextMember(closing: UInt8(ascii: "}")) else { return nil }
        let key = try string()
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// The keys a reader looks for in an object, as bytes: ``nextKey(among:)`` matches them without building a
    /// `String` per key.
    public struct KeySet: Sendable {
        public let names: [String]
        let bytes: [[UInt8]]

        public init(_ names: [String]) {
            self.names = names
            bytes = names.map { Array($0.utf8) }
        }
    }

    /// The next key of the current object as its index in `keys` (-1 for any other key), or nil after the
    /// closing brace; the same checks and errors as ``nextKey()``.
    ///
    /// ```swift
    /// let keys = JSONPullReader.KeySet(["date", "qty"])
    /// while let key = try reader.nextKey(among: keys) { key == 1 ? … : try reader.skipValue() }
    /// ```
    public mutating func nextKey(among keys: KeySet) throws(HealthError) -> Int? {
        guard try nextMember(closing: UInt8(ascii: "}")) else { return nil }
        // What string() checks first, with its error.
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected '\"'") }
        let match = try withOptionalStringBytes { raw -> Int in
            for (position, candidate) in keys.bytes.enumerated()
            where candidate.count == raw.count && raw.elementsEqual(candidate) {
                return position
            }
            return -1
        }
        guard let match else { throw error("expected '\"'") }
        try expect(UInt8(ascii: ":"))
        return match
    }

    /// Whether the current array has another element (false after its closing bracket).
    public mutating func nextElement() throws(HealthError) -> Bool {
        try nextMember(closing: UInt8(ascii: "]"))
    }

    mutating func nextMember(closing: UInt8) throws(HealthError) -> Bool {
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        if bytes[index] == closing {
            index += 1
            depth -= 1
            first = false
            return false
        }
        if first {
            first = false
        } else {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or '\(Character(Unicode.Scalar(closing)))'") }
            index += 1
        }
        return true
    }

    public mutating func string() throws(HealthError) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character in a string") }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in a string") }
                scalars.append(byte)
            }
        }
        throw error("unterminated string")
    }

    /// Reads past a string exactly as ``string()`` does — the same checks, the same errors at the same offsets —
    /// without building it.
    mutating func skipString() throws(HealthError) {
        try expect(UInt8(ascii: "\""))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; return }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character in a string") }
            index += 1
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    let code = try hex4()
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                    }
                default:
                    throw error("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in a string") }
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(HealthError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    public mutating func number() throws(HealthError) -> Double {
        skipSpace()
        let start = index
        while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
        guard index > start else { throw error("expected a number") }
        let value = bytes.withUnsafeBytes { raw in
            DecimalText.double(UnsafeRawBufferPointer(rebasing: raw[start..<index]))
        }
        guard let value, value.isFinite else { throw error("invalid number") }
        return value
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
             UInt8(ascii: "e"), UInt8(ascii: "E"): true
        default: false
        }
    }

    mutating func literal(_ text: String) throws(HealthError) {
        let expected = Array(text.utf8)
        guard index + expected.count <= bytes.count else { throw error("unexpected end") }
        for offset in expected.indices where bytes[index + offset] != expected[offset] {
            throw error("invalid literal")
        }
        index += expected.count
    }

    public mutating func bool() throws(HealthError) -> Bool {
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "t") { try literal("true"); return true }
        try literal("false")
        return false
    }

    public mutating func null() throws(HealthError) {
        skipSpace()
        try literal("null")
    }

    /// A finite number, or a string holding one (some exporters quote numbers); nil for null, anything else
    /// (skipped), and for what is not finite: `"inf"`, `"nan"` or `1e999` are no measurement.
    public mutating func lenientNumber() throws(HealthError) -> Double? {
        let value: Double?
        switch try peek() {
        case .number: value = try number()
        case .string: value = Double(try string().trimmingCharacters(in: .whitespaces))
        default: try skipValue(); return nil
        }
        guard let value, value.isFinite else { return nil }
        return value
    }

    /// A string, or nil for anything else (skipped).
    public mutating func optionalString() throws(HealthError) -> String? {
        if try peek() == .string { return try string() }
        try skipValue()
        return nil
    }

    /// Hands the UTF-8 bytes of the next string (escapes resolved) to `body` without building a `String`; nil for
    /// anything else (skipped), as ``optionalString()``.
    ///
    /// ```swift
    /// let date = try reader.withOptionalStringBytes { HAEDate.parse($0) }
    /// ```
    public mutating func withOptionalStringBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(HealthError) -> R? {
        guard try peek() == .string else { try skipValue(); return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        // Escapes (or an error): the general path.
        var text = try string()
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// A string, or nil for anything else (skipped), as ``optionalString()``; when its bytes are those of the last
    /// string read through `cache`, that string is answered again instead of a new one (a payload repeats its
    /// sources on every point: no allocation each).
    ///
    /// ```swift
    /// var sources = JSONPullReader.StringCache()
    /// let source = try reader.optionalString(cache: &sources)
    /// ```
    public mutating func optionalString(cache: inout StringCache) throws(HealthError) -> String? {
        try withOptionalStringBytes { raw in cache.string(raw) }
    }

    /// The last string read through ``optionalString(cache:)`` and its bytes.
    public struct StringCache {
        var bytes: [UInt8] = []
        var last: String?

        public init() {}

        mutating func string(_ raw: UnsafeRawBufferPointer) -> String {
            if let last, raw.count == bytes.count, raw.elementsEqual(bytes) { return last }
            let text = String(decoding: raw, as: UTF8.self)
            bytes = Array(raw)
            last = text
            return text
        }
    }

    /// Reads and discards the next value, checking that it is well-formed.
    public mutating func skipValue() throws(HealthError) {
        switch try peek() {
        case .object:
            try beginObject()
            while try nextMember(closing: UInt8(ascii: "}")) {
                try skipString()
                try expect(UInt8(ascii: ":"))
                try skipValue()
            }
        case .array:
            try beginArray()
            while try nextElement() { try skipValue() }
        case .string: try skipString()
        case .number: _ = try number()
        case .bool: _ = try bool()
        case .null: try null()
        }
    }

    /// Requires that only whitespace is left.
    public mutating func finish() throws(HealthError) {
        skipSpace()
        guard index == bytes.count else { throw error("data after the end of the document") }
    }
}
