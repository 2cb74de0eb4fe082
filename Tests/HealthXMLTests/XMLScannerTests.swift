import HealthXML
import Testing

/// A small document using every construct the scanner must handle.
let sampleDocument: [UInt8] = [0xEF, 0xBB, 0xBF] + bytes(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!-- HealthKit Export Version: 14 -->
    <!ELEMENT HealthData (ExportDate,Record*)>
    <!ATTLIST Record
      type CDATA #REQUIRED
    >
    <!ENTITY note "a ] b > c <d> ]>">
    ]>
    <HealthData locale="en_US">
     <!-- a comment with <Record type="x"/> and > inside -->
     <?pi some > stuff ?>
     <ExportDate value='2019-06-17 21:07:11 -0400'/>
     <Record type = "HKQuantityTypeIdentifierStepCount"
    \tsourceName="Alex&#x2019;s&#160;Watch" device="&lt;&lt;HKDevice: 0x1&gt;&gt;"
      value="47" unit='it&apos;s "q"' note="a>b" ctl="x\u{0B}y">
      <MetadataEntry key="HKTimeZone" value="Europe/Zurich"/>
     </Record>
     <![CDATA[ <NotAnElement a="1"/> ]]>
     text & more text
     <Record type="X" value="1e3"
     />
    </HealthData>

    """
)

@Suite("XMLScanner: constructs")
struct XMLScannerConstructTests {
    @Test("every construct of a small document produces the expected events")
    func sampleDocumentEvents() {
        let doc = sampleDocument
        let events = scan(doc)
        func at(_ needle: String, _ occurrence: Int = 0) -> (Int, Int) {
            let o = offset(of: needle, in: doc, occurrence: occurrence)
            return (o, line(at: o, in: doc))
        }
        let root = at("<HealthData locale")
        let export = at("<ExportDate")
        let record = at("<Record type = ")
        let metadata = at("<MetadataEntry")
        let recordEnd = at("</Record>")
        let record2 = at("<Record type=\"X\"")
        let rootEnd = at("</HealthData>")
        let expected: [Recorded] = [
            .start(name: "HealthData", attributes: ["locale=en_US"], selfClosing: false, offset: root.0, line: root.1, depth: 0),
            .start(
                name: "ExportDate",
                attributes: ["value=2019-06-17 21:07:11 -0400"],
                selfClosing: true,
                offset: export.0,
                line: export.1,
                depth: 1
            ),
            .start(
                name: "Record",
                attributes: [
                    "type=HKQuantityTypeIdentifierStepCount",
                    "sourceName=Alex\u{2019}s\u{A0}Watch",
                    "device=<<HKDevice: 0x1>>",
                    "value=47",
                    "unit=it's \"q\"",
                    "note=a>b",
                    "ctl=x\u{0B}y",
                ],
                selfClosing: false,
                offset: record.0,
                line: record.1,
                depth: 1
            ),
            .start(
                name: "MetadataEntry",
                attributes: ["key=HKTimeZone", "value=Europe/Zurich"],
                selfClosing: true,
                offset: metadata.0,
                line: metadata.1,
                depth: 2
            ),
            .end(name: "Record", offset: recordEnd.0, line: recordEnd.1, depth: 1),
            .start(name: "Record", attributes: ["type=X", "value=1e3"], selfClosing: true, offset: record2.0, line: record2.1, depth: 1),
            .end(name: "HealthData", offset: rootEnd.0, line: rootEnd.1, depth: 0),
        ]
        #expect(events == expected)
        #expect(record.1 == 14)
    }

    @Test("byte offsets and lines are absolute, and bytesConsumed/line track the input")
    func positions() {
        let doc = bytes("<a>\n\n  <b/>\n</a>\n")
        var scanner = XMLScanner()
        var lines: [Int] = []
        var offsets: [Int] = []
        scanner.feed(doc) { event in
            lines.append(event.line)
            offsets.append(event.offset)
        }
        #expect(lines == [1, 3, 4])
        #expect(offsets == [0, 7, 12])
        #expect(scanner.bytesConsumed == doc.count)
        #expect(scanner.line == 5)
        #expect(scanner.depth == 0)
    }

    @Test("element views: names, attribute lookup, raw bytes, iteration")
    func elementViews() {
        let doc = bytes(#"<Record type="Steps" value = '12' empty="" device="&lt;x&gt;"/>"#)
        var checked = false
        var scanner = XMLScanner()
        scanner.feed(doc) { event in
            guard case .startElement(let element) = event else { return }
            #expect(element.name == "Record")
            #expect(element.name != "Records")
            #expect(element.name.isEqual(to: Array("Record".utf8)))
            #expect(!element.name.isEqual(to: "Recor"))
            #expect(element.attributeCount == 4)
            #expect(element.attribute(named: "type")?.isEqual(to: "Steps") == true)
            #expect(element.attribute(named: Array("value".utf8))?.int == 12)
            #expect(element.attribute(named: "empty")?.isEmpty == true)
            #expect(element.attribute(named: "missing") == nil)
            #expect(element.attribute(named: "typ") == nil)
            #expect(element.attribute(named: "device")?.isEqual(to: "<x>") == true)
            #expect(element.attribute(named: "device")?.isEqual(to: "&lt;x&gt;") == false)
            #expect(element.attribute(named: "device")?.containsReferences == true)
            #expect(element.attributes.map(\.name.string) == ["type", "value", "empty", "device"])
            #expect(String(decoding: element.rawBytes, as: UTF8.self) == String(decoding: doc, as: UTF8.self))
            #expect(element.isSelfClosing)
            checked = true
        }
        #expect(checked)
    }

    @Test("whitespace of every kind around '=' and between attributes, both quote styles")
    func whitespaceAndQuotes() {
        let doc = bytes("<a\n\tx\r\n=\t'1'\n  y =\"2\"z=\"3\"\t/>")
        let events = scan(doc)
        #expect(events == [.start(name: "a", attributes: ["x=1", "y=2", "z=3"], selfClosing: true, offset: 0, line: 1, depth: 0)])
    }

    @Test("'<' and '>' inside comments, processing instructions, CDATA and attribute values do not confuse the scanner")
    func markupInsideSkippedConstructs() {
        let doc = bytes(
            """
            <r><!-- <a> -- -> --><?p <b> ?? > ?><![CDATA[ <c> ]] ]> ]]><d v="x>y" w='<!-- -->'/><!----><!-- --->
            <e/></r>
            """
        )
        let events = scan(doc)
        // `w='<!-- -->'` holds a `<`: the value is unterminated at that `<`, which is reported; `<!-- -->` is then a comment.
        #expect(events.compactMap(\.name) == ["r", "e", "r"])
        #expect(events.malformed.map(\.kind) == [.unterminatedAttribute])
        #expect(events.malformed.first?.offset == offset(of: "<d ", in: doc))
    }

    @Test("a '>' inside a quoted value belongs to the value")
    func greaterThanInValue() {
        let events = scan(bytes(#"<a v="1>2" w='>'/>"#))
        #expect(events == [.start(name: "a", attributes: ["v=1>2", "w=>"], selfClosing: true, offset: 0, line: 1, depth: 0)])
    }

    @Test("control characters such as \\x0b are kept in attribute values")
    func controlCharacters() {
        let doc: [UInt8] = bytes("<Record sourceName=\"My\u{0B}Watch\u{01}\" value=\"1\"/>")
        var name = ""
        var scanner = XMLScanner()
        scanner.feed(doc) { event in
            if case .startElement(let element) = event { name = element.attribute(named: "sourceName")?.string ?? "" }
        }
        scanner.finish { _ in Issue.record("unexpected event at finish") }
        #expect(name == "My\u{0B}Watch\u{01}")
    }

    @Test("self-closing elements get an end event only when asked")
    func selfClosingEnds() {
        let doc = bytes("<a><b/></a>")
        #expect(scan(doc).compactMap(\.name) == ["a", "b", "a"])
        let events = scan(doc, options: .init(reportsEndOfSelfClosingElements: true))
        #expect(events == [
            .start(name: "a", attributes: [], selfClosing: false, offset: 0, line: 1, depth: 0),
            .start(name: "b", attributes: [], selfClosing: true, offset: 3, line: 1, depth: 1),
            .end(name: "b", offset: 3, line: 1, depth: 1),
            .end(name: "a", offset: 7, line: 1, depth: 0),
        ])
    }

    @Test("lenient: attribute names with spaces from old exports, names with odd characters")
    func lenientNames() {
        let doc = bytes(#"<Record type="x" Health Mate App Version="2.6.0" my-attr.v2:ns="y" Withings Link="a&amp;amp;b"/>"#)
        let events = scan(doc)
        #expect(events == [
            .start(
                name: "Record",
                attributes: ["type=x", "Health Mate App Version=2.6.0", "my-attr.v2:ns=y", "Withings Link=a&amp;b"],
                selfClosing: true,
                offset: 0,
                line: 1,
                depth: 0
            )
        ])
    }

    @Test("elements with many attributes grow the reusable attribute table")
    func manyAttributes() {
        let attributes = (0..<100).map { "a\($0)=\"\($0)\"" }.joined(separator: " ")
        let doc = bytes("<r \(attributes)/>")
        for events in [scan(doc), scan(doc, chunkSize: 7).events] {
            guard case .start(_, let values, _, _, _, _) = events.first else {
                Issue.record("no start event")
                return
            }
            #expect(values.count == 100)
            #expect(values.last == "a99=99")
        }
    }

    @Test("the XML declaration, a BOM and leading whitespace are skipped")
    func prolog() {
        let events = scan([0xEF, 0xBB, 0xBF] + bytes("<?xml version=\"1.0\"?>\n\n<r/>"))
        #expect(events == [.start(name: "r", attributes: [], selfClosing: true, offset: 26, line: 3, depth: 0)])
        // A lone 0xEF that is not a BOM is just skipped text.
        #expect(scan([0xEF] + bytes("<r/>")).compactMap(\.name) == ["r"])
    }

    @Test("UTF-16 input is reported once and ignored")
    func utf16() {
        let doc: [UInt8] = [0xFF, 0xFE] + Array("<r/>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let events = scan(doc, cuts: [1, 3])
        #expect(events.map(\.error?.kind) == [.unsupportedEncoding])
    }

    @Test("a handler error stops the scan and is rethrown; later input is ignored until reset")
    func handlerErrorStops() throws {
        struct Stop: Error {}
        var scanner = XMLScanner()
        var seen: [String] = []
        #expect(throws: Stop.self) {
            try scanner.feed(bytes("<a><b x/><c/>")) { event in
                switch event {
                case .startElement(let element): seen.append(element.name.string)
                case .endElement: break
                case .malformed: throw Stop()
                }
            }
        }
        #expect(seen == ["a"])
        scanner.feed(bytes("<d/>")) { _ in Issue.record("no events after a handler error") }
        scanner.finish { _ in Issue.record("no events after a handler error") }
        scanner.reset()
        scanner.feed(bytes("<e/>")) { event in
            if case .startElement(let element) = event { seen.append(element.name.string) }
        }
        #expect(seen == ["a", "e"])
    }

    @Test("copies of a scanner are independent (value semantics)")
    func valueSemantics() {
        var first = XMLScanner()
        first.feed(bytes("<a><b x=\"1")) { _ in }
        var second = first
        var fromFirst: [String] = []
        var fromSecond: [String] = []
        first.feed(bytes("\"/></a>")) { event in
            if case .startElement(let element) = event { fromFirst.append(element.attribute(named: "x")?.string ?? "?") }
        }
        second.feed(bytes("2\"/></a>")) { event in
            if case .startElement(let element) = event { fromSecond.append(element.attribute(named: "x")?.string ?? "?") }
        }
        #expect(fromFirst == ["1"])
        #expect(fromSecond == ["12"])
        #expect(first.depth == 0 && second.depth == 0)
    }
}
