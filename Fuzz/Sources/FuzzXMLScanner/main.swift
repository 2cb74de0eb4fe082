import FuzzSupport
import HealthXML

#if canImport(Glibc)
import Glibc
#endif

/// The XML scanner over arbitrary bytes, fed whole and in two chunks split at a point chosen by the input: it must
/// never crash, and report the same events either way.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    func scan(_ chunks: [ArraySlice<UInt8>]) -> [String] {
        var scanner = XMLScanner()
        var events: [String] = []
        let handler: (borrowing XMLEvent) -> Void = { event in
            switch event {
            case .startElement(let element):
                var text = "<" + element.name.string
                for attribute in element.attributes {
                    text += " " + attribute.name.string + "=" + attribute.value.string
                    _ = attribute.value.double
                    _ = attribute.value.int
                }
                events.append(text)
            case .endElement(let element):
                events.append("</" + element.name.string)
            case .malformed(let error):
                events.append("!" + String(describing: error.kind))
            }
        }
        for chunk in chunks { scanner.feed(Array(chunk), handler) }
        scanner.finish(handler)
        return events
    }
    let whole = scan([bytes[...]])
    if bytes.count > 1 {
        let split = Int(bytes[0]) % bytes.count
        let chunked = scan([bytes[..<split], bytes[split...]])
        if whole != chunked { fatalError("chunking changed the events: \(whole) vs \(chunked)") }
    }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
