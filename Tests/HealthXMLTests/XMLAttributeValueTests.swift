import HealthXML
import Testing

/// Runs `body` with the value of attribute `v` of `<a v="…"/>` (the text is inserted raw).
private func withValue<R>(_ raw: String, _ body: (XMLAttributeValue) -> R) -> R? {
    var result: R?
    var scanner = XMLScanner()
    scanner.feed(bytes("<a v=\"\(raw)\"/>")) { event in
        if case .startElement(let element) = event, let value = element.attribute(named: "v") {
            result = body(value)
        }
    }
    return result
}

@Suite("XMLAttributeValue and XMLEntityDecoder")
struct XMLAttributeValueTests {
    @Test(
        "entities and character references",
        arguments: [
            ("&lt;&gt;&amp;&quot;&apos;", "<>&\"'"),
            ("line&#10;break", "line\nbreak"),
            ("Alex&#x2019;s&#160;Watch", "Alex\u{2019}s\u{A0}Watch"),
            ("&#x1F600;&#128512;", "😀😀"),
            ("&#65;&#x41;&#x00041;", "AAA"),
            ("&#X41;", "&#X41;"),
            ("&foo; &lol9; &#; &#x; &#12 & &&amp;", "&foo; &lol9; &#; &#x; &#12 & &&"),
            ("&#0;&#xD800;&#x110000;&#99999999999999999999;", "&#0;&#xD800;&#x110000;&#99999999999999999999;"),
            ("&amp;lt;", "&lt;"),
            ("&lt", "&lt"),
            ("&", "&"),
            ("tab&#9;vt&#11;", "tab\tvt\u{0B}"),
            ("é€ no refs", "é€ no refs"),
        ]
    )
    func decoding(raw: String, decoded: String) {
        #expect(withValue(raw) { $0.string } == decoded)
        #expect(withValue(raw) { value in value.withDecodedBytes { String(decoding: $0, as: UTF8.self) } } == decoded)
        #expect(withValue(raw) { $0.isEqual(to: Array(decoded.utf8)) } == true)
        let direct = Array(raw.utf8).withUnsafeBytes { XMLEntityDecoder.decodedString($0) }
        #expect(direct == decoded)
        #expect(decoded.utf8.count <= raw.utf8.count)
    }

    @Test("withDecodedBytes hands over the raw bytes themselves when there is nothing to decode")
    func noCopyWithoutReferences() {
        let same = withValue("plain value") { value in
            value.withDecodedBytes { $0.baseAddress == value.rawBytes.baseAddress && $0.count == value.rawBytes.count }
        }
        #expect(same == true)
        let copied = withValue("a&amp;b") { value in value.withDecodedBytes { $0.baseAddress != value.rawBytes.baseAddress } }
        #expect(copied == true)
    }

    @Test("withDecodedBytes rethrows the body's error")
    func withDecodedBytesThrows() {
        struct Failure: Error {}
        let thrown = withValue("a&amp;b") { value in
            do {
                try value.withDecodedBytes { (_: UnsafeRawBufferPointer) throws(Failure) -> Void in throw Failure() }
                return false
            } catch {
                return true
            }
        }
        #expect(thrown == true)
    }

    @Test(
        "int",
        arguments: [
            ("47", 47), ("-12", -12), ("+7", 7), (" 8 ", 8), ("0", 0),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
        ]
    )
    func ints(raw: String, expected: Int) {
        #expect(withValue(raw) { $0.int } == expected)
    }

    @Test("int rejects non-integers", arguments: ["", " ", "-", "4.5", "1e3", "12a", "9223372036854775808", "0x10", "HKCategoryValueSleepAnalysisInBed"])
    func notInts(raw: String) {
        #expect(withValue(raw) { $0.int } == .some(nil))
    }

    @Test(
        "double parses like the standard library, exactly",
        arguments: [
            "4.59", "47", "-0.5", "0.0399999991059303", "88.23378186623255", "28.81272718310356", "180.1558800000541",
            "1e3", "1E-3", "2.5e+10", ".5", "5.", "-0", "0.000000000000000000000000000001", "123456789012345678901234567890",
            "1.7976931348623157e308", "4.9e-324", "1e400", "0.1", "0.3", "9007199254740993", "  21.3294 ", "5.43210",
        ]
    )
    func doubles(raw: String) throws {
        let expected = try #require(Double(raw.trimmedSpaces()))
        let parsed = try #require(withValue(raw) { $0.double } ?? nil)
        #expect(parsed == expected || (parsed.isNaN && expected.isNaN))
        #expect(parsed.sign == expected.sign)
    }

    @Test("double rejects what is not a decimal number", arguments: ["", "abc", "1.2.3", "e5", "1e", "1e+", "--1", "inf", "nan", "0x1p3", "1,5", ".", "-"])
    func notDoubles(raw: String) {
        #expect(withValue(raw) { $0.double } == .some(nil))
    }

    @Test("numbers written with character references still parse")
    func numbersWithReferences() {
        #expect(withValue("&#52;7") { $0.int } == 47)
        #expect(withValue("&#52;.5") { $0.double } == 4.5)
    }

    @Test("firstInvalidCharacterReference")
    func invalidReferences() {
        func first(_ text: String) -> Int? {
            Array(text.utf8).withUnsafeBytes { XMLEntityDecoder.firstInvalidCharacterReference(in: $0) }
        }
        #expect(first("&#x2019;&#10;&#9;&#13;&foo;&") == nil)
        #expect(first("ok&#0;") == 2)
        #expect(first("&#xFFFE;") == 0)
        #expect(first("ab&#12") == 2)
        #expect(first("&#x110000;") == 0)
    }
}

extension String {
    fileprivate func trimmedSpaces() -> String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
