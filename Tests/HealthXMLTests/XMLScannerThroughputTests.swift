import Foundation
import HealthXML
import Testing

/// Record-dense synthetic export body, shaped like real Apple Watch / iPhone data.
private func syntheticRecords(count: Int) -> [UInt8] {
    var text = ""
    text.reserveCapacity(count * 360)
    for index in 0..<count {
        let minute = index % 60
        let second = (index * 7) % 60
        let value = 50 + (index * 37) % 120
        switch index % 5 {
        case 0, 1:
            text += """
                 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Alex\u{2019}s Apple\u{A0}Watch" sourceVersion="9.6.3" device="&lt;&lt;HKDevice: 0x533ad2350&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch4,4, software:9.6.3&gt;" unit="count/min" creationDate="2025-05-28 19:\(minute):0\(second % 10) +0100" startDate="2025-05-28 19:\(minute):\(second) +0100" endDate="2025-05-28 19:\(minute):\(second) +0100" value="\(value)"/>

                """
        case 2:
            text += """
                 <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="Ryan Phone" sourceVersion="12.3" device="&lt;&lt;HKDevice: 0x282e3a260&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,4, software:12.3&gt;" unit="km" creationDate="2019-05-14 19:05:29 -0400" startDate="2019-05-14 18:52:09 -0400" endDate="2019-05-14 19:01:40 -0400" value="0.0\(value)399999991059303"/>

                """
        case 3:
            text += """
                 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Alex\u{2019}s Apple\u{A0}Watch" sourceVersion="9.6.3" device="&lt;&lt;HKDevice: 0x533ad2350&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch4,4, software:9.6.3&gt;" unit="count/min" creationDate="2025-05-28 19:26:08 +0100" startDate="2025-05-28 19:20:56 +0100" endDate="2025-05-28 19:20:56 +0100" value="\(value)">
                  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="\(index % 3)"/>
                 </Record>

                """
        default:
            text += """
                 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Ryan Phone" sourceVersion="12.3" unit="count" creationDate="2019-05-14 20:35:59 -0400" startDate="2019-05-14 20:08:51 -0400" endDate="2019-05-14 20:15:32 -0400" value="\(value * 3)"/>

                """
        }
    }
    return Array(text.utf8)
}

private let syntheticHeader = bytes(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!-- HealthKit Export Version: 14 -->
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
    <!ATTLIST HealthData
      locale CDATA #REQUIRED
    >
    ]>
    <HealthData locale="en_US">
     <ExportDate value="2025-06-17 12:00:00 +0100"/>

    """
)

private let syntheticFooter = bytes("</HealthData>\n")

/// Scans `header + body × repeats + footer` in `chunkSize` chunks; returns (records, malformed, seconds…).
private func run(
    header: [UInt8] = syntheticHeader,
    body: [UInt8],
    footer: [UInt8] = syntheticFooter,
    repeats: Int,
    chunkSize: Int,
    readAttributes: Bool
) -> (records: Int, malformed: Int, heartRateSum: Double, seconds: Double, maximumBuffered: Int) {
    var scanner = XMLScanner()
    var maximumBuffered = 0
    var records = 0
    var malformed = 0
    var heartRateSum = 0.0
    let handler: (borrowing XMLEvent) -> Void = { event in
        switch event {
        case .startElement(let element):
            guard element.name == "Record" else { return }
            records += 1
            if readAttributes, element.attribute(named: "type")?.isEqual(to: "HKQuantityTypeIdentifierHeartRate") == true,
                let value = element.attribute(named: "value")?.double,
                element.attribute(named: "startDate") != nil, element.attribute(named: "sourceName") != nil
            {
                heartRateSum += value
            }
        case .endElement:
            break
        case .malformed:
            malformed += 1
        }
    }
    let clock = ContinuousClock()
    let start = clock.now
    scanner.feed(header, handler)
    body.withUnsafeBytes { all in
        for _ in 0..<repeats {
            var offset = 0
            while offset < all.count {
                let end = min(offset + chunkSize, all.count)
                scanner.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end]), handler)
                maximumBuffered = max(maximumBuffered, scanner.bufferedByteCount)
                offset = end
            }
        }
    }
    scanner.feed(footer, handler)
    scanner.finish(handler)
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return (records, malformed, heartRateSum, seconds, maximumBuffered)
}

@Suite("XMLScanner: throughput")
struct XMLScannerThroughputTests {
    /// Always checks correctness on a few MB. With `HEALTHXML_THROUGHPUT=/path/to/report.txt` (run it in release:
    /// `HEALTHXML_THROUGHPUT=/tmp/hb-xml/throughput.txt swift test -c release --filter throughput`), it scans
    /// ~256 MB several times and writes the MB/s figures to that file; it prints nothing.
    @Test("record-dense data scans correctly (and measures MB/s when asked)")
    func throughput() throws {
        let reportPath = ProcessInfo.processInfo.environment["HEALTHXML_THROUGHPUT"]
        let recordsPerBody = 20_000
        let body = syntheticRecords(count: recordsPerBody)
        let repeats = reportPath == nil ? 1 : max(1, (256 << 20) / body.count)
        let totalBytes = syntheticHeader.count + body.count * repeats + syntheticFooter.count
        var report: [String] = []
        for readAttributes in [false, true] {
            var best = Double.infinity
            for _ in 0..<(reportPath == nil ? 1 : 3) {
                let result = run(body: body, repeats: repeats, chunkSize: 1 << 20, readAttributes: readAttributes)
                #expect(result.records == recordsPerBody * repeats)
                #expect(result.malformed == 0)
                if readAttributes { #expect(result.heartRateSum > 0) }
                best = min(best, result.seconds)
            }
            let megabytesPerSecond = Double(totalBytes) / 1e6 / best
            report.append(
                String(
                    format: "%@: %.1f MB in %.3f s = %.0f MB/s (%.2f M records/s)",
                    readAttributes ? "tokenize + read type/value(double)/startDate/sourceName" : "tokenize only (name test per element)",
                    Double(totalBytes) / 1e6,
                    best,
                    megabytesPerSecond,
                    Double(recordsPerBody * repeats) / 1e6 / best
                )
            )
        }
        // Small chunks: a split tag per chunk, and only that tag is held over.
        let small = run(body: body, repeats: 1, chunkSize: 4093, readAttributes: true)
        #expect(small.records == recordsPerBody)
        #expect(small.malformed == 0)
        #expect(small.maximumBuffered > 0 && small.maximumBuffered < 600)
        // The real iPhone export, from memory (its body repeated to ~128 MB when measuring).
        if fixtureExists("real-iphone-2019-export.xml") {
            let file = try [UInt8](Data(contentsOf: fixturesDirectory.appendingPathComponent("real-iphone-2019-export.xml")))
            let bodyStart = offset(of: "<HealthData", in: file) + offset(of: ">", in: Array(file[offset(of: "<HealthData", in: file)...])) + 1
            let bodyEnd = offset(of: "</HealthData>", in: file)
            let fileRepeats = reportPath == nil ? 1 : (128 << 20) / (bodyEnd - bodyStart)
            var best = Double.infinity
            for _ in 0..<(reportPath == nil ? 1 : 3) {
                let result = run(
                    header: Array(file[..<bodyStart]),
                    body: Array(file[bodyStart..<bodyEnd]),
                    footer: Array(file[bodyEnd...]),
                    repeats: fileRepeats,
                    chunkSize: 64 * 1024,
                    readAttributes: false
                )
                #expect(result.records == 3352 * fileRepeats)
                #expect(result.malformed == 0)
                best = min(best, result.seconds)
            }
            let total = Double(bodyStart + (bodyEnd - bodyStart) * fileRepeats + (file.count - bodyEnd))
            report.append(
                String(
                    format: "real-iphone-2019-export.xml body x%d, 64 KiB chunks: %.1f MB in %.3f s = %.0f MB/s",
                    fileRepeats,
                    total / 1e6,
                    best,
                    total / 1e6 / best
                )
            )
        }
        if let reportPath {
            try (report.joined(separator: "\n") + "\n").write(toFile: reportPath, atomically: true, encoding: .utf8)
        }
    }
}
