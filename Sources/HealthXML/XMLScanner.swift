/// A push-based, allocation-light XML tokenizer for Apple Health exports (and other attribute-centric XML).
///
/// Feed it chunks of any size — from a file read loop or a zip entry's decompression callback — and it calls your
/// handler for every start tag, end tag and piece of malformed input completed by that chunk. Tags may straddle
/// chunks anywhere; the scanner keeps only the unfinished tail of the current tag, so memory stays flat whatever the
/// size of the document.
///
/// ```swift
/// var scanner = XMLScanner()
/// var steps = 0.0
/// let handler: (borrowing XMLEvent) throws -> Void = { event in
///     guard case .startElement(let element) = event, element.name == "Record",
///           element.attribute(named: "type")?.isEqual(to: "HKQuantityTypeIdentifierStepCount") == true
///     else { return }
///     steps += element.attribute(named: "value")?.double ?? 0
/// }
/// while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
///     try chunk.withUnsafeBytes { try scanner.feed($0, handler) }
/// }
/// try scanner.finish(handler)   // reports a truncated document
/// ```
///
/// What it does and does not do:
/// - It reports elements and their attributes as raw byte views (``XMLStartElement``), valid only during the handler
///   call: no `String`, no array is allocated per element.
/// - Text content, comments, processing instructions (including the `<?xml …?>` declaration) and CDATA sections are
///   skipped. A UTF-8 byte order mark is skipped; UTF-16 input is reported as ``XMLScanError/Kind/unsupportedEncoding``.
/// - The DOCTYPE and its internal subset are skipped, never interpreted: no entity is ever expanded. Quoted strings
///   and comments inside the subset are honoured; an unclosed declaration (the `<!ATTLIST VisionPrescription` of
///   iOS 16 exports) is tolerated, and a subset never closed with `]>` is left at the first element tag.
/// - Malformed markup is reported as an ``XMLEvent/malformed(_:)`` event; the scanner then resumes at the next `<`.
///   Throw from the handler to stop instead. A tag larger than ``Options/maximumTagSize`` is reported, not buffered.
/// - Every event carries the absolute byte offset and the 1-based line of its start.
///
/// If the handler throws, the error is rethrown and the scanner ignores further input until ``reset()``.
public struct XMLScanner: Sendable {
    /// Limits and behaviour switches.
    public struct Options: Sendable, Hashable {
        /// The largest tag, comment, processing instruction or DOCTYPE accepted, in bytes (default 16 MiB). A larger one
        /// is reported as ``XMLScanError/Kind/tooLarge`` and skipped without being buffered.
        public var maximumTagSize: Int
        /// The deepest element nesting accepted (default 256; Apple Health exports nest 4 deep).
        public var maximumDepth: Int
        /// Whether a self-closing element (`<a/>`) is followed by an ``XMLEvent/endElement(_:)`` event (default `false`:
        /// check ``XMLStartElement/isSelfClosing`` instead).
        public var reportsEndOfSelfClosingElements: Bool
        /// Whether a start tag with an invalid numeric character reference (`&#0;`, `&#xD800;`, `&#12`) in an attribute
        /// value is reported as ``XMLScanError/Kind/invalidCharacterReference`` instead of being delivered (default
        /// `false`: such references are kept literally when decoding).
        public var validatesCharacterReferences: Bool

        public init(
            maximumTagSize: Int = 16 * 1024 * 1024,
            maximumDepth: Int = 256,
            reportsEndOfSelfClosingElements: Bool = false,
            validatesCharacterReferences: Bool = false
        ) {
            self.maximumTagSize = maximumTagSize
            self.maximumDepth = maximumDepth
            self.reportsEndOfSelfClosingElements = reportsEndOfSelfClosingElements
            self.validatesCharacterReferences = validatesCharacterReferences
        }
    }

    /// The options the scanner was created with.
    public let options: Options
    /// The number of bytes fed so far.
    public private(set) var bytesConsumed: Int = 0
    /// The 1-based line number at the end of the input fed so far.
    public private(set) var line: Int = 1
    /// The number of currently open elements.
    public var depth: Int { self._storage.openCount }
    /// The number of bytes held over from previous chunks (the unfinished tag), at most ``Options/maximumTagSize``.
    /// What is left at ``finish(_:)`` is reported as truncated and released by ``reset()``.
    public var bufferedByteCount: Int { self._storage.pendingCount }

    var _storage: _ScannerStorage
    var _state: _State = .start(matched: 0)
    let _maximumTagSize: Int
    /// Index in the current chunk up to which `line` has counted newlines.
    var _lineIndex: Int = 0
    /// Start of the construct in progress across chunks (carried-over tag, comment, DOCTYPE…).
    var _tokenOffset: Int = 0
    var _tokenLine: Int = 1
    /// Position of the last `<` seen inside a DOCTYPE.
    var _lessThanOffset: Int = 0
    var _lessThanLine: Int = 1
    var _sawElement: Bool = false

    /// Creates a scanner for one document.
    public init(options: Options = .init()) {
        self.options = options
        self._maximumTagSize = min(max(options.maximumTagSize, 16), Int(UInt32.max))
        self._storage = _ScannerStorage()
    }

    /// Makes the scanner ready for a new document, keeping its buffers.
    public mutating func reset() {
        if isKnownUniquelyReferenced(&self._storage) {
            self._storage.removeAll()
        } else {
            self._storage = _ScannerStorage()
        }
        self._state = .start(matched: 0)
        self.bytesConsumed = 0
        self.line = 1
        self._lineIndex = 0
        self._tokenOffset = 0
        self._tokenLine = 1
        self._lessThanOffset = 0
        self._lessThanLine = 1
        self._sawElement = false
    }

    /// Scans the next chunk of the document, calling `handler` for each event it completes.
    ///
    /// The event and everything it points to are valid only during the handler call.
    ///
    /// ```swift
    /// try data.withUnsafeBytes { try scanner.feed($0) { event in … } }
    /// ```
    ///
    /// - Precondition: ``finish(_:)`` has not been called since the scanner was created or reset.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handler: (borrowing XMLEvent) throws -> Void) rethrows {
        switch self._state {
        case .stopped, .unsupported:
            self.bytesConsumed += bytes.count
            return
        case .finished:
            preconditionFailure("XMLScanner.feed(_:_:) called after finish(_:); call reset() to scan a new document")
        default:
            break
        }
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        if !isKnownUniquelyReferenced(&self._storage) {
            self._storage = self._storage.copy()
        }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        self._lineIndex = 0
        do {
            try self._scan(base, count, handler)
        } catch {
            self._state = .stopped
            self.bytesConsumed += count
            throw error
        }
        self.line &+= _countNewlines(base + self._lineIndex, count - self._lineIndex)
        self.bytesConsumed += count
    }

    /// Scans the next chunk of the document (convenience for byte arrays).
    public mutating func feed(_ bytes: [UInt8], _ handler: (borrowing XMLEvent) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { try self.feed($0, handler) }
    }

    /// Ends the document: reports a ``XMLScanError/Kind/truncated`` event if the input stopped inside a tag, comment
    /// or DOCTYPE, with elements still open, or before any element.
    ///
    /// ```swift
    /// try scanner.finish { event in
    ///     if case .malformed(let error) = event { throw error }   // "line 812, byte 40960: input ends inside …"
    /// }
    /// ```
    public mutating func finish(_ handler: (borrowing XMLEvent) throws -> Void) rethrows {
        let state = self._state
        self._state = .finished
        var problem: String?
        var offset = self.bytesConsumed
        var line = self.line
        switch state {
        case .finished, .stopped, .unsupported:
            return
        case .start, .content:
            break
        case .pendingMarkup, .pendingTag:
            problem = "input ends inside the tag \(self._storage.pendingTagDescription())"
            offset = self._tokenOffset
            line = self._tokenLine
        case .skipTag:
            problem = "input ends inside a skipped tag or declaration"
            offset = self._tokenOffset
            line = self._tokenLine
        case .skip(let kind, _):
            problem = "input ends inside \(kind.text)"
            offset = self._tokenOffset
            line = self._tokenLine
        case .doctype:
            problem = "input ends inside the DOCTYPE declaration"
            offset = self._tokenOffset
            line = self._tokenLine
        }
        let storage = self._storage
        if storage.openCount > 0 {
            let innermost = storage.open[storage.openCount - 1]
            let shown = min(storage.openCount, 8)
            var path = (0..<shown).map { "<\(storage.openName($0).string)> (line \(storage.open[$0].line))" }
                .joined(separator: " > ")
            if storage.openCount > shown { path += " > …" }
            let unclosed = "\(storage.openCount) unclosed element\(storage.openCount == 1 ? "" : "s"): \(path)"
            if let text = problem {
                problem = text + "; " + unclosed
            } else {
                problem = "input ends with " + unclosed
                offset = innermost.offset
                line = innermost.line
            }
        } else if problem == nil, !self._sawElement {
            problem = "input ends before any element"
        }
        if let problem {
            try handler(.malformed(XMLScanError(kind: .truncated, offset: offset, line: line, message: problem)))
        }
    }
}

// MARK: - State

extension XMLScanner {
    enum _SkipKind: UInt8, Sendable {
        case comment
        case processingInstruction
        case cdata

        /// The byte that must precede the final `>`, and how many times.
        var terminator: (byte: UInt8, count: Int) {
            switch self {
            case .comment: return (UInt8(ascii: "-"), 2)
            case .processingInstruction: return (UInt8(ascii: "?"), 1)
            case .cdata: return (UInt8(ascii: "]"), 2)
            }
        }

        var text: String {
            switch self {
            case .comment: return "a comment"
            case .processingInstruction: return "a processing instruction"
            case .cdata: return "a CDATA section"
            }
        }
    }

    enum _State: Sendable {
        /// At the start of the input, matching a UTF-8 byte order mark.
        case start(matched: UInt8)
        /// Between markup: looking for the next `<`.
        case content
        /// The carry-over buffer holds `<…` whose kind is not known yet (`<`, `<!-`, `<![CDA`…).
        case pendingMarkup
        /// The carry-over buffer holds an unfinished start or end tag.
        case pendingTag(quote: UInt8)
        /// Skipping the rest of an oversized tag or of a stray `<!…>` declaration, without buffering.
        case skipTag(quote: UInt8)
        /// Inside a comment, processing instruction or CDATA section: `run` terminator bytes seen just before.
        case skip(_SkipKind, run: UInt8)
        case doctype(_DoctypeState)
        /// The input is not UTF-8; everything is ignored.
        case unsupported
        /// The handler threw; everything is ignored until `reset()`.
        case stopped
        case finished
    }
}

// MARK: - Scanning

extension XMLScanner {
    /// Line number at `index` of the current chunk (indices must not decrease within a chunk).
    @inline(__always)
    mutating func _line(at index: Int, _ base: UnsafePointer<UInt8>) -> Int {
        if index > self._lineIndex {
            self.line &+= _countNewlines(base + self._lineIndex, index &- self._lineIndex)
            self._lineIndex = index
        }
        return self.line
    }

    mutating func _scan(
        _ base: UnsafePointer<UInt8>,
        _ count: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows {
        var i = 0
        while i < count {
            switch self._state {
            case .content:
                i = try self._scanContent(base, i, count, handler)
            case .start(let matched):
                i = try self._scanStart(base, i, count, matched, handler)
            case .pendingMarkup:
                i = try self._continuePendingMarkup(base, i, count, handler)
            case .pendingTag(let quote):
                i = try self._continuePendingTag(base, i, count, quote, handler)
            case .skipTag(var quote):
                if let end = _frameTag(base + i, base + count, &quote) {
                    self._state = .content
                    i = end - base + (end.pointee == _greaterThan ? 1 : 0)
                } else {
                    self._state = .skipTag(quote: quote)
                    i = count
                }
            case .skip(let kind, let run):
                i = try self._continueSkip(base, i, count, kind, run, handler)
            case .doctype(let doctype):
                i = try self._continueDoctype(base, i, count, doctype, handler)
            case .unsupported, .stopped, .finished:
                return
            }
        }
    }

    /// The hot loop: finds `<`, parses tags in place, hands anything else to its state.
    mutating func _scanContent(
        _ base: UnsafePointer<UInt8>,
        _ start: Int,
        _ count: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let end = base + count
        var i = start
        while true {
            i = _findByte(_lessThan, base + i, end) - base
            if i >= count { return count }
            if count - i >= 2 {
                let next = base[i + 1]
                if _isNameStart(next) {
                    i = try self._startTag(base, i, count, handler)
                    continue
                }
                if next == UInt8(ascii: "/") {
                    i = try self._endTag(base, i, count, handler)
                    continue
                }
            }
            let markup = _classifyMarkup(base + i, count - i)
            switch markup.kind {
            case .startTag:
                i = try self._startTag(base, i, count, handler)
            case .endTag:
                i = try self._endTag(base, i, count, handler)
            case .needMore:
                self._tokenOffset = self.bytesConsumed + i
                self._tokenLine = self._line(at: i, base)
                self._storage.pendingCount = 0
                self._storage.appendPending(base + i, count - i)
                self._state = .pendingMarkup
                return count
            case .comment, .processingInstruction, .cdata, .doctype:
                self._tokenOffset = self.bytesConsumed + i
                self._tokenLine = self._line(at: i, base)
                self._state = Self._stateEntering(markup.kind)
                return i + markup.length
            case .declaration:
                self._state = .skipTag(quote: 0)
                self._tokenOffset = self.bytesConsumed + i
                self._tokenLine = self._line(at: i, base)
                try self._report(.malformedMarkup, self._tokenOffset, self._tokenLine, "unexpected '<!' declaration", handler)
                return i + markup.length
            case .invalid:
                let line = self._line(at: i, base)
                try self._report(.malformedMarkup, self.bytesConsumed + i, line, "'<' not followed by a name", handler)
                i += 1
            }
        }
    }

    static func _stateEntering(_ kind: _MarkupKind) -> _State {
        switch kind {
        case .comment: return .skip(.comment, run: 0)
        case .processingInstruction: return .skip(.processingInstruction, run: 0)
        case .cdata: return .skip(.cdata, run: 0)
        case .doctype: return .doctype(_DoctypeState())
        default: return .content
        }
    }

    /// Skips a UTF-8 byte order mark; rejects UTF-16/UTF-32 input.
    mutating func _scanStart(
        _ base: UnsafePointer<UInt8>,
        _ start: Int,
        _ count: Int,
        _ matched: UInt8,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        var i = start
        var matched = matched
        while i < count {
            let b = base[i]
            switch matched {
            case 0:
                if b == 0xEF {
                    matched = 1
                    i += 1
                    continue
                }
                if b == 0xFE || b == 0xFF || b == 0x00 {
                    self._state = .unsupported
                    try self._report(
                        .unsupportedEncoding,
                        self.bytesConsumed + i,
                        1,
                        "input is not UTF-8 (UTF-16 or UTF-32 byte order mark or NUL byte at the start)",
                        handler
                    )
                    return count
                }
            case 1:
                if b == 0xBB {
                    matched = 2
                    i += 1
                    continue
                }
            default:
                if b == 0xBF { i += 1 }
            }
            self._state = .content
            return i
        }
        self._state = .start(matched: matched)
        return count
    }

    // MARK: Tags

    @inline(__always)
    mutating func _startTag(
        _ base: UnsafePointer<UInt8>,
        _ i: Int,
        _ count: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let tag = base + i
        let storage = self._storage
        var result = _parseStartTag(tag, base + count, storage.spans, storage.spanCapacity)
        while result.outcome == .needsAttributeSlots {
            storage.growSpans()
            result = _parseStartTag(tag, base + count, storage.spans, storage.spanCapacity)
        }
        switch result.outcome {
        case .complete:
            let line = self._line(at: i, base)
            try self._emitStart(tag, result, self.bytesConsumed + i, line, handler)
            return i + result.length
        case .malformed:
            return try self._malformedTag(base, i, count, result, isEndTag: false, handler)
        case .incomplete, .needsAttributeSlots:
            try self._carryOverTag(base, i, count, handler)
            return count
        }
    }

    @inline(__always)
    mutating func _endTag(
        _ base: UnsafePointer<UInt8>,
        _ i: Int,
        _ count: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let tag = base + i
        let result = _parseEndTag(tag, base + count)
        switch result.outcome {
        case .complete:
            let line = self._line(at: i, base)
            try self._emitEnd(tag, result, self.bytesConsumed + i, line, handler)
            return i + result.length
        case .malformed:
            return try self._malformedTag(base, i, count, result, isEndTag: true, handler)
        case .incomplete, .needsAttributeSlots:
            try self._carryOverTag(base, i, count, handler)
            return count
        }
    }

    /// A malformed tag found in place. It is reported exactly as it would be had it straddled chunks: once its end
    /// (`_frameTag`) is known, as `tooLarge` if that end lies beyond the size limit, as its syntax problem otherwise.
    mutating func _malformedTag(
        _ base: UnsafePointer<UInt8>,
        _ i: Int,
        _ count: Int,
        _ result: _TagResult,
        isEndTag: Bool,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let tag = base + i
        var quote: UInt8 = 0
        guard let terminator = _frameTag(tag + 1, base + count, &quote) else {
            try self._carryOverTag(base, i, count, handler)
            return count
        }
        let line = self._line(at: i, base)
        if terminator - tag + 1 > self._maximumTagSize {
            self._tokenOffset = self.bytesConsumed + i
            self._tokenLine = line
            try self._reportTooLarge(handler)
        } else {
            try self._reportTagProblem(tag, result, isEndTag: isEndTag, self.bytesConsumed + i, line, handler)
        }
        // Nothing but the terminator can be a `<` up to there: resuming at the problem is the same as after the tag.
        return i + result.length
    }

    /// The tag starting at `i` is cut by the end of the chunk: keep it (or skip it if already too large).
    mutating func _carryOverTag(
        _ base: UnsafePointer<UInt8>,
        _ i: Int,
        _ count: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows {
        self._tokenOffset = self.bytesConsumed + i
        self._tokenLine = self._line(at: i, base)
        var quote: UInt8 = 0
        let terminator = _frameTag(base + i + 1, base + count, &quote)
        assert(terminator == nil, "an unfinished tag cannot contain its terminator")
        if count - i > self._maximumTagSize {
            self._state = .skipTag(quote: quote)
            try self._reportTooLarge(handler)
        } else {
            self._storage.pendingCount = 0
            self._storage.appendPending(base + i, count - i)
            self._state = .pendingTag(quote: quote)
        }
    }

    /// Completes the kind of a `<…` prefix carried over from the previous chunk(s).
    mutating func _continuePendingMarkup(
        _ base: UnsafePointer<UInt8>,
        _ start: Int,
        _ count: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let storage = self._storage
        let old = storage.pendingCount
        let take = min(9 - old, count - start)
        storage.appendPending(base + start, take)
        let markup = _classifyMarkup(storage.pending, storage.pendingCount)
        if markup.kind == .needMore { return start + take }
        // Keep exactly the recognised prefix; resume right after it.
        let next = start + max(0, markup.length - old)
        storage.pendingCount = min(markup.length, storage.pendingCount)
        switch markup.kind {
        case .startTag, .endTag:
            self._state = .pendingTag(quote: 0)
        case .comment, .processingInstruction, .cdata, .doctype:
            storage.pendingCount = 0
            self._state = Self._stateEntering(markup.kind)
        case .declaration:
            storage.pendingCount = 0
            self._state = .skipTag(quote: 0)
            try self._report(.malformedMarkup, self._tokenOffset, self._tokenLine, "unexpected '<!' declaration", handler)
        case .invalid, .needMore:
            storage.pendingCount = 0
            self._state = .content
            try self._report(.malformedMarkup, self._tokenOffset, self._tokenLine, "'<' not followed by a name", handler)
        }
        return next
    }

    /// Appends the rest of a carried-over tag, then parses it.
    mutating func _continuePendingTag(
        _ base: UnsafePointer<UInt8>,
        _ start: Int,
        _ count: Int,
        _ quote: UInt8,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let storage = self._storage
        var quote = quote
        let budget = self._maximumTagSize - storage.pendingCount
        guard let terminator = _frameTag(base + start, base + count, &quote) else {
            if count - start > budget {
                storage.pendingCount = 0
                self._state = .skipTag(quote: quote)
                try self._reportTooLarge(handler)
            } else {
                storage.appendPending(base + start, count - start)
                self._state = .pendingTag(quote: quote)
            }
            return count
        }
        let t = terminator - base
        let next = terminator.pointee == _greaterThan ? t + 1 : t
        self._state = .content
        if t + 1 - start > budget {
            storage.pendingCount = 0
            try self._reportTooLarge(handler)
            return next
        }
        storage.appendPending(base + start, t + 1 - start)
        try self._parseCarriedOverTag(handler)
        storage.pendingCount = 0
        storage.shrinkPendingIfLarge()
        return next
    }

    /// Parses the complete tag held in the carry-over buffer (it ends with `>` or with the `<` that cut it short).
    mutating func _parseCarriedOverTag(_ handler: (borrowing XMLEvent) throws -> Void) rethrows {
        let storage = self._storage
        let tag = UnsafePointer(storage.pending)
        let end = tag + storage.pendingCount
        let offset = self._tokenOffset
        let line = self._tokenLine
        let isEndTag = tag[1] == UInt8(ascii: "/")
        var result: _TagResult
        if isEndTag {
            result = _parseEndTag(tag, end)
        } else {
            result = _parseStartTag(tag, end, storage.spans, storage.spanCapacity)
            while result.outcome == .needsAttributeSlots {
                storage.growSpans()
                result = _parseStartTag(tag, end, storage.spans, storage.spanCapacity)
            }
        }
        switch result.outcome {
        case .complete:
            if isEndTag {
                try self._emitEnd(tag, result, offset, line, handler)
            } else {
                try self._emitStart(tag, result, offset, line, handler)
            }
        case .malformed:
            try self._reportTagProblem(tag, result, isEndTag: isEndTag, offset, line, handler)
        case .incomplete, .needsAttributeSlots:
            result.problem = .unexpectedEnd
            try self._reportTagProblem(tag, result, isEndTag: isEndTag, offset, line, handler)
        }
    }

    // MARK: Comments, processing instructions, CDATA

    mutating func _continueSkip(
        _ base: UnsafePointer<UInt8>,
        _ start: Int,
        _ count: Int,
        _ kind: _SkipKind,
        _ run: UInt8,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows -> Int {
        let (mark, needed) = kind.terminator
        // The first index past the size limit. The limit is applied at that exact position, whatever the chunking,
        // so that the events never depend on where the input is cut.
        let limit = max(start, self._tokenOffset + self._maximumTagSize - self.bytesConsumed)
        let searchEnd = min(count, limit)
        var i = start
        var run = Int(run)
        while true {
            let gt = _findByte(_greaterThan, base + i, base + searchEnd) - base
            var k = gt
            var marks = 0
            while k > i && marks < needed && base[k - 1] == mark {
                marks += 1
                k -= 1
            }
            if k == i { marks = min(needed, marks + run) }
            if gt >= searchEnd {
                run = marks
                break
            }
            if marks >= needed {
                self._state = .content
                return gt + 1
            }
            run = 0
            i = gt + 1
        }
        if limit <= count {
            // Unterminated or huge: report it and resynchronise right there.
            self._state = .content
            try self._reportTooLarge(handler)
            return limit
        }
        self._state = .skip(kind, run: UInt8(run))
        return count
    }

    // MARK: Events

    @inline(__always)
    mutating func _emitStart(
        _ tag: UnsafePointer<UInt8>,
        _ result: _TagResult,
        _ offset: Int,
        _ line: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows {
        if result.length > self._maximumTagSize {
            self._tokenOffset = offset
            self._tokenLine = line
            try self._reportTooLarge(handler)
            return
        }
        let storage = self._storage
        if self.options.validatesCharacterReferences {
            for index in 0..<result.attributeCount {
                let span = storage.spans[index]
                let value = UnsafeRawBufferPointer(start: tag + Int(span.valueStart), count: Int(span.valueLength))
                if XMLEntityDecoder.firstInvalidCharacterReference(in: value) != nil {
                    let name = String(decoding: UnsafeRawBufferPointer(start: tag + 1, count: result.nameLength), as: UTF8.self)
                    let attribute = String(
                        decoding: UnsafeRawBufferPointer(start: tag + Int(span.nameStart), count: Int(span.nameLength)),
                        as: UTF8.self
                    )
                    try self._report(
                        .invalidCharacterReference,
                        offset,
                        line,
                        "invalid character reference in attribute '\(attribute)' of <\(name)>",
                        handler
                    )
                    return
                }
            }
        }
        let depth = storage.openCount
        if !result.isSelfClosing && depth >= self.options.maximumDepth {
            let name = String(decoding: UnsafeRawBufferPointer(start: tag + 1, count: result.nameLength), as: UTF8.self)
            try self._report(
                .tooDeep,
                offset,
                line,
                "element <\(name)> is nested deeper than \(self.options.maximumDepth) levels",
                handler
            )
            return
        }
        let element = XMLStartElement(
            tag: UnsafeRawPointer(tag),
            length: result.length,
            nameLength: result.nameLength,
            spans: UnsafePointer(storage.spans),
            attributeCount: result.attributeCount,
            isSelfClosing: result.isSelfClosing,
            offset: offset,
            line: line,
            depth: depth
        )
        self._sawElement = true
        try handler(.startElement(element))
        if result.isSelfClosing {
            if self.options.reportsEndOfSelfClosingElements {
                try handler(.endElement(XMLEndElement(name: element.name, offset: offset, line: line, depth: depth)))
            }
        } else {
            storage.pushOpen(element.name.bytes, offset: offset, line: line)
        }
    }

    mutating func _emitEnd(
        _ tag: UnsafePointer<UInt8>,
        _ result: _TagResult,
        _ offset: Int,
        _ line: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows {
        if result.length > self._maximumTagSize {
            self._tokenOffset = offset
            self._tokenLine = line
            try self._reportTooLarge(handler)
            return
        }
        let name = XMLName(bytes: UnsafeRawBufferPointer(start: tag + 2, count: result.nameLength))
        let storage = self._storage
        let count = storage.openCount
        if count > 0 && storage.openName(count - 1) == name {
            storage.popOpen()
            try handler(.endElement(XMLEndElement(name: name, offset: offset, line: line, depth: count - 1)))
            return
        }
        var match = count - 2
        while match >= 0 && storage.openName(match) != name { match -= 1 }
        guard match >= 0 else {
            let message =
                count > 0
                ? "end tag </\(name.string)> does not match the open element <\(storage.openName(count - 1).string)>"
                : "end tag </\(name.string)> without a matching start tag"
            try self._report(.unexpectedEndTag, offset, line, message, handler)
            return
        }
        // Close the elements left open inside the matching one, reporting each.
        var index = count - 1
        while index > match {
            let open = storage.open[index]
            let openName = storage.openName(index)
            try self._report(
                .unclosedElement,
                open.offset,
                open.line,
                "element <\(openName.string)> is not closed before </\(name.string)>",
                handler
            )
            try handler(.endElement(XMLEndElement(name: openName, offset: offset, line: line, depth: index)))
            storage.popOpen()
            index -= 1
        }
        storage.popOpen()
        try handler(.endElement(XMLEndElement(name: name, offset: offset, line: line, depth: match)))
    }

    func _reportTagProblem(
        _ tag: UnsafePointer<UInt8>,
        _ result: _TagResult,
        isEndTag: Bool,
        _ offset: Int,
        _ line: Int,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows {
        let name = String(
            decoding: UnsafeRawBufferPointer(start: tag + (isEndTag ? 2 : 1), count: result.nameLength),
            as: UTF8.self
        )
        let message = "\(result.problem.text) in \(isEndTag ? "</" : "<")\(name)>"
        try self._report(result.problem.kind, offset, line, message, handler)
    }

    func _reportTooLarge(_ handler: (borrowing XMLEvent) throws -> Void) rethrows {
        try self._report(
            .tooLarge,
            self._tokenOffset,
            self._tokenLine,
            "markup larger than the limit of \(self._maximumTagSize) bytes skipped",
            handler
        )
    }

    @inline(__always)
    func _report(
        _ kind: XMLScanError.Kind,
        _ offset: Int,
        _ line: Int,
        _ message: String,
        _ handler: (borrowing XMLEvent) throws -> Void
    ) rethrows {
        try handler(.malformed(XMLScanError(kind: kind, offset: offset, line: line, message: message)))
    }
}
