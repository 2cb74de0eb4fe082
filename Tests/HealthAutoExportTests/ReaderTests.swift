import Foundation
import HealthModel
import Testing
@testable import HealthAutoExport

/// The pull reader, HAE's dates and groupings, and the mapping of each shape, without a store.
@Suite struct ReaderTests {
    @Test func datesInEveryForm() throws {
        let plain = try #require(HAEDate.parse("2024-02-06 14:30:00 -0800"))
        #expect(plain.seconds == ISO8601.date("2024-02-06T22:30:00Z")!.timeIntervalSince1970)
        #expect(plain.offset == -28_800)
        let narrow = try #require(HAEDate.parse("2024-02-06 2:30:00\u{202F}PM -0800"))
        #expect(narrow == plain)
        #expect(HAEDate.parse("2024-02-06 2:30:00 pm -0800") == plain)
        #expect(HAEDate.parse("2024-02-06 12:05:00\u{202F}AM +0000")?.seconds == ISO8601.date("2024-02-06T00:05:00Z")!.timeIntervalSince1970)
        #expect(HAEDate.parse("2024-02-06 12:05:00\u{202F}PM +0000")?.seconds == ISO8601.date("2024-02-06T12:05:00Z")!.timeIntervalSince1970)
        #expect(HAEDate.parse("2024-02-06T14:30:00-08:00") == plain)
        #expect(HAEDate.parse("2024-02-06", dayOffset: 3600)?.seconds == ISO8601.date("2024-02-05T23:00:00Z")!.timeIntervalSince1970)
        for bad in ["", "2024-13-01 00:00:00 +0000", "2024-02-06 25:00:00 +0000", "yesterday", "2024-02-06 13:00:00 PM +0000",
                    "2024-02-06 10:00:00 +0000 trailing"] {
            #expect(HAEDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func groupingsAreRecognisedFromAlignedDates() throws {
        func dates(_ texts: [String]) -> [HAEDate] { texts.compactMap { HAEDate.parse($0) } }
        #expect(HAEBucket.infer(dates(["2024-03-04 08:00:00 +0100", "2024-03-04 09:00:00 +0100"])) == .hour)
        #expect(HAEBucket.infer(dates(["2024-03-04 00:00:00 +0100", "2024-03-05 00:00:00 +0100"])) == .day)
        #expect(HAEBucket.infer(dates(["2024-03-04 07:12:31 +0100"])) == nil, "a sample, not a bucket")
        #expect(HAEBucket.infer(dates(["2024-03-04 08:00:00 +0100", "2024-03-04 08:07:00 +0100"])) == .minute)
        #expect(HAEBucket(header: "Hours") == .hour && HAEBucket(header: "days") == .day && HAEBucket(header: "none") == nil)
        let march = try #require(HAEDate.parse("2024-03-01 00:00:00 +0100"))
        #expect(HAEBucket.month.end(of: march) - march.seconds == 31 * 86_400)
    }

    @Test func metricNamesMapToHealthKitTypes() {
        let expected = ["step_count": "stepCount", "active_energy": "activeEnergyBurned", "heart_rate": "heartRate",
                        "walking_running_distance": "distanceWalkingRunning", "weight_body_mass": "bodyMass",
                        "blood_oxygen_saturation": "oxygenSaturation", "heart_rate_variability": "heartRateVariabilitySDNN",
                        "flights_climbed": "flightsClimbed", "resting_heart_rate": "restingHeartRate",
                        "dietary_water": "dietaryWater", "body_temperature": "bodyTemperature", "vo2_max": "vo2Max"]
        for (name, type) in expected { #expect(HAEMetricCatalog.type(for: name) == type, "\(name)") }
        #expect(HAEMetricCatalog.type(for: "made_up_metric") == nil)
    }

    @Test func everyShapeOfTheHourlyFixtureIsMappedOrReported() throws {
        var items: [HAEItem] = []
        let summary = try HAEPayloadReader().read(try Fixture.bytes("metrics-hourly.json"), item: { items.append($0) },
                                                  workout: { _ in })
        #expect(summary.unknown == ["made_up_metric": 2, "stateOfMind": 1])
        #expect(summary.rejected == ["flights_climbed": 1])
        let steps = items.filter { $0.type == "stepCount" }
        #expect(steps.map(\.value) == [.quantity(1200), .quantity(340.5), .quantity(2210)])
        #expect(steps.allSatisfy { $0.aggregated && $0.end - $0.start == 3600 })
        let energy = items.filter { $0.type == "activeEnergyBurned" }.compactMap { item -> Double? in
            if case .quantity(let v) = item.value { v } else { nil }
        }
        #expect(energy.count == 2 && abs(energy[0] - 100) < 1e-9 && abs(energy[1] - 20) < 1e-9, "kJ → kcal")
        let temperature = try #require(items.first { $0.type == "bodyTemperature" })
        #expect(!temperature.aggregated && temperature.end == temperature.start, "a reading at 07:12:31 is a sample")
        guard case .quantity(let celsius) = temperature.value else { Issue.record("not a quantity"); return }
        #expect(abs(celsius - 37) < 1e-9, "°F → °C")
        let pressure = try #require(items.first { $0.type == "bloodPressure" })
        #expect(pressure.value == .bloodPressure(systolic: 121, diastolic: 79))
        #expect(items.first { $0.type == "oxygenSaturation" }?.value == .quantity(0.97), "percent → fraction")
        #expect(items.first { $0.type == "bloodGlucose" }?.metadata["HKBloodGlucoseMealTime"] == "2")
    }

    @Test func malformedJSONIsAnInvalidArgumentAtAnOffset() throws {
        for text in ["", "[]", "{", #"{"data": {"metrics": [}"#, #"{"data": {"metrics": []}} x"#, #"{"data": "x"}"#,
                     #"{"data": {"metrics": [{"name": "step_count", "data": [{"qty": 1,}]}]}}"#, "{\"data\": {\"metrics\": [\"\u{01}\"]}}",
                     String(repeating: "[", count: 200)] {
            #expect(throws: HealthError.self, "\(text.prefix(40))") {
                _ = try HAEPayloadReader().read(Array(text.utf8), item: { _ in }, workout: { _ in })
            }
        }
    }

    /// Every prefix and many single-byte corruptions of a fixture either read or throw HealthError; never crash.
    @Test func truncatedAndCorruptedPayloadsNeverCrash() throws {
        let bytes = try Fixture.bytes("workouts-v2.json")
        var generator = SplitMix(seed: 42)
        for length in stride(from: 0, to: bytes.count, by: 13) {
            _ = try? HAEPayloadReader().read(Array(bytes[..<length]), item: { _ in }, workout: { _ in })
        }
        for _ in 0..<300 {
            var copy = bytes
            copy[Int(generator.next() % UInt64(copy.count))] = UInt8(truncatingIfNeeded: generator.next())
            do { _ = try HAEPayloadReader().read(copy, item: { _ in }, workout: { _ in }) } catch is HealthError {}
        }
    }

    @Test func escapesAndUnicodeInStrings() throws {
        var reader = JSONPullReader(Array(#"["a\"b\\c\/d\n", "\u00e9\ud83d\ude00", "plain"]"#.utf8))
        try reader.beginArray()
        var strings: [String] = []
        while try reader.nextElement() { strings.append(try reader.string()) }
        try reader.finish()
        #expect(strings == ["a\"b\\c/d\n", "é😀", "plain"])
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
