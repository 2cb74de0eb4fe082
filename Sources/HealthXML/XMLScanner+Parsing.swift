#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

// Byte-level primitives and the start/end tag parsers used by `XMLScanner`.
//
// The tag parsers work on contiguous bytes: the chunk being fed (hot path) or the scanner's carry-over buffer when a
// tag straddles chunks. Both paths must agree byte for byte, which holds because:
//  - a tag ends at the first `>` outside quotes or at the first `<` (in or out of quotes) — `_frameTag` — and
//  - the parser either completes exactly at that `>`, or reports a problem at a position no further than it, from
//    which the content scan looks for the next `<`; no `<` can lie in between.

let _lessThan: UInt8 = 0x3C  // <
let _greaterThan: UInt8 = 0x3E  // >

@inline(__always)
func _isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D
}

/// Bytes that end a name: whitespace, `"`, `'`, `/`, `<`, `=`, `>`. Anything else is accepted in a name (lenient).
@inline(__always)
func _isNameTerminator(_ b: UInt8) -> Bool {
    let mask: UInt64 =
        (1 << 0x09) | (1 << 0x0A) | (1 << 0x0D) | (1 << 0x20) | (1 << 0x22) | (1 << 0x27) | (1 << 0x2F)
        | (1 << 0x3C) | (1 << 0x3D) | (1 << 0x3E)
    return b < 64 && (mask >> UInt64(b)) & 1 != 0
}

/// `[A-Za-z_:]` or any non-ASCII byte.
@inline(__always)
func _isNameStart(_ b: UInt8) -> Bool {
    let lower = b | 0x20
    return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || b == UInt8(ascii: "_")
        || b == UInt8(ascii: ":") || b >= 0x80
}

/// Counts `\n` bytes (vectorised by the optimiser).
@inline(__always)
func _countNewlines(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int {
    var total = 0
    var i = 0
    while i < count {
        total &+= p[i] == 0x0A ? 1 : 0
        i &+= 1
    }
    return total
}

/// The first `byte` in `start..<end`, or `end`. Short distances (text between tags) are probed inline before
/// handing over to `memchr`.
@inline(__always)
func _findByte(_ byte: UInt8, _ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
    var p = start
    let probeEnd = end - p > 16 ? p + 16 : end
    while p < probeEnd {
        if p.pointee == byte { return p }
        p += 1
    }
    guard p < end, let hit = memchr(p, Int32(byte), end - p) else { return end }
    return UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
}

/// The first `quote` or `<` in `start..<end`, or `end` — eight bytes at a time.
@inline(__always)
func _findQuoteOrLessThan(
    _ start: UnsafePointer<UInt8>,
    _ end: UnsafePointer<UInt8>,
    _ quote: UInt8
) -> UnsafePointer<UInt8> {
    var p = start
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quotes = ones &* UInt64(quote)
    let lessThans = ones &* UInt64(_lessThan)
    while end - p >= 8 {
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let a = word ^ quotes
        let b = word ^ lessThans
        // A zero byte in `a` or `b` is a match. The lowest flagged byte is always a true match.
        let found = (((a &- ones) & ~a) | ((b &- ones) & ~b)) & highs
        if found != 0 { return p + (found.trailingZeroBitCount &>> 3) }
        p += 8
    }
    while p < end {
        let b = p.pointee
        if b == quote || b == _lessThan { return p }
        p += 1
    }
    return end
}

/// Scans tag bytes for the end of the tag: the first `>` outside quotes, or the first `<` anywhere.
/// Returns its position, or `nil` (with `quote` updated) when `start..<end` ends first.
@inline(__always)
func _frameTag(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ quote: inout UInt8) -> UnsafePointer<UInt8>? {
    var p = start
    var q = quote
    while p < end {
        let b = p.pointee
        if b == _lessThan {
            quote = q
            return p
        }
        if q != 0 {
            if b == q { q = 0 }
        } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
            q = b
        } else if b == _greaterThan {
            quote = q
            return p
        }
        p += 1
    }
    quote = q
    return nil
}

// MARK: - Markup classification

enum _MarkupKind {
    case needMore
    case startTag
    case endTag
    case comment
    case processingInstruction
    case cdata
    case doctype
    case declaration
    case invalid
}

/// Classifies the markup starting with the `<` at `p`. `length` is the length of the recognised prefix.
@inline(__always)
func _classifyMarkup(_ p: UnsafePointer<UInt8>, _ available: Int) -> (kind: _MarkupKind, length: Int) {
    guard available >= 2 else { return (.needMore, 0) }
    let b = p[1]
    if _isNameStart(b) { return (.startTag, 1) }
    if b == UInt8(ascii: "/") { return (.endTag, 2) }
    if b == UInt8(ascii: "?") { return (.processingInstruction, 2) }
    guard b == UInt8(ascii: "!") else { return (.invalid, 1) }
    guard available >= 3 else { return (.needMore, 0) }
    switch p[2] {
    case UInt8(ascii: "-"):
        guard available >= 4 else { return (.needMore, 0) }
        return p[3] == UInt8(ascii: "-") ? (.comment, 4) : (.declaration, 2)
    case UInt8(ascii: "["):
        return _matchMarkupPrefix(p, available, "<![CDATA[", .cdata)
    case UInt8(ascii: "D"):
        return _matchMarkupPrefix(p, available, "<!DOCTYPE", .doctype)
    default:
        return (.declaration, 2)
    }
}

@inline(__always)
func _matchMarkupPrefix(
    _ p: UnsafePointer<UInt8>,
    _ available: Int,
    _ prefix: StaticString,
    _ kind: _MarkupKind
) -> (kind: _MarkupKind, length: Int) {
    let length = prefix.utf8CodeUnitCount
    let start = prefix.utf8Start
    let checked = min(length, available)
    for k in 0..<checked where p[k] != start[k] { return (.declaration, 2) }
    return checked < length ? (.needMore, 0) : (kind, length)
}

// MARK: - Tag parsing

enum _TagProblem: UInt8 {
    case expectedAttributeName
    case expectedEquals
    case expectedQuote
    case unterminatedValue
    case unexpectedLessThan
    case expectedGreaterThanAfterSlash
    case expectedEndTagName
    case expectedGreaterThanInEndTag
    case unexpectedEnd

    var kind: XMLScanError.Kind {
        self == .unterminatedValue ? .unterminatedAttribute : .malformedTag
    }

    var text: String {
        switch self {
        case .expectedAttributeName: return "expected an attribute name, '>' or '/>'"
        case .expectedEquals: return "expected '=' after attribute name"
        case .expectedQuote: return "attribute value is not quoted"
        case .unterminatedValue: return "attribute value not terminated before '<'"
        case .unexpectedLessThan: return "unexpected '<' inside tag"
        case .expectedGreaterThanAfterSlash: return "expected '>' after '/'"
        case .expectedEndTagName: return "expected a name after '</'"
        case .expectedGreaterThanInEndTag: return "expected '>' after end tag name"
        case .unexpectedEnd: return "unexpected end of tag"
        }
    }
}

struct _TagResult {
    enum Outcome {
        case complete
        case incomplete
        case malformed
        case needsAttributeSlots
    }

    var outcome: Outcome
    /// `.complete`: the tag's length (through `>`); `.malformed`: where to resume scanning, relative to the tag.
    var length: Int = 0
    var nameLength: Int = 0
    var attributeCount: Int = 0
    var isSelfClosing: Bool = false
    var problem: _TagProblem = .unexpectedEnd

    static var incomplete: _TagResult { _TagResult(outcome: .incomplete) }
    static var needsAttributeSlots: _TagResult { _TagResult(outcome: .needsAttributeSlots) }

    @inline(__always)
    static func malformed(_ problem: _TagProblem, resume: Int, nameLength: Int) -> _TagResult {
        _TagResult(outcome: .malformed, length: resume, nameLength: nameLength, problem: problem)
    }
}

/// Parses a start tag. `tag[0]` is `<` and `tag[1]` a name-start byte (checked by the caller).
@inline(__always)
func _parseStartTag(
    _ tag: UnsafePointer<UInt8>,
    _ end: UnsafePointer<UInt8>,
    _ spans: UnsafeMutablePointer<_AttributeSpan>,
    _ spanCapacity: Int
) -> _TagResult {
    var p = tag + 2
    while p < end && !_isNameTerminator(p.pointee) { p += 1 }
    if p >= end { return .incomplete }
    let nameLength = p - tag - 1
    var count = 0
    while true {
        while p < end && _isSpace(p.pointee) { p += 1 }
        if p == end { return .incomplete }
        var b = p.pointee
        if b == _greaterThan {
            return _TagResult(outcome: .complete, length: p + 1 - tag, nameLength: nameLength, attributeCount: count)
        }
        if b == UInt8(ascii: "/") {
            if p + 1 == end { return .incomplete }
            if p[1] == _greaterThan {
                return _TagResult(
                    outcome: .complete,
                    length: p + 2 - tag,
                    nameLength: nameLength,
                    attributeCount: count,
                    isSelfClosing: true
                )
            }
            return .malformed(.expectedGreaterThanAfterSlash, resume: p + 1 - tag, nameLength: nameLength)
        }
        if _isNameTerminator(b) {
            return .malformed(
                b == _lessThan ? .unexpectedLessThan : .expectedAttributeName,
                resume: p - tag,
                nameLength: nameLength
            )
        }
        // Attribute name.
        let attributeNameStart = p
        p += 1
        while p < end && !_isNameTerminator(p.pointee) { p += 1 }
        var attributeNameEnd = p
        while true {
            while p < end && _isSpace(p.pointee) { p += 1 }
            if p == end { return .incomplete }
            b = p.pointee
            if b == UInt8(ascii: "=") { break }
            if _isNameTerminator(b) {
                return .malformed(
                    b == _lessThan ? .unexpectedLessThan : .expectedEquals,
                    resume: p - tag,
                    nameLength: nameLength
                )
            }
            // Lenient: a name made of several words, as in some old exports (`Health Mate App Version="2.6.0"`).
            p += 1
            while p < end && !_isNameTerminator(p.pointee) { p += 1 }
            attributeNameEnd = p
        }
        p += 1
        while p < end && _isSpace(p.pointee) { p += 1 }
        if p == end { return .incomplete }
        let quote = p.pointee
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            return .malformed(
                quote == _lessThan ? .unexpectedLessThan : .expectedQuote,
                resume: p - tag,
                nameLength: nameLength
            )
        }
        p += 1
        let valueStart = p
        p = _findQuoteOrLessThan(p, end, quote)
        if p == end { return .incomplete }
        if p.pointee == _lessThan {
            return .malformed(.unterminatedValue, resume: p - tag, nameLength: nameLength)
        }
        if count == spanCapacity { return .needsAttributeSlots }
        spans[count] = _AttributeSpan(
            nameStart: UInt32(truncatingIfNeeded: attributeNameStart - tag),
            nameLength: UInt32(truncatingIfNeeded: attributeNameEnd - attributeNameStart),
            valueStart: UInt32(truncatingIfNeeded: valueStart - tag),
            valueLength: UInt32(truncatingIfNeeded: p - valueStart)
        )
        count += 1
        p += 1
        // Lenient: no whitespace required before the next attribute.
    }
}

/// Parses an end tag. `tag[0...1]` is `</`.
@inline(__always)
func _parseEndTag(_ tag: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> _TagResult {
    var p = tag + 2
    if p >= end { return .incomplete }
    guard _isNameStart(p.pointee) else {
        return .malformed(.expectedEndTagName, resume: 2, nameLength: 0)
    }
    p += 1
    while p < end && !_isNameTerminator(p.pointee) { p += 1 }
    let nameLength = p - tag - 2
    while p < end && _isSpace(p.pointee) { p += 1 }
    if p == end { return .incomplete }
    if p.pointee == _greaterThan {
        return _TagResult(outcome: .complete, length: p + 1 - tag, nameLength: nameLength)
    }
    return .malformed(.expectedGreaterThanInEndTag, resume: p - tag, nameLength: nameLength)
}
