import Foundation
import HealthModel
import Testing

@Suite("Language-independent sources and values; the creation date in the natural key")
struct LocalisationTests {
    static func device(_ name: String, model: String?, hardware: String?) -> String {
        "<<HKDevice: 0x2801>, name:\(name), manufacturer:Apple Inc.\(model.map { ", model:" + $0 } ?? "")\(hardware.map { ", hardware:" + $0 } ?? ""), software:17.4>"
    }

    @Test("devices are classified by hardware and model, whatever the names say")
    func classification() {
        #expect(HealthSource(name: "iPhone de Marie", deviceDescription: Self.device("iPhone", model: "iPhone", hardware: "iPhone14,2")).category == .iPhone)
        #expect(HealthSource(name: "Apple Watch von Max", deviceDescription: Self.device("Apple Watch", model: "Watch", hardware: "Watch6,1")).category == .appleWatch)
        // A device name in another script, or one the user chose, does not matter: the hardware decides.
        #expect(HealthSource(name: "マリーの Apple Watch", deviceDescription: Self.device("アップルウォッチ", model: nil, hardware: "Watch7,3")).category == .appleWatch)
        #expect(HealthSource(name: "Téléphone", deviceDescription: Self.device("Mon téléphone", model: "iPhone", hardware: nil)).category == .iPhone)
        #expect(HealthSource(name: "Withings", deviceDescription: "<<HKDevice: 0x1>, name:Body+, manufacturer:Withings, model:WBS05>").category == .otherDevice)
    }

    @Test("the Health app is user-entered under its name in any language", arguments: ["Health", "Santé", "Salud", "Salute", "ヘルスケア", "健康"])
    func healthApp(_ name: String) {
        #expect(HealthSource(name: name).category == .userEntered)
    }

    @Test("localised sleep stage names map to HealthKit's values")
    func sleepValues() throws {
        let sleep = try SampleTypeRegistry.resolve("sleepAnalysis")
        #expect(SampleTypeRegistry.categoryValue(for: sleep, exportValue: "Au lit")?.rawValue == 0)
        #expect(SampleTypeRegistry.categoryValue(for: sleep, exportValue: "Tief")?.rawValue == 4)
        #expect(SampleTypeRegistry.categoryValue(for: sleep, exportValue: "Despierto")?.rawValue == 2)
        #expect(SampleTypeRegistry.categoryValue(for: sleep, exportValue: "HKCategoryValueSleepAnalysisAsleepREM")?.rawValue == 5)
    }

    @Test("the creation date tells otherwise equal samples apart; without it the UUID is the version-1 one")
    func naturalUUID() {
        let t = Date(timeIntervalSince1970: 1_714_557_600)
        let prefix = HealthSample.naturalUUIDPrefix(type: "dietaryWater", sourceKey: HealthSource(name: "WaterMinder").key)
        let glass = SampleValue.quantity(250, unit: "mL")
        let first = HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: glass, created: 1_714_557_790)
        let second = HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: glass, created: 1_714_558_182)
        #expect(first != second)
        #expect(first == HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: glass, created: 1_714_557_790))
        #expect(HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: glass, created: nil)
                == HealthSample.naturalUUID(prefix: prefix, start: t, end: t, value: glass))
        // The UUID still begins with the start time (UUIDv7-like layout).
        #expect(first.uuidString.prefix(8) == second.uuidString.prefix(8))
    }
}
