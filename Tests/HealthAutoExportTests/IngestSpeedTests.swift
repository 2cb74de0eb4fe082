import Foundation
import HealthModel
import HealthStore
import Testing
@testable import HealthAutoExport
@testable import HealthService

/// Issue 24: the fast paths of the ingest (no `String` per date, reused sources, sync identifiers written byte by
/// byte, rows written without a `HealthSample`) give exactly what the general paths gave.
@Suite struct IngestSpeedTests {
    /// The sync identifier as it was built before (string interpolation).
    static func reference(_ key: IngestBatchBuilder.Key, _ prefix: String) -> String {
        if key.night { return "\(prefix)/\(key.type)/night/\(key.start)/\(key.category)" }
        var text = "\(prefix)/\(key.type)/\(key.start)"
        if key.category >= 0 { text += "/\(key.category)" }
        text += "/\(key.end)"
        if key.source != 0 { text += "/" + String(key.source, radix: 16) }
        return text
    }

    @Test func syncIdentifiersAreWrittenAsInterpolationWroteThem() {
        let instants: [Double] = [0, 0.001, 0.009, 0.01, 0.099, 0.1, 1_706_000_000, -0.001, -0.01, -1_706_000_000,
                                  1e300, -1e300, 9.2e15]
        let categories: [Int?] = [nil, 0, 1, 5, 10, .max, .min]
        let sources: [UInt64] = [0, 1, 15, 16, 0xABCDEF, .max, 1 << 63]
        var checked = 0
        for night in [nil, 1_706_000_000.5, -1e300] {
            for start in instants {
                for category in categories {
                    for (index, source) in sources.enumerated() {
                        let value: HAEItem.Value = category.map { .category($0) } ?? .quantity(1)
                        let item = HAEItem(metric: "m", type: "sleepAnalysis", value: value, unit: "", start: start,
                                           end: instants[(index * 5) % instants.count], utcOffset: 0, source: "s",
                                           aggregated: index % 2 == 0, metadata: [:], night: night)
                        let key = IngestBatchBuilder.Key(item, sourceHash: source)
                        for prefix in ["hae", "hc"] {
                            #expect(key.string(prefix) == Self.reference(key, prefix))
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 3 * instants.count * categories.count * sources.count * 2)
    }

    @Test func skippingAStringFailsWhereReadingItFails() throws {
        let texts = [#""plain""#, #""esc\"aped\n\u00e9\ud83d\ude00""#, #""bad \q escape""#, "\"control \u{01}\"",
                     #""unterminated"#, #""lone \ud83d surrogate""#, #""bad pair \ud83d\u0041""#, #""short \u12""#,
                     #""trailing \"#, "\"after \\n control \u{02}\""]
        for text in texts {
            var reading = JSONPullReader(Array(text.utf8)), skipping = reading
            var readError: String?, skipError: String?
            do { _ = try reading.string() } catch { readError = error.message }
            do { try skipping.skipValue() } catch { skipError = error.message }
            #expect(readError == skipError, "\(text)")
            if readError == nil { #expect(reading.offset == skipping.offset, "\(text)") }
        }
    }

    @Test func stringBytesAndCachedStringsAreTheStringsRead() throws {
        let json = #"["Sam’s Watch", "Sam’s Watch", "esc\u00e9\"d", "esc\u00e9\"d", 12, "other", null]"#
        var plain = JSONPullReader(Array(json.utf8)), cached = plain, bytes = plain
        var cache = JSONPullReader.StringCache()
        try plain.beginArray(); try cached.beginArray(); try bytes.beginArray()
        var count = 0
        while try plain.nextElement() {
            #expect(try cached.nextElement() && bytes.nextElement())
            let expected = try plain.optionalString()
            #expect(try cached.optionalString(cache: &cache) == expected)
            #expect(try bytes.withOptionalStringBytes { String(decoding: $0, as: UTF8.self) } == expected)
            count += 1
        }
        #expect(count == 7)
        #expect(try !cached.nextElement() && !bytes.nextElement())
    }

    /// A metric read where it stands (name and units first, the app's order) and one read after its data (data
    /// first) give the same items and counts.
    @Test func aMetricReadInPlaceIsTheMetricReadAfterItsData() throws {
        let points = #"[{"date":"2024-02-06 14:00:00 +0100","qty":812,"source":"Watch|Phone"},"#
            + #"{"date":"2024-02-06 15:00:00 +0100","qty":90,"source":"Watch|Phone"},{"date":"bad","qty":1},7]"#
        let orders = [
            #"{"data":{"metrics":[{"name":"step_count","units":"count","data":\#(points)},"#
                + #"{"name":"","units":"count","data":\#(points)},{"name":"no_such_metric","units":"x","data":\#(points)}]}}"#,
            #"{"data":{"metrics":[{"data":\#(points),"units":"count","name":"step_count"},"#
                + #"{"data":\#(points),"units":"count","name":""},{"data":\#(points),"name":"no_such_metric","units":"x"}]}}"#,
        ]
        var results: [([String], HAEReadSummary)] = []
        for body in orders {
            var items: [String] = []
            let summary = try HAEPayloadReader(aggregation: .hour).read(Array(body.utf8), item: { item in
                items.append("\(item.type) \(item.start) \(item.end) \(item.value) \(item.aggregated)")
            }, workout: { _ in })
            results.append((items, summary))
        }
        #expect(results[0].0.count == 2)
        #expect(results[0].0 == results[1].0)
        #expect(results[0].1 == results[1].1)
        #expect(results[0].1.unknown == ["(metric without a name)": 4, "no_such_metric": 4])
        #expect(results[0].1.items == ["step_count": 4])
        #expect(results[0].1.rejected == ["step_count": 2])
    }

    @Test func datesParseTheSameFromBytesAndFromStrings() {
        for text in ["2024-02-06 14:30:00 -0800", "2024-02-06 2:30:00\u{202F}PM -0800", "2024-02-06 2:30:00\u{00A0}AM +0100",
                     "2024-02-06T14:30:00.250Z", "2024-02-06", "2024-13-06 14:30:00 -0800", "", "2024-02-06 14:30"] {
            var copy = text
            let fromBytes = copy.withUTF8 { HAEDate.parse(UnsafeRawBufferPointer($0)) }
            #expect(fromBytes == HAEDate.parse(text), "\(text)")
        }
    }

    /// The rows written straight into the batch are those `SampleBatch.append(_:)` made of the `HealthSample`
    /// built before (metadata JSON byte for byte, UUIDs, tables).
    @Test func rowsAreThoseOfTheSamplesTheyStandFor() throws {
        let source = HealthSource(name: "Health Auto Export (ingest:phone)", bundleIdentifier: "org.healthbridge.totals.x")
        let watch = HealthSource(name: "Sam’s Watch")
        let created = Date(timeIntervalSince1970: 1_750_000_000)
        func item(_ type: String, _ value: IngestBatch.Sample.Value, _ unit: String, _ start: Double,
                  _ metadata: [String: String], _ key: String) -> IngestBatch.Sample {
            IngestBatch.Sample(label: type, type: type, value: value, unit: unit,
                               start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: start + 3600),
                               utcOffset: 3600, attribution: .writerTotals, metadata: metadata, syncIdentifier: key)
        }
        let items: [(IngestBatch.Sample, HealthSource, Int, Int)] = [
            (item("stepCount", .quantity(812), "count", 1_700_000_000, [:], "hae/stepCount/1/2"), source, -1, 1),
            (item("stepCount", .quantity(90), "count", 1_700_003_600, [:], "hae/stepCount/\"q\"\\"), source, -1, 3),
            (item("heartRate", .quantity(71), "count/min", 1_700_000_000,
                  ["HealthBridgeMinimum": "60", "HealthBridgeMaximum": "95", "HKTimeZone": "Europe/Berlin"], "hae/heartRate/1"),
             source, -1, 1),
            (item("sleepAnalysis", .category(3), "", 1_700_000_000, [:], "hae/sleepAnalysis/night/1/3"), watch, 0, 2),
            (item("stepCount", .quantity(5), "count", 1_700_000_000, ["HKBloodGlucoseMealTime": "1"], "hae/stepCount/x"),
             watch, 0, 1),
        ]
        var writer = HealthService.IngestRowWriter(capacity: items.count, created: created)
        var expected = SampleBatch()
        for (sample, source, slot, version) in items {
            let value: SampleValue
            switch sample.value {
            case .quantity(let quantity): value = .quantity(quantity, unit: sample.unit)
            case .category(let category): value = .category(category)
            case .bloodPressure: value = .none
            }
            let uuid = writer.append(sample, type: sample.type, value: value, source: source, slot: slot,
                                     key: sample.syncIdentifier, version: version)
            var metadata = sample.metadata
            metadata[MetadataKey.syncIdentifier] = sample.syncIdentifier
            metadata[MetadataKey.syncVersion] = String(version)
            let natural = HealthSample.naturalUUID(type: sample.type, sourceKey: source.key, start: sample.start,
                                                   end: sample.end,
                                                   value: .quantity(Double(version), unit: sample.syncIdentifier))
            #expect(uuid == natural)
            expected.append(HealthSample(uuid: natural, type: sample.type, start: sample.start, end: sample.end,
                                         value: value, source: source, creationDate: created, metadata: metadata,
                                         utcOffset: sample.utcOffset))
        }
        let batch = writer.batch
        #expect(batch.syncIdentifiersChecked)
        #expect(batch.count == expected.count)
        #expect(batch.tables.types == expected.tables.types && batch.tables.units == expected.tables.units)
        #expect(batch.tables.sources == expected.tables.sources)
        for (row, reference) in zip(batch.rows, expected.rows) {
            #expect(row.uuid == reference.uuid && row.start == reference.start && row.end == reference.end)
            #expect(row.value == reference.value && row.kind == reference.kind && row.created == reference.created)
            #expect(row.type == reference.type && row.source == reference.source && row.unit == reference.unit)
            #expect(row.utcOffset == reference.utcOffset && row.syncVersion == reference.syncVersion)
            #expect(batch.text(row.metadata) == expected.text(reference.metadata))
            #expect(batch.text(row.syncIdentifier) == expected.text(reference.syncIdentifier))
            #expect(batch.text(row.timeZone) == expected.text(reference.timeZone))
        }
    }
}
