import HealthXML
import Testing

/// One malformed construct per line, each followed by good data that must still come through.
let malformedDocument: [UInt8] = bytes(
    """
    <?xml version="1.0"?>
    <HealthData>
     <Record type="ok1" value="1"/>
     <Record type="bad" z/>
     <Record type=3 value="2"/>
     <Record type="unterminated value=3
     <Record type="ok2" value="4"/>
     </Workout>
     1 < 2
     <!FOO bar>
     <Correlation><Record type="inner"></Correlation>
     <Record type="x"/ >
     <Record type="ok3" =/>
     </ Record>
     <Record type="ok4">
     </Record junk>
     </Record>
    </HealthData>

    """
)

@Suite("XMLScanner: malformed input")
struct XMLScannerErrorTests {
    @Test("each malformed element is reported at its line and offset, and the scan resumes after it")
    func malformedInTheMiddle() {
        let doc = malformedDocument
        let events = scan(doc)
        func at(_ needle: String, _ occurrence: Int = 0) -> (offset: Int, line: Int) {
            let o = offset(of: needle, in: doc, occurrence: occurrence)
            return (o, line(at: o, in: doc))
        }
        let expected: [(XMLScanError.Kind, (offset: Int, line: Int))] = [
            (.malformedTag, at("<Record type=\"bad\"")),
            (.malformedTag, at("<Record type=3")),
            (.unterminatedAttribute, at("<Record type=\"unterminated")),
            (.unexpectedEndTag, at("</Workout>")),
            (.malformedMarkup, at("< 2")),
            (.malformedMarkup, at("<!FOO")),
            (.unclosedElement, at("<Record type=\"inner\"")),
            (.malformedTag, at("<Record type=\"x\"/ >")),
            (.malformedTag, at("<Record type=\"ok3\"")),
            (.malformedTag, at("</ Record>")),
            (.malformedTag, at("</Record junk>")),
        ]
        let malformed = events.malformed
        #expect(malformed.map(\.kind) == expected.map(\.0))
        #expect(malformed.map(\.offset) == expected.map(\.1.offset))
        #expect(malformed.map(\.line) == expected.map(\.1.line))
        #expect(malformed.map(\.line) == [4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16])

        let types = events.compactMap { event -> String? in
            guard case .start("Record", let attributes, _, _, _, _) = event else { return nil }
            return attributes.first
        }
        #expect(types == ["type=ok1", "type=ok2", "type=inner", "type=ok4"])
        // The implied end of the unclosed Record comes before the Correlation's own end.
        let correlationEnd = at("</Correlation>")
        #expect(events.contains(.end(name: "Record", offset: correlationEnd.offset, line: 11, depth: 2)))
        #expect(events.contains(.end(name: "Correlation", offset: correlationEnd.offset, line: 11, depth: 1)))
        // The document still closes cleanly: nothing is reported at finish.
        #expect(events.last == .end(name: "HealthData", offset: at("</HealthData>").offset, line: 18, depth: 0))
    }

    @Test("messages and description")
    func messages() throws {
        let events = scan(malformedDocument)
        let first = try #require(events.malformed.first)
        #expect(first.message == "expected '=' after attribute name in <Record>")
        #expect(first.description == "line 4, byte \(first.offset): expected '=' after attribute name in <Record>")
        #expect(events.malformed[3].message == "end tag </Workout> does not match the open element <HealthData>")
        #expect(events.malformed[6].message == "element <Record> is not closed before </Correlation>")
        #expect(scan(bytes("</a>")).malformed.first?.message == "end tag </a> without a matching start tag")
    }

    @Test("strict mode: throwing from the handler stops at the first problem")
    func strictMode() {
        var scanner = XMLScanner()
        var records = 0
        #expect(throws: XMLScanError.self) {
            try scanner.feed(malformedDocument) { event in
                switch event {
                case .startElement(let element) where element.name == "Record": records += 1
                case .malformed(let error): throw error
                default: break
                }
            }
        }
        #expect(records == 1)
    }

    @Test("nesting deeper than the limit is reported")
    func tooDeep() {
        let doc = bytes("<a><b><c><d/></c></b></a>")
        let events = scan(doc, options: .init(maximumDepth: 2))
        #expect(events.malformed.map(\.kind) == [.tooDeep, .unexpectedEndTag])
        #expect(events.compactMap(\.name) == ["a", "b", "d", "b", "a"])
    }

    @Test("invalid character references are reported only when validation is on")
    func characterReferenceValidation() {
        let doc = bytes(#"<r><a v="&#xD800;"/><b v="&#12"/><c v="&#0;"/><d v="&#x2019;&#9;&foo;&amp;"/><e v="&#11;"/></r>"#)
        #expect(scan(doc).malformed.isEmpty)
        let events = scan(doc, options: .init(validatesCharacterReferences: true))
        #expect(events.malformed.map(\.kind) == Array(repeating: .invalidCharacterReference, count: 4))
        #expect(events.compactMap(\.name) == ["r", "d", "r"])
        #expect(events.malformed.first?.message == "invalid character reference in attribute 'v' of <a>")
    }
}
