import Foundation
import HealthXML
import Testing

@Suite("XMLScanner: DOCTYPE skipping")
struct XMLScannerDoctypeTests {
    @Test("comments, quoted strings and ']' / ']>' / '>' / '<' inside them do not end the internal subset")
    func quotesAndComments() {
        let doc = bytes(
            """
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 14 ]> <Fake/> -->
            <!ENTITY a "]>">
            <!ENTITY b '<NotAnElement/> ] >'>
            <!ATTLIST Record note CDATA "x]>y">
            <?pi ]> <Fake/> ?>
            %param;
            ]  >
            <HealthData><Record/></HealthData>
            """
        )
        let events = scan(doc)
        #expect(events.compactMap(\.name) == ["HealthData", "Record", "HealthData"])
        #expect(events.malformed.isEmpty)
        #expect(events.first == .start(name: "HealthData", attributes: [], selfClosing: false, offset: offset(of: "<HealthData>", in: doc), line: 9, depth: 0))
    }

    @Test("iOS 16: an unclosed <!ATTLIST VisionPrescription is tolerated silently")
    func unclosedAttlist() {
        let doc = bytes(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 12 -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|VisionPrescription)*)>
            <!ATTLIST HealthData
              locale CDATA #REQUIRED
            >
            <!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>
            <!ATTLIST VisionPrescription
              type             CDATA #REQUIRED
              dateIssued       CDATA #REQUIRED
              expirationDate   CDATA #IMPLIED
              brand            CDATA #IMPLIED
            <!ELEMENT RightEye EMPTY>
            <!ATTLIST RightEye
              sphere           CDATA #IMPLIED
            >
            <!ELEMENT MetadataEntry EMPTY>
            <!ATTLIST MetadataEntry
              key   CDATA #REQUIRED
              value CDATA #REQUIRED
            ]>
            <HealthData locale="en_US">
             <Record type="HKQuantityTypeIdentifierStepCount" value="3"/>
            </HealthData>

            """
        )
        let reference = scan(doc)
        #expect(reference.malformed.isEmpty)
        #expect(reference.compactMap(\.name) == ["HealthData", "Record", "HealthData"])
        #expect(reference.first?.description.contains("L23") == true)
        for size in [1, 3, 4096] {
            #expect(scan(doc, chunkSize: size).events == reference)
        }
    }

    @Test("a subset never closed by ']>' is left at the first element, with one report")
    func neverClosed() throws {
        let doc = bytes(
            """
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData (Record*)>
            <!ATTLIST Record
              type CDATA #REQUIRED

            <HealthData locale="en_US">
             <Record type="a"/>
            </HealthData>
            """
        )
        let events = scan(doc)
        let error = try #require(events.first?.error)
        #expect(error.kind == .malformedDoctype)
        #expect(error.offset == 0 && error.line == 1)
        #expect(Array(events.dropFirst()) == [
            .start(name: "HealthData", attributes: ["locale=en_US"], selfClosing: false, offset: offset(of: "<HealthData", in: doc), line: 6, depth: 0),
            .start(name: "Record", attributes: ["type=a"], selfClosing: true, offset: offset(of: "<Record", in: doc), line: 7, depth: 1),
            .end(name: "HealthData", offset: offset(of: "</HealthData>", in: doc), line: 8, depth: 0),
        ])
        // The same with the '<' of the root at the very end of a chunk.
        let cut = offset(of: "<HealthData", in: doc) + 1
        #expect(scan(doc, cuts: [cut]) == events)
    }

    @Test("a DOCTYPE without internal subset, with a quoted '>'")
    func externalOnly() {
        let events = scan(bytes(#"<!DOCTYPE html SYSTEM "about:legacy>compat"><html lang='en'/>"#))
        #expect(events == [.start(name: "html", attributes: ["lang=en"], selfClosing: true, offset: 44, line: 1, depth: 0)])
    }

    @Test("entity bomb: entities declared in the DTD are never expanded and cost nothing")
    func billionLaughs() throws {
        var dtd = "<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            dtd += " <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        dtd += "]>\n"
        let doc = bytes(dtd + "<lolz v=\"&lol9;\" w='&lol;&amp;&lol9;'><a>&lol9;</a></lolz>")
        let start = ContinuousClock.now
        var values: [String] = []
        var scanner = XMLScanner()
        scanner.feed(doc) { event in
            guard case .startElement(let element) = event, element.name == "lolz" else { return }
            values.append(element.attribute(named: "v")?.string ?? "")
            values.append(element.attribute(named: "w")?.string ?? "")
            element.attribute(named: "v")?.withDecodedBytes { decoded in
                values.append("\(decoded.count)")
            }
        }
        scanner.finish { _ in Issue.record("unexpected event") }
        #expect(values == ["&lol9;", "&lol;&&lol9;", "6"])
        #expect(ContinuousClock.now - start < .seconds(10), "entities are not expanded")
        #expect(scan(doc).malformed.isEmpty)
    }

    @Test("the DOCTYPE of both fixtures is skipped whole", .enabled(if: fixtureExists("realistic-v14-export.xml"), "fixtures folder ../shared/fixtures not found"))
    func fixtureDoctypes() throws {
        for (name, line) in [("realistic-v14-export.xml", 220), ("real-iphone-2019-export.xml", 119)] where fixtureExists(name) {
            var first: (String, Int)?
            _ = try scanFixture(name, chunkSize: 1000) { event in
                if first == nil, case .startElement(let element) = event { first = (element.name.string, element.line) }
            }
            #expect(first?.0 == "HealthData")
            #expect(first?.1 == line)
        }
    }
}
