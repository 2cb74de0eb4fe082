// Views over the bytes of one tag, handed to an `XMLScanner` event handler.
//
// None of these types owns memory: they point into the chunk being scanned (or into the scanner's small carry-over
// buffer) and into the scanner's reusable attribute table. They are valid only during the handler call that received
// them. Copy out what you need (`string`, `int`, `double`, or your own decoding inside `withDecodedBytes`).

/// Where one attribute lies inside its tag (offsets relative to the tag's `<`).
@usableFromInline
struct _AttributeSpan {
    @usableFromInline var nameStart: UInt32
    @usableFromInline var nameLength: UInt32
    @usableFromInline var valueStart: UInt32
    @usableFromInline var valueLength: UInt32

    @inlinable
    init(nameStart: UInt32, nameLength: UInt32, valueStart: UInt32, valueLength: UInt32) {
        self.nameStart = nameStart
        self.nameLength = nameLength
        self.valueStart = valueStart
        self.valueLength = valueLength
    }
}

@inlinable @inline(__always)
func _bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var i = 0
    while count - i >= 8 {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            return false
        }
        i += 8
    }
    while i < count {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}

@inlinable @inline(__always)
func _bytesEqual(_ bytes: UnsafeRawBufferPointer, _ other: StaticString) -> Bool {
    other.withUTF8Buffer { target in
        guard target.count == bytes.count else { return false }
        guard let a = bytes.baseAddress, let b = target.baseAddress else { return true }
        return _bytesEqual(a, UnsafeRawPointer(b), target.count)
    }
}

@inlinable @inline(__always)
func _bytesEqual(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Bool {
    other.withUnsafeBytes { target in
        guard target.count == bytes.count else { return false }
        guard let a = bytes.baseAddress, let b = target.baseAddress else { return true }
        return _bytesEqual(a, b, target.count)
    }
}

// MARK: - XMLName

/// The raw UTF-8 bytes of an element or attribute name, compared without allocating.
///
/// ```swift
/// if element.name == "Record" { … }
/// if element.name.isEqual(to: recordNameBytes) { … }   // [UInt8]
/// ```
public struct XMLName: Equatable, CustomStringConvertible {
    /// The name's bytes; valid only during the handler call.
    public let bytes: UnsafeRawBufferPointer

    @inlinable
    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The length of the name in bytes.
    @inlinable
    public var count: Int { self.bytes.count }

    /// Whether the name is exactly `other` (byte-wise, no allocation).
    @inlinable
    public func isEqual(to other: StaticString) -> Bool {
        _bytesEqual(self.bytes, other)
    }

    /// Whether the name is exactly the UTF-8 bytes `other`.
    @inlinable
    public func isEqual(to other: [UInt8]) -> Bool {
        _bytesEqual(self.bytes, other)
    }

    @inlinable
    public static func == (lhs: XMLName, rhs: XMLName) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        guard let a = lhs.bytes.baseAddress, let b = rhs.bytes.baseAddress else { return true }
        return _bytesEqual(a, b, lhs.bytes.count)
    }

    @inlinable
    public static func == (lhs: XMLName, rhs: StaticString) -> Bool { lhs.isEqual(to: rhs) }

    @inlinable
    public static func != (lhs: XMLName, rhs: StaticString) -> Bool { !lhs.isEqual(to: rhs) }

    @inlinable
    public static func == (lhs: XMLName, rhs: [UInt8]) -> Bool { lhs.isEqual(to: rhs) }

    /// The name as a `String` (allocates).
    public var string: String { String(decoding: self.bytes, as: UTF8.self) }

    public var description: String { self.string }
}

// MARK: - XMLAttributeValue

/// The raw bytes of an attribute value (between the quotes, references not yet decoded), with allocation-free
/// accessors.
///
/// ```swift
/// guard let value = element.attribute(named: "value") else { return }
/// if let quantity = value.double { … }                 // no allocation
/// let unit = element.attribute(named: "unit")?.string   // decoded String
/// value.withDecodedBytes { bytes in … }                // decoded bytes, no heap allocation for short values
/// ```
public struct XMLAttributeValue: CustomStringConvertible {
    /// The raw value bytes; valid only during the handler call.
    public let rawBytes: UnsafeRawBufferPointer

    @inlinable
    init(rawBytes: UnsafeRawBufferPointer) {
        self.rawBytes = rawBytes
    }

    /// Whether the value is empty.
    @inlinable
    public var isEmpty: Bool { self.rawBytes.isEmpty }

    /// Whether the raw value contains an `&` (so decoding may change it).
    @inlinable
    public var containsReferences: Bool { XMLEntityDecoder.containsReference(self.rawBytes) }

    /// The decoded value as a `String` (allocates; invalid UTF-8 is repaired with U+FFFD).
    public var string: String { XMLEntityDecoder.decodedString(self.rawBytes) }

    public var description: String { self.string }

    /// Calls `body` with the decoded value.
    ///
    /// Without an `&` in the value, `body` receives the raw bytes themselves; otherwise the value is decoded into a
    /// temporary buffer (on the stack for short values). The bytes are valid only inside `body`.
    @inlinable
    public func withDecodedBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard self.containsReferences else { return try body(self.rawBytes) }
        return try withUnsafeTemporaryAllocation(byteCount: self.rawBytes.count, alignment: 1) {
            (buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Result in
            let length = XMLEntityDecoder.decode(self.rawBytes, into: buffer)
            return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        }
    }

    /// The value as an `Int`, if it is an optionally signed run of ASCII digits (surrounding spaces allowed) that fits.
    @inlinable
    public var int: Int? {
        if let value = _NumberParser.parseInt(self.rawBytes) { return value }
        guard self.containsReferences else { return nil }
        return self.withDecodedBytes { _NumberParser.parseInt($0) }
    }

    /// The value as a `Double`, if it is a decimal number (`-12`, `4.59`, `.5`, `1e-3`; surrounding spaces allowed).
    ///
    /// Common values are converted exactly without allocating; `inf`, `nan` and hexadecimal forms are rejected.
    @inlinable
    public var double: Double? {
        if let value = _NumberParser.parseDouble(self.rawBytes) { return value }
        guard self.containsReferences else { return nil }
        return self.withDecodedBytes { _NumberParser.parseDouble($0) }
    }

    /// Whether the decoded value equals `other`.
    @inlinable
    public func isEqual(to other: StaticString) -> Bool {
        guard self.containsReferences else { return _bytesEqual(self.rawBytes, other) }
        return self.withDecodedBytes { _bytesEqual($0, other) }
    }

    /// Whether the decoded value equals the UTF-8 bytes `other`.
    @inlinable
    public func isEqual(to other: [UInt8]) -> Bool {
        guard self.containsReferences else { return _bytesEqual(self.rawBytes, other) }
        return self.withDecodedBytes { _bytesEqual($0, other) }
    }

    @inlinable
    public static func == (lhs: XMLAttributeValue, rhs: StaticString) -> Bool { lhs.isEqual(to: rhs) }
}

// MARK: - Attributes

/// One attribute of a start tag.
public struct XMLAttribute {
    /// The attribute's name.
    public let name: XMLName
    /// The attribute's value.
    public let value: XMLAttributeValue

    @inlinable
    init(name: XMLName, value: XMLAttributeValue) {
        self.name = name
        self.value = value
    }
}

/// The attributes of a start tag, in document order.
public struct XMLAttributes: RandomAccessCollection {
    @usableFromInline let _tag: UnsafeRawPointer
    @usableFromInline let _spans: UnsafePointer<_AttributeSpan>
    public let count: Int

    @inlinable
    init(tag: UnsafeRawPointer, spans: UnsafePointer<_AttributeSpan>, count: Int) {
        self._tag = tag
        self._spans = spans
        self.count = count
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { self.count }

    @inlinable
    public subscript(position: Int) -> XMLAttribute {
        precondition(position >= 0 && position < self.count, "XMLAttributes: index out of range")
        let span = self._spans[position]
        return XMLAttribute(
            name: XMLName(bytes: UnsafeRawBufferPointer(start: self._tag + Int(span.nameStart), count: Int(span.nameLength))),
            value: XMLAttributeValue(
                rawBytes: UnsafeRawBufferPointer(start: self._tag + Int(span.valueStart), count: Int(span.valueLength))
            )
        )
    }
}

// MARK: - Elements

/// A start tag (`<Record type="…" …>` or self-closing `<MetadataEntry key="…" value="…"/>`).
///
/// ```swift
/// case .startElement(let element):
///     guard element.name == "Record", let type = element.attribute(named: "type") else { return }
///     if type.isEqual(to: "HKQuantityTypeIdentifierStepCount"), let steps = element.attribute(named: "value")?.double {
///         total += steps
///     }
/// ```
public struct XMLStartElement {
    /// The element name.
    public let name: XMLName
    /// Whether the tag ends with `/>`. No ``XMLEvent/endElement(_:)`` follows such an element unless
    /// ``XMLScanner/Options/reportsEndOfSelfClosingElements`` is set.
    public let isSelfClosing: Bool
    /// Absolute byte offset of the tag's `<`.
    public let offset: Int
    /// 1-based line of the tag's `<`.
    public let line: Int
    /// Nesting depth: 0 for the root element, 1 for its children…
    public let depth: Int
    /// The whole tag, from `<` to `>` included.
    public let rawBytes: UnsafeRawBufferPointer
    /// The number of attributes.
    public let attributeCount: Int
    @usableFromInline let _tag: UnsafeRawPointer
    @usableFromInline let _spans: UnsafePointer<_AttributeSpan>

    @inlinable
    init(
        tag: UnsafeRawPointer,
        length: Int,
        nameLength: Int,
        spans: UnsafePointer<_AttributeSpan>,
        attributeCount: Int,
        isSelfClosing: Bool,
        offset: Int,
        line: Int,
        depth: Int
    ) {
        self._tag = tag
        self._spans = spans
        self.rawBytes = UnsafeRawBufferPointer(start: tag, count: length)
        self.name = XMLName(bytes: UnsafeRawBufferPointer(start: tag + 1, count: nameLength))
        self.attributeCount = attributeCount
        self.isSelfClosing = isSelfClosing
        self.offset = offset
        self.line = line
        self.depth = depth
    }

    /// The attributes in document order.
    @inlinable
    public var attributes: XMLAttributes {
        XMLAttributes(tag: self._tag, spans: self._spans, count: self.attributeCount)
    }

    /// The value of the first attribute called `name`, or `nil` (linear scan, no allocation).
    @inlinable
    public func attribute(named name: StaticString) -> XMLAttributeValue? {
        name.withUTF8Buffer { target in
            self._attribute(named: UnsafeRawBufferPointer(target))
        }
    }

    /// The value of the first attribute whose name is the UTF-8 bytes `name`, or `nil`.
    @inlinable
    public func attribute(named name: [UInt8]) -> XMLAttributeValue? {
        name.withUnsafeBytes { self._attribute(named: $0) }
    }

    @inlinable
    func _attribute(named target: UnsafeRawBufferPointer) -> XMLAttributeValue? {
        let length = target.count
        guard let targetStart = target.baseAddress else {
            // The empty name never matches: attribute names have at least one byte.
            return nil
        }
        for index in 0..<self.attributeCount {
            let span = self._spans[index]
            if Int(span.nameLength) == length, _bytesEqual(self._tag + Int(span.nameStart), targetStart, length) {
                return XMLAttributeValue(
                    rawBytes: UnsafeRawBufferPointer(start: self._tag + Int(span.valueStart), count: Int(span.valueLength))
                )
            }
        }
        return nil
    }
}

/// An end tag (`</Record>`), or the implied end of an element closed by an ancestor's end tag.
public struct XMLEndElement {
    /// The element name.
    public let name: XMLName
    /// Absolute byte offset of the end tag's `<` (for an implied end, of the end tag that closed the element).
    public let offset: Int
    /// 1-based line of that `<`.
    public let line: Int
    /// Nesting depth of the element being closed: 0 for the root.
    public let depth: Int

    @inlinable
    init(name: XMLName, offset: Int, line: Int, depth: Int) {
        self.name = name
        self.offset = offset
        self.line = line
        self.depth = depth
    }
}

// MARK: - Number parsing

@usableFromInline
enum _NumberParser {
    @inlinable @inline(__always)
    static func _isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    @inlinable
    static func _trimmed(_ bytes: UnsafeRawBufferPointer) -> (start: Int, end: Int) {
        var start = 0
        var end = bytes.count
        while start < end, _isSpace(bytes[start]) { start += 1 }
        while end > start, _isSpace(bytes[end - 1]) { end -= 1 }
        return (start, end)
    }

    @inlinable
    static func parseInt(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var (i, end) = _trimmed(bytes)
        guard i < end else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        } else if bytes[i] == UInt8(ascii: "+") {
            i += 1
        }
        guard i < end else { return nil }
        var value = 0
        while i < end {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) =
                negative ? shifted.subtractingReportingOverflow(Int(digit)) : shifted.addingReportingOverflow(Int(digit))
            if o1 || o2 { return nil }
            value = next
            i += 1
        }
        return value
    }

    @inlinable
    static func _powerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// Decimal syntax only: `[+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?`.
    /// Exact (correctly rounded) results: values with ≤ 19 significant digits, a mantissa ≤ 2^53 and a decimal
    /// exponent within ±22 take the exact fast path; anything else falls back to the standard library.
    @inlinable
    static func parseDouble(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let (start, end) = _trimmed(bytes)
        var i = start
        guard i < end else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        } else if bytes[i] == UInt8(ascii: "+") {
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var inexact = false
        var sawDigit = false
        while i < end {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            sawDigit = true
            if significantDigits < 19 {
                if mantissa != 0 || digit != 0 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                }
            } else {
                exponent += 1
                if digit != 0 { inexact = true }
            }
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                sawDigit = true
                if significantDigits < 19 {
                    if mantissa != 0 || digit != 0 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        significantDigits += 1
                    }
                    exponent -= 1
                } else if digit != 0 {
                    inexact = true
                }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var negativeExponent = false
            if i < end, bytes[i] == UInt8(ascii: "-") {
                negativeExponent = true
                i += 1
            } else if i < end, bytes[i] == UInt8(ascii: "+") {
                i += 1
            }
            var e = 0
            var sawExponentDigit = false
            while i < end {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                sawExponentDigit = true
                if e < 100_000 { e = e * 10 + Int(digit) }
                i += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += negativeExponent ? -e : e
        }
        guard i == end else { return nil }
        if mantissa == 0 && !inexact { return negative ? -0.0 : 0.0 }
        if !inexact, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / _powerOfTen(-exponent) : value * _powerOfTen(exponent)
            return negative ? -value : value
        }
        // Rare: long or extreme values. The syntax was validated above, so this never accepts inf/nan/hex.
        return Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }
}
