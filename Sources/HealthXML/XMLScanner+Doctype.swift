// Skipping `<!DOCTYPE …>` without interpreting it.
//
// Apple Health exports start with an inline DTD. It is never needed (data lives in attributes; entities other than the
// predefined ones are never expanded), and it is sometimes broken: iOS 16 exports leave `<!ATTLIST VisionPrescription`
// unclosed, which makes expat and ElementTree fail. The skipper is a small byte-at-a-time state machine (DTDs are a
// few kilobytes) that needs no buffering, works across any chunk split, and:
//  - honours quoted strings and comments / processing instructions inside the internal subset, so `]`, `>` or `<`
//    inside them do not end anything;
//  - treats a `<` met inside a declaration as the start of the next declaration (the unclosed-ATTLIST case), and a
//    `]` met inside a declaration as the end of the subset;
//  - ends the DOCTYPE at `]` + optional whitespace + `>`;
//  - if the subset is never closed, stops at the first `<` followed by a name (the root element), reporting
//    `malformedDoctype`, and scans that element normally;
//  - bounds the DOCTYPE by `maximumTagSize`: at that many bytes it reports `tooLarge` and from there on only looks
//    for the first element tag.

extension XMLScanner {
    enum _DoctypePhase: UInt8, Sendable {
        /// After `<!DOCTYPE`, before `[` or `>`.
        case head
        /// In the internal subset, between declarations.
        case subset
        /// Inside `<!ELEMENT …`, `<!ATTLIST …`, `<!ENTITY …` (quotes honoured).
        case declaration
        case lessThan
        case bang
        case bangDash
        case comment
        case processingInstruction
        /// After the `]` that closes the subset, waiting for `>`.
        case afterBracket
        /// Past the size limit: only looking for an element tag.
        case overflow
        case overflowLessThan
    }

    struct _DoctypeState: Sendable {
        var phase: _DoctypePhase = .head
        var quote: UInt8 = 0
        var run: UInt8 = 0
    }

    mutating func _continueDoctype(
        _ base: UnsafePointer<UInt8>,
        _ start: Int,
        _ count: Int,
        _ state: _DoctypeState,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        var d = state
        var i = start
        // The first index past the size limit, applied at that exact position whatever the chunking.
        let limit = self._tokenOffset + self._maximumTagSize - self.bytesConsumed
        while i < count {
            if i == limit && d.phase != .overflow && d.phase != .overflowLessThan {
                d.phase = d.phase == .lessThan ? .overflowLessThan : .overflow
                self._state = .doctype(d)
                try self._reportTooLarge(handler)
            }
            let b = base[i]
            switch d.phase {
            case .head:
                if d.quote != 0 {
                    if b == d.quote { d.quote = 0 }
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    d.quote = b
                } else if b == UInt8(ascii: "[") {
                    d.phase = .subset
                } else if b == _greaterThan {
                    self._state = .content
                    return i + 1
                } else if b == _lessThan {
                    self._state = .content
                    try self._report(
                        .malformedDoctype,
                        self._tokenOffset,
                        self._tokenLine,
                        "DOCTYPE declaration not closed by '>'",
                        handler
                    )
                    return i
                }
            case .subset:
                if b == UInt8(ascii: "]") {
                    d.phase = .afterBracket
                } else if b == _lessThan {
                    d.phase = .lessThan
                    self._recordLessThan(base, i)
                }
            case .declaration:
                if d.quote != 0 {
                    if b == d.quote { d.quote = 0 }
                } else {
                    switch b {
                    case UInt8(ascii: "\""), UInt8(ascii: "'"):
                        d.quote = b
                    case _greaterThan:
                        d.phase = .subset
                    case _lessThan:
                        // The declaration was never closed (iOS 16 `<!ATTLIST VisionPrescription`): a new one starts.
                        d.phase = .lessThan
                        self._recordLessThan(base, i)
                    case UInt8(ascii: "]"):
                        d.phase = .afterBracket
                    default:
                        break
                    }
                }
            case .lessThan:
                if b == UInt8(ascii: "!") {
                    d.phase = .bang
                } else if b == UInt8(ascii: "?") {
                    d.phase = .processingInstruction
                    d.run = 0
                } else if _isNameStart(b) {
                    return try self._leaveDoctype(base, i, reporting: true, handler)
                } else {
                    d.phase = .subset
                    continue
                }
            case .bang:
                if b == UInt8(ascii: "-") {
                    d.phase = .bangDash
                } else {
                    d.phase = .declaration
                    d.quote = 0
                    continue
                }
            case .bangDash:
                if b == UInt8(ascii: "-") {
                    d.phase = .comment
                    d.run = 0
                } else {
                    d.phase = .declaration
                    d.quote = 0
                    continue
                }
            case .comment:
                if b == UInt8(ascii: "-") {
                    d.run = min(d.run + 1, 2)
                } else if b == _greaterThan && d.run >= 2 {
                    d.phase = .subset
                } else {
                    d.run = 0
                }
            case .processingInstruction:
                if b == UInt8(ascii: "?") {
                    d.run = 1
                } else if b == _greaterThan && d.run == 1 {
                    d.phase = .subset
                } else {
                    d.run = 0
                }
            case .afterBracket:
                if b == _greaterThan {
                    self._state = .content
                    return i + 1
                } else if b == _lessThan {
                    d.phase = .lessThan
                    self._recordLessThan(base, i)
                } else if !_isSpace(b) {
                    d.phase = .subset
                    continue
                }
            case .overflow:
                if b == _lessThan {
                    d.phase = .overflowLessThan
                    self._recordLessThan(base, i)
                }
            case .overflowLessThan:
                if _isNameStart(b) {
                    return try self._leaveDoctype(base, i, reporting: false, handler)
                } else if b == _lessThan {
                    self._recordLessThan(base, i)
                } else {
                    d.phase = .overflow
                }
            }
            i += 1
        }
        self._state = .doctype(d)
        return count
    }

    @inline(__always)
    mutating func _recordLessThan(_ base: UnsafePointer<UInt8>, _ i: Int) {
        self._lessThanOffset = self.bytesConsumed + i
        self._lessThanLine = self._line(at: i, base)
    }

    /// Leaves the DOCTYPE at the element whose `<` was recorded last; `i` is the index of its first name byte.
    mutating func _leaveDoctype(
        _ base: UnsafePointer<UInt8>,
        _ i: Int,
        reporting: Bool,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let doctypeOffset = self._tokenOffset
        let doctypeLine = self._tokenLine
        let lessThanIndex = self._lessThanOffset - self.bytesConsumed
        let next: Int
        if lessThanIndex >= 0 {
            // The `<` is in this chunk: the content scan parses the element from there.
            self._state = .content
            next = lessThanIndex
        } else {
            // The `<` ended the previous chunk: carry it over.
            var lessThan = _lessThan
            self._storage.pendingCount = 0
            self._storage.appendPending(&lessThan, 1)
            self._tokenOffset = self._lessThanOffset
            self._tokenLine = self._lessThanLine
            self._state = .pendingTag(quote: 0)
            next = i
        }
        if reporting {
            try self._report(
                .malformedDoctype,
                doctypeOffset,
                doctypeLine,
                "DOCTYPE internal subset not closed by ']>'; resuming at the first element",
                handler
            )
        }
        return next
    }
}
