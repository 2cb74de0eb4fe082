/// One event reported by ``XMLScanner``.
///
/// The payloads are views into the scanner's input: they are valid only during the handler call.
///
/// ```swift
/// try scanner.feed(chunk) { event in
///     switch event {
///     case .startElement(let element) where element.name == "Record":
///         records += 1
///     case .startElement, .endElement:
///         break
///     case .malformed(let error):
///         logger.warning("skipped: \(error)")
///     }
/// }
/// ```
public enum XMLEvent {
    /// A start tag, self-closing or not.
    case startElement(XMLStartElement)
    /// An end tag (or the implied end of an element, see ``XMLEndElement``).
    case endElement(XMLEndElement)
    /// Malformed or truncated input. The scanner has skipped the bad construct and goes on.
    case malformed(XMLScanError)

    /// The absolute byte offset at which the event's construct starts.
    @inlinable
    public var offset: Int {
        switch self {
        case .startElement(let element): return element.offset
        case .endElement(let element): return element.offset
        case .malformed(let error): return error.offset
        }
    }

    /// The 1-based line at which the event's construct starts.
    @inlinable
    public var line: Int {
        switch self {
        case .startElement(let element): return element.line
        case .endElement(let element): return element.line
        case .malformed(let error): return error.line
        }
    }
}
