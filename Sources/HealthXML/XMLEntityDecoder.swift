#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// Decodes the references an XML attribute value may contain, and nothing else.
///
/// Only the five predefined entities (`&lt; &gt; &amp; &quot; &apos;`) and numeric character references
/// (`&#10;`, `&#x2019;`) are decoded, the latter to UTF-8. Every other `&…;` sequence — an unknown entity, or one
/// declared in the document's DTD — is kept literally: nothing is ever expanded, so a "billion laughs" document costs
/// exactly as much as its size. A numeric reference that does not name a Unicode scalar (`&#0;`, `&#xD800;`,
/// `&#x110000;`) is kept literally as well.
///
/// Decoding never makes a value longer (the shortest reference, `&#9;`, is 4 bytes and the longest UTF-8 sequence
/// is 4 bytes), so an output buffer as large as the input always suffices.
///
/// ```swift
/// let raw: [UInt8] = Array("Alex&#x2019;s &lt;Watch&gt; &foo;".utf8)
/// let text = raw.withUnsafeBytes { XMLEntityDecoder.decodedString($0) }
/// // "Alex’s <Watch> &foo;"
/// ```
public enum XMLEntityDecoder {
    /// Whether `bytes` contains an `&`, i.e. whether decoding could change it.
    @inlinable
    public static func containsReference(_ bytes: UnsafeRawBufferPointer) -> Bool {
        _firstAmpersand(bytes, from: 0) != nil
    }

    /// Decodes `input` into `output` and returns the number of bytes written.
    ///
    /// - Precondition: `output.count >= input.count`.
    public static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        precondition(output.count >= input.count, "XMLEntityDecoder.decode: output buffer too small")
        guard let src = input.baseAddress, let dst = output.baseAddress, input.count > 0 else { return 0 }
        let count = input.count
        var read = 0
        var written = 0
        while read < count {
            guard let amp = _firstAmpersand(input, from: read) else {
                (dst + written).copyMemory(from: src + read, byteCount: count - read)
                written += count - read
                break
            }
            if amp > read {
                (dst + written).copyMemory(from: src + read, byteCount: amp - read)
                written += amp - read
            }
            let reference = _reference(input, at: amp)
            if reference.length > 0, let scalar = reference.scalar {
                written += _writeUTF8(scalar, to: dst + written)
                read = amp + reference.length
            } else {
                dst.storeBytes(of: UInt8(ascii: "&"), toByteOffset: written, as: UInt8.self)
                written += 1
                read = amp + 1
            }
        }
        return written
    }

    /// Decodes `input` into a new `String` (invalid UTF-8 is repaired with U+FFFD).
    public static func decodedString(_ input: UnsafeRawBufferPointer) -> String {
        guard containsReference(input) else { return String(decoding: input, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: input.count) { buffer in
            decode(input, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// The index of the first `&#` that does not start a well-formed reference to a valid XML character
    /// (`Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`), or `nil`.
    ///
    /// Named references, known or not, are not checked.
    public static func firstInvalidCharacterReference(in input: UnsafeRawBufferPointer) -> Int? {
        var from = 0
        while let amp = _firstAmpersand(input, from: from) {
            if amp + 1 < input.count, input[amp + 1] == UInt8(ascii: "#") {
                let reference = _reference(input, at: amp)
                guard reference.length > 0, let scalar = reference.scalar, _isXMLCharacter(scalar) else { return amp }
            }
            from = amp + 1
        }
        return nil
    }

    // MARK: - Internals

    @usableFromInline
    static func _firstAmpersand(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count else { return nil }
        guard let hit = memchr(base + start, Int32(UInt8(ascii: "&")), bytes.count - start) else { return nil }
        return UnsafeRawPointer(hit) - base
    }

    /// Parses the reference starting with the `&` at `index`.
    /// Returns its length (0 when this is not a reference) and its scalar value when it decodes to one.
    static func _reference(_ bytes: UnsafeRawBufferPointer, at index: Int) -> (length: Int, scalar: UInt32?) {
        let count = bytes.count
        var i = index + 1
        guard i < count else { return (0, nil) }
        if bytes[i] == UInt8(ascii: "#") {
            i += 1
            guard i < count else { return (0, nil) }
            var hex = false
            if bytes[i] == UInt8(ascii: "x") {
                hex = true
                i += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while i < count {
                let b = bytes[i]
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b &- UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(b &- UInt8(ascii: "a") &+ 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(b &- UInt8(ascii: "A") &+ 10)
                default: digit = 16
                }
                if digit == 16 { break }
                // Saturate above the Unicode range so that arbitrarily long runs of digits stay linear and safe.
                value = value > 0x10FFFF ? 0x110000 : value &* (hex ? 16 : 10) &+ digit
                digits += 1
                i += 1
            }
            guard digits > 0, i < count, bytes[i] == UInt8(ascii: ";") else { return (0, nil) }
            let length = i + 1 - index
            let isScalar = (value >= 1 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0x10FFFF)
            return (length, isScalar ? value : nil)
        }
        // Predefined entities: lt; gt; amp; quot; apos;
        func matches(_ name: StaticString) -> Bool {
            let n = name.utf8CodeUnitCount
            guard index + 1 + n < count, bytes[index + 1 + n] == UInt8(ascii: ";") else { return false }
            let start = name.utf8Start
            for k in 0..<n where bytes[index + 1 + k] != start[k] { return false }
            return true
        }
        switch bytes[i] {
        case UInt8(ascii: "l"): if matches("lt") { return (4, 0x3C) }
        case UInt8(ascii: "g"): if matches("gt") { return (4, 0x3E) }
        case UInt8(ascii: "a"):
            if matches("amp") { return (5, 0x26) }
            if matches("apos") { return (6, 0x27) }
        case UInt8(ascii: "q"): if matches("quot") { return (6, 0x22) }
        default: break
        }
        return (0, nil)
    }

    static func _isXMLCharacter(_ v: UInt32) -> Bool {
        v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD)
            || (v >= 0x10000 && v <= 0x10FFFF)
    }

    static func _writeUTF8(_ v: UInt32, to dst: UnsafeMutableRawPointer) -> Int {
        if v < 0x80 {
            dst.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
            return 1
        } else if v < 0x800 {
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0xC0 | (v >> 6)), as: UInt8.self)
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0x80 | (v & 0x3F)), toByteOffset: 1, as: UInt8.self)
            return 2
        } else if v < 0x10000 {
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0xE0 | (v >> 12)), as: UInt8.self)
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0x80 | ((v >> 6) & 0x3F)), toByteOffset: 1, as: UInt8.self)
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0x80 | (v & 0x3F)), toByteOffset: 2, as: UInt8.self)
            return 3
        } else {
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0xF0 | (v >> 18)), as: UInt8.self)
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0x80 | ((v >> 12) & 0x3F)), toByteOffset: 1, as: UInt8.self)
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0x80 | ((v >> 6) & 0x3F)), toByteOffset: 2, as: UInt8.self)
            dst.storeBytes(of: UInt8(truncatingIfNeeded: 0x80 | (v & 0x3F)), toByteOffset: 3, as: UInt8.self)
            return 4
        }
    }
}
