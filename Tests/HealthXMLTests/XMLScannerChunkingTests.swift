import Foundation
import HealthXML
import Testing

/// Documents whose events must not depend on where the input is cut.
let chunkingDocuments: [(String, [UInt8])] = [
    ("sample", sampleDocument),
    ("malformed", malformedDocument),
    (
        "unclosed DTD",
        bytes("<!DOCTYPE HealthData [\n<!ELEMENT a EMPTY>\n<!ATTLIST a\n  b CDATA #IMPLIED\n<HealthData x=\"1\"><a b='&#x2019;'/></HealthData>")
    ),
    (
        "iOS 16 DTD",
        bytes(
            "<!DOCTYPE HealthData [\n<!ATTLIST VisionPrescription\n  type CDATA #REQUIRED\n<!ELEMENT RightEye EMPTY>\n<!-- ]> -->\n<!ENTITY e \"]>\">\n]>\n<HealthData><Record value=\"&lt;1&gt;\"/></HealthData>"
        )
    ),
    (
        "multi-byte",
        bytes("<r n=\"é€😀\" m='&#x1F600;&amp;&#160;'><é€ a=\"ü\"/></r><!-- é --><?é?>")
    ),
]

@Suite("XMLScanner: chunking")
struct XMLScannerChunkingTests {
    @Test("1-byte chunks give the same events as a single chunk", arguments: chunkingDocuments.map(\.0))
    func oneByteChunks(name: String) throws {
        let doc = try #require(chunkingDocuments.first { $0.0 == name }).1
        let reference = scan(doc)
        #expect(!reference.isEmpty)
        let (events, maximumBuffered) = scan(doc, chunkSize: 1)
        #expect(events == reference)
        #expect(maximumBuffered < 200)
    }

    @Test("every split into two chunks gives the same events", arguments: chunkingDocuments.map(\.0))
    func everyTwoChunkSplit(name: String) throws {
        let doc = try #require(chunkingDocuments.first { $0.0 == name }).1
        let reference = scan(doc)
        for cut in 0...doc.count {
            let events = scan(doc, cuts: [cut])
            if events != reference {
                Issue.record("split at \(cut) differs:\n\(events)\nexpected:\n\(reference)")
                return
            }
        }
    }

    @Test("random three-way splits and odd chunk sizes give the same events")
    func otherSplits() {
        var generator = SplitMix(seed: 42)
        for (name, doc) in chunkingDocuments {
            let reference = scan(doc)
            for _ in 0..<300 {
                let a = Int(generator.next() % UInt64(doc.count + 1))
                let b = Int(generator.next() % UInt64(doc.count + 1))
                let events = scan(doc, cuts: [min(a, b), max(a, b)])
                #expect(events == reference, "\(name) split at \(min(a, b)), \(max(a, b))")
            }
            for size in [2, 3, 5, 7, 13, 64] {
                #expect(scan(doc, chunkSize: size).events == reference, "\(name) in chunks of \(size)")
            }
        }
    }

    @Test("truncation at every byte reports truncation (or a malformed tag), never crashes, and keeps earlier events")
    func truncationAtEveryByte() {
        for doc in [sampleDocument, malformedDocument] {
            let reference = scan(doc)
            let rootEnd = offset(of: "</HealthData>", in: doc) + "</HealthData>".utf8.count
            for length in 0...doc.count {
                let prefix = Array(doc[0..<length])
                for events in [scan(prefix), scan(prefix, chunkSize: 1).events] {
                    if length < rootEnd {
                        guard let last = events.last, last.error?.kind == .truncated else {
                            Issue.record("prefix of \(length) bytes: no truncation reported: \(events)")
                            return
                        }
                        // Everything before the final report is what the full document reports first.
                        let delivered = Array(events.dropLast())
                        if Array(reference.prefix(delivered.count)) != delivered {
                            Issue.record("prefix of \(length) bytes: events differ: \(delivered)")
                            return
                        }
                    } else {
                        #expect(events == reference)
                    }
                }
            }
        }
    }

    @Test("truncation messages say what was open")
    func truncationMessages() throws {
        let inTag = try #require(scan(bytes("<HealthData>\n<Record type=\"x")).last?.error)
        #expect(inTag.kind == .truncated)
        #expect(inTag.offset == 13 && inTag.line == 2)
        #expect(inTag.message.contains("<Record"))
        #expect(inTag.message.contains("<HealthData>"))

        let open = try #require(scan(bytes("<HealthData>\n <Record>\n  <MetadataEntry/>")).last?.error)
        #expect(open.kind == .truncated)
        #expect(open.offset == 14 && open.line == 2)
        #expect(open.message == "input ends with 2 unclosed elements: <HealthData> (line 1) > <Record> (line 2)")

        #expect(scan([]).map(\.error?.kind) == [.truncated])
        #expect(scan(bytes("<?xml version=\"1.0\"?>\n<!-- only a comment -->\n")).map(\.error?.kind) == [.truncated])
        #expect(scan(bytes("<!-- unterminated")).last?.error?.message == "input ends inside a comment")
        #expect(scan(bytes("<!DOCTYPE a [ <!ELEMENT a EMPTY>")).last?.error?.message == "input ends inside the DOCTYPE declaration")
    }

    @Test("a tag larger than the limit is reported and skipped without being buffered")
    func tooLargeTag() {
        let big = String(repeating: "x", count: 500)
        let doc = bytes("<r>\n<a v=\"\(big)\" w='>'/>\n<!-- \(big) -->\n<b/>\n</r>")
        let options = XMLScanner.Options(maximumTagSize: 64)
        let reference = scan(doc, options: options)
        #expect(reference.compactMap(\.name) == ["r", "b", "r"])
        #expect(reference.malformed.map(\.kind) == [.tooLarge, .tooLarge])
        #expect(reference.malformed.map(\.line) == [2, 3])
        for size in [1, 7, 100] {
            let (events, maximumBuffered) = scan(doc, chunkSize: size, options: options)
            #expect(events == reference)
            #expect(maximumBuffered <= 64)
        }
    }

    @Test("an oversized DOCTYPE is reported, then the scan resumes at the first element")
    func tooLargeDoctype() {
        let doc = bytes("<!DOCTYPE a [ <!ENTITY e \"\(String(repeating: "y", count: 300)) \n<r a='1'/>")
        let options = XMLScanner.Options(maximumTagSize: 64)
        let reference = scan(doc, options: options)
        #expect(reference.compactMap(\.name) == ["r"])
        #expect(reference.malformed.map(\.kind) == [.tooLarge])
        #expect(scan(doc, chunkSize: 5, options: options).events == reference)
    }
}

/// A tiny deterministic generator for reproducible random splits.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { self.state = seed }
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("XMLScanner: mutated input")
struct XMLScannerFuzzTests {
    /// Bytes that matter to the grammar, used to damage documents.
    static let alphabet: [UInt8] = Array("<>/='\"!?-[]&;# \nxDOCTYPE".utf8) + [0x0B, 0xEF, 0x00]

    @Test("randomly damaged documents never crash and give the same events whatever the chunking")
    func mutations() {
        let iterations = Int(ProcessInfo.processInfo.environment["HEALTHXML_FUZZ_ITERATIONS"] ?? "") ?? 400
        var generator = SplitMix(seed: UInt64(ProcessInfo.processInfo.environment["HEALTHXML_FUZZ_SEED"] ?? "") ?? 7)
        let sources = chunkingDocuments.map(\.1)
        for iteration in 0..<iterations {
            var doc = sources[iteration % sources.count]
            let edits = 1 + Int(generator.next() % 8)
            for _ in 0..<edits where !doc.isEmpty {
                let position = Int(generator.next() % UInt64(doc.count))
                let byte = Self.alphabet[Int(generator.next() % UInt64(Self.alphabet.count))]
                switch generator.next() % 3 {
                case 0: doc[position] = byte
                case 1: doc.insert(byte, at: position)
                default: doc.remove(at: position)
                }
            }
            let options = XMLScanner.Options(maximumTagSize: generator.next() % 2 == 0 ? 16 << 20 : 40)
            let reference = scan(doc, options: options)
            let a = Int(generator.next() % UInt64(doc.count + 1))
            let b = Int(generator.next() % UInt64(doc.count + 1))
            let split = scan(doc, cuts: [min(a, b), max(a, b)], options: options)
            let bytewise = scan(doc, chunkSize: 1, options: options).events
            if split != reference || bytewise != reference {
                Issue.record(
                    "iteration \(iteration), cuts \(min(a, b)), \(max(a, b)): \(String(decoding: doc, as: UTF8.self).debugDescription)\nwhole: \(reference)\nsplit: \(split)\n1-byte: \(bytewise)"
                )
                return
            }
        }
    }
}
