/// A problem found by ``XMLScanner`` in its input.
///
/// Malformed markup is not thrown: the scanner reports it as an ``XMLEvent/malformed(_:)`` event, skips the bad
/// construct, resynchronises at the next `<` and carries on. A caller that wants strict behaviour throws the error
/// from its event handler:
///
/// ```swift
/// try scanner.feed(chunk) { event in
///     if case .malformed(let error) = event {
///         if strict { throw error }      // stops the scan
///         skipped += 1                    // or count it and go on
///     }
/// }
/// ```
///
/// `offset` and `line` locate the start of the offending construct (for instance the `<` of a bad tag), so the
/// message can point a user at the right place of a multi-gigabyte file.
public struct XMLScanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The input ended inside a tag, comment or DOCTYPE, with elements still open, or before any root element.
        case truncated
        /// A start or end tag that does not follow the XML grammar (missing `=`, unquoted value, stray characters…).
        case malformedTag
        /// An attribute value whose closing quote was not found before the next `<`.
        case unterminatedAttribute
        /// An end tag that matches no open element.
        case unexpectedEndTag
        /// An element that was still open when an end tag of one of its ancestors closed it.
        case unclosedElement
        /// A `<` that starts no valid markup (`a < b` in text, `<!FOO …>` outside a DTD).
        case malformedMarkup
        /// A DOCTYPE whose internal subset was never closed with `]>` (the scanner resumes at the first element).
        case malformedDoctype
        /// A numeric character reference that is not a valid XML character (only reported when
        /// ``XMLScanner/Options/validatesCharacterReferences`` is set).
        case invalidCharacterReference
        /// A tag, comment or DOCTYPE larger than ``XMLScanner/Options/maximumTagSize``.
        case tooLarge
        /// Elements nested deeper than ``XMLScanner/Options/maximumDepth``.
        case tooDeep
        /// The input is not UTF-8 (for instance it starts with a UTF-16 byte order mark). Nothing more is scanned.
        case unsupportedEncoding

        public var description: String {
            switch self {
            case .truncated: return "truncated"
            case .malformedTag: return "malformedTag"
            case .unterminatedAttribute: return "unterminatedAttribute"
            case .unexpectedEndTag: return "unexpectedEndTag"
            case .unclosedElement: return "unclosedElement"
            case .malformedMarkup: return "malformedMarkup"
            case .malformedDoctype: return "malformedDoctype"
            case .invalidCharacterReference: return "invalidCharacterReference"
            case .tooLarge: return "tooLarge"
            case .tooDeep: return "tooDeep"
            case .unsupportedEncoding: return "unsupportedEncoding"
            }
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// The absolute byte offset, from the start of the input, of the construct that is at fault.
    public var offset: Int
    /// The 1-based line number of that construct.
    public var line: Int
    /// A human readable explanation, e.g. `expected '=' after attribute name in <Record>`.
    public var message: String

    public init(kind: Kind, offset: Int, line: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.line = line
        self.message = message
    }

    /// `line L, byte O: message`.
    public var description: String {
        "line \(self.line), byte \(self.offset): \(self.message)"
    }
}
