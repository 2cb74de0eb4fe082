import HealthXML
import Testing

/// Element counts of a scan.
private struct Tally: Equatable {
    var starts: [String: Int] = [:]
    var topLevel: [String: Int] = [:]
    var ends = 0
    var malformed: [XMLScanError] = []
    var maximumDepth = 0

    mutating func add(_ event: borrowing XMLEvent) {
        switch event {
        case .startElement(let element):
            self.starts[element.name.string, default: 0] += 1
            if element.depth == 1 { self.topLevel[element.name.string, default: 0] += 1 }
            self.maximumDepth = max(self.maximumDepth, element.depth)
        case .endElement:
            self.ends += 1
        case .malformed(let error):
            self.malformed.append(error)
        }
    }
}

@Suite("XMLScanner: real exports")
struct XMLScannerFixtureTests {
    @Test(
        "real-iphone-2019-export.xml: 3,352 Records, no malformed events, whatever the chunk size",
        .enabled(if: fixtureExists("real-iphone-2019-export.xml"), "fixtures folder ../shared/fixtures not found")
    )
    func realIPhone2019() throws {
        var reference: Tally?
        for chunkSize in [64 * 1024, 1 << 20, 4093, 7] {
            var tally = Tally()
            let scanner = try scanFixture("real-iphone-2019-export.xml", chunkSize: chunkSize) { tally.add($0) }
            #expect(tally.starts["Record"] == 3352)
            #expect(tally.malformed.isEmpty, "\(tally.malformed.prefix(3))")
            #expect(tally.starts["MetadataEntry"] == 7)
            #expect(tally.starts.values.reduce(0, +) == 3362)
            #expect(tally.ends == 8)
            #expect(tally.maximumDepth == 2)
            #expect(scanner.bytesConsumed == 1_275_905)
            #expect(scanner.line == 3489)
            #expect(scanner.bufferedByteCount == 0)
            if let reference { #expect(tally == reference) }
            reference = tally
        }
    }

    @Test(
        "real-iphone-2019-export.xml: attribute values of the first Record",
        .enabled(if: fixtureExists("real-iphone-2019-export.xml"), "fixtures folder ../shared/fixtures not found")
    )
    func realIPhone2019FirstRecord() throws {
        var checked = false
        _ = try scanFixture("real-iphone-2019-export.xml", chunkSize: 3000) { event in
            guard !checked, case .startElement(let element) = event, element.name == "Record" else { return }
            checked = true
            #expect(element.line == 122)
            #expect(element.depth == 1)
            #expect(element.attribute(named: "type")?.isEqual(to: "HKQuantityTypeIdentifierStepCount") == true)
            #expect(element.attribute(named: "value")?.int == 47)
            #expect(element.attribute(named: "value")?.double == 47)
            #expect(
                element.attribute(named: "device")?.string
                    == "<<HKDevice: 0x282e3a260>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,4, software:12.3>"
            )
            #expect(element.attribute(named: "startDate")?.string == "2019-05-14 18:52:09 -0400")
        }
        #expect(checked)
    }

    @Test(
        "realistic-v14-export.xml: zero errors and the element counts grep gives",
        .enabled(if: fixtureExists("realistic-v14-export.xml"), "fixtures folder ../shared/fixtures not found")
    )
    func realisticV14() throws {
        var reference: Tally?
        for chunkSize in [64 * 1024, 1000, 1] {
            var tally = Tally()
            let scanner = try scanFixture("realistic-v14-export.xml", chunkSize: chunkSize) { tally.add($0) }
            #expect(tally.malformed.isEmpty, "\(tally.malformed.prefix(3))")
            // grep -c '<Record ' → 28, '<Correlation ' → 1, '<Workout ' → 2, '<ActivitySummary ' → 3
            #expect(tally.starts["Record"] == 28)
            #expect(tally.starts["Correlation"] == 1)
            #expect(tally.starts["Workout"] == 2)
            #expect(tally.starts["ActivitySummary"] == 3)
            #expect(tally.starts["MetadataEntry"] == 23)
            #expect(tally.starts["WorkoutStatistics"] == 3)
            #expect(tally.starts["InstantaneousBeatsPerMinute"] == 2)
            // Two of the Records are the Correlation's children: 26 at the top level (grep -c '^ <Record').
            #expect(tally.topLevel["Record"] == 26)
            #expect(tally.maximumDepth == 3)
            #expect(scanner.bytesConsumed == 22_386)
            #expect(scanner.line == 346)
            if let reference { #expect(tally == reference) }
            reference = tally
        }
    }

    @Test(
        "realistic-v14-export.xml: escaped and non-ASCII values",
        .enabled(if: fixtureExists("realistic-v14-export.xml"), "fixtures folder ../shared/fixtures not found")
    )
    func realisticV14Values() throws {
        var units: [String] = []
        var mets: [String] = []
        var durations: [Double] = []
        _ = try scanFixture("realistic-v14-export.xml", chunkSize: 777) { event in
            guard case .startElement(let element) = event else { return }
            if element.name == "Record", element.attribute(named: "type")?.isEqual(to: "HKQuantityTypeIdentifierBloodGlucose") == true {
                units.append(element.attribute(named: "unit")?.string ?? "")
            } else if element.name == "MetadataEntry", element.attribute(named: "key")?.isEqual(to: "HKAverageMETs") == true {
                mets.append(element.attribute(named: "value")?.string ?? "")
            } else if element.name == "Workout", let duration = element.attribute(named: "duration")?.double {
                durations.append(duration)
            }
        }
        #expect(units == ["mmol<180.1558800000541>/L", "mmol<180.1558800000541>/L"])
        #expect(mets == ["5.43210 kcal/hr\u{B7}kg"])
        #expect(durations == [88.23378186623255, 28.81272718310356])
    }
}
