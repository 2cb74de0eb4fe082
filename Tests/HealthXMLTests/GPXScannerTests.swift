import Foundation
import Testing

@testable import HealthXML

@Suite("GPXScanner: track points of Health app route files")
struct GPXScannerTests {
    /// Two points exactly as the iPhone writes them (from a real export), then one without a time.
    static let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata>
            <time>2022-12-23T20:35:22Z</time>
          </metadata>
          <trk>
            <name>Route 2020-02-24 10:18am</name>
            <trkseg>
              <trkpt lon="-118.232524" lat="34.045088"><ele>85.651855</ele><time>2020-02-24T18:00:45Z</time><extensions><speed>1.154731</speed><course>169.804688</course><hAcc>2.270945</hAcc><vAcc>1.579882</vAcc></extensions></trkpt>
              <trkpt lon="-118.232527" lat="34.045077"><ele>85.614594</ele><time>2020-02-24T18:00:47Z</time><extensions><speed>1.152777</speed><course>169.804688</course><hAcc>2.027519</hAcc><vAcc>1.410592</vAcc></extensions></trkpt>
              <trkpt lon="-118.2" lat="34.0"><ele>85.5</ele></trkpt>
            </trkseg>
          </trk>
        </gpx>
        """

    static func scan(_ text: String) -> ([GPXTrackPoint], GPXScanResult) {
        var points: [GPXTrackPoint] = []
        let result = Data(text.utf8).withUnsafeBytes { GPXScanner.scan($0) { points.append($0) } }
        return (points, result)
    }

    @Test("every field of an iPhone track point, exactly as the standard library reads the text")
    func iphonePoint() throws {
        let (points, result) = Self.scan(Self.document)
        #expect(result.points == 2)
        #expect(points.count == 2)
        let first = try #require(points.first)
        #expect(first.longitude == Double("-118.232524"))
        #expect(first.latitude == Double("34.045088"))
        #expect(first.elevation == Double("85.651855"))
        #expect(first.time == 1_582_567_245)  // 2020-02-24T18:00:45Z
        #expect(first.speed == Double("1.154731"))
        #expect(first.course == Double("169.804688"))
        #expect(first.horizontalAccuracy == Double("2.270945"))
        #expect(first.verticalAccuracy == Double("1.579882"))
        #expect(points[1].time == 1_582_567_247)
        #expect(points[1].verticalAccuracy == Double("1.410592"))
    }

    @Test("a point without a time is skipped and reported; the others are kept")
    func pointWithoutTime() {
        let (points, result) = Self.scan(Self.document)
        #expect(points.count == 2)
        #expect(result.skipped == 1)
        #expect(result.firstProblem?.contains("no readable <time>") == true)
    }

    @Test("attributes in either order and quote, optional values absent as NaN, self-closing points")
    func variants() throws {
        let text = """
            <gpx><trk><trkseg>
            <trkpt lat='48.5' lon='2.25'><time>2024-05-01T07:30:00.250Z</time></trkpt>
            <trkpt
              lat="-33.9" lon="151.2"><time>2024-05-01T09:30:00+02:00</time><ele>-3</ele></trkpt>
            <trkpt lat="1" lon="2"/>
            </trkseg></trk></gpx>
            """
        let (points, result) = Self.scan(text)
        #expect(points.count == 2)
        #expect(result.skipped == 1)  // the self-closing point has no time
        let first = try #require(points.first)
        #expect(first.latitude == 48.5 && first.longitude == 2.25)
        #expect(first.time == 1_714_548_600.25)
        #expect(first.elevation.isNaN && first.speed.isNaN && first.course.isNaN)
        #expect(first.horizontalAccuracy.isNaN && first.verticalAccuracy.isNaN)
        #expect(points[1].time == 1_714_548_600)  // 09:30 at +02:00 is 07:30Z
        #expect(points[1].elevation == -3)
    }

    @Test("a file cut inside a point keeps the points before it and reports the cut one")
    func truncated() throws {
        let full = Self.document
        let range = try #require(full.range(of: "<course>169.804688</course><hAcc>2.027519"))
        let cut = String(full[..<range.upperBound])
        let (points, result) = Self.scan(cut)
        #expect(points.count == 1)
        #expect(result.skipped == 1)
        #expect(result.firstProblem?.contains("ends inside") == true)
    }

    @Test("a point whose end tag is missing is reported, and the next point is still read")
    func missingEndTag() {
        let text = """
            <gpx><trkseg>
            <trkpt lat="1" lon="2"><time>2024-05-01T07:30:00Z</time>
            <trkpt lat="3" lon="4"><time>2024-05-01T07:30:01Z</time></trkpt>
            </trkseg></gpx>
            """
        let (points, result) = Self.scan(text)
        #expect(points.map(\.latitude) == [3])
        #expect(result.skipped == 1)
        #expect(result.firstProblem?.contains("without its end tag") == true)
    }

    @Test("garbage, out-of-range coordinates and an empty buffer never crash")
    func garbage() {
        #expect(Self.scan("").1.points == 0)
        #expect(Self.scan("<trkpt").1.skipped == 1)
        #expect(Self.scan("<trkpt lat=\"91\" lon=\"0\"><time>2024-05-01T07:30:00Z</time></trkpt>").1.skipped == 1)
        #expect(Self.scan("<trkpt lat=\"x\" lon=\"0\"><time>nope</time></trkpt>").1.firstProblem?.contains("lat/lon") == true)
        #expect(Self.scan("not xml at all < < <").1.points == 0)
        #expect(Self.scan("<trkptx lat=\"1\" lon=\"1\"><time>2024-05-01T07:30:00Z</time></trkptx>").1.points == 0)
    }

    @Test("ISO 8601 times: zones, fractions, malformed")
    func times() {
        func parse(_ text: String) -> Double? { Data(text.utf8).withUnsafeBytes { GPXTime.parse($0) } }
        #expect(parse("1970-01-01T00:00:00Z") == 0)
        #expect(parse("2020-02-24T18:00:45Z") == 1_582_567_245)
        #expect(parse("2020-02-24T10:00:45-08:00") == 1_582_567_245)
        #expect(parse("2020-02-24 10:00:45 -0800") == 1_582_567_245)
        #expect(parse("2020-02-24T18:00:45") == 1_582_567_245)
        #expect(parse("2020-02-24T18:00:45.5Z") == 1_582_567_245.5)
        #expect(parse("2020-02-24T18:00Z") == nil)
        #expect(parse("2020-13-24T18:00:45Z") == nil)
        #expect(parse("2020-02-24T18:00:45+0") == nil)
        #expect(parse("2020-02-24T18:00:45Zjunk") == nil)
    }
}
