import Foundation
import FuzzSupport
import HealthAPI
import HealthModel
import HealthService

/// The write API through the service with arbitrary numbers (issue 21): each 24-byte record of the input picks a
/// registered type and a unit, and carries a value and a start as raw `Double` bit patterns (NaN, infinities,
/// 1e300, subnormals), written as one batch; then every reader that formats what was stored. A write may be refused;
/// nothing may trap, and whatever is stored must be within its type's bounds.
let types = SampleTypeRegistry.all.filter { $0.kind == .quantity || $0.kind == .category }
let units = ["", "count", "kg", "lb", "mg/dL", "mmol<180.15588000005408>/L", "%", "degF", "mi", "kcal", "kJ", "mL",
             "fl_oz_us", "count/min", "ms", "s", "hr"]

func double(_ bytes: ArraySlice<UInt8>) -> Double {
    Double(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
}

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var inputs: [SampleInput] = []
    var offset = 0
    while offset + 24 <= bytes.count, inputs.count < 32 {
        let record = bytes[offset..<offset + 24]
        offset += 24
        let type = types[Int(record[record.startIndex]) % types.count]
        let unit = units[Int(record[record.startIndex + 1]) % units.count]
        let value = double(record[(record.startIndex + 8)..<(record.startIndex + 16)])
        let seconds = double(record[(record.startIndex + 16)..<(record.startIndex + 24)])
        let start = seconds.isFinite && abs(seconds) < 1e11 ? ISO8601.string(Date(timeIntervalSince1970: seconds)) : String(seconds)
        if type.kind == .quantity {
            inputs.append(SampleInput(type: type.identifier, value: value, unit: unit.isEmpty ? nil : unit, start: start))
        } else {
            let name = type.categoryValues.isEmpty ? String(value) : type.categoryValues[Int(record[record.startIndex + 2]) % type.categoryValues.count].name
            inputs.append(SampleInput(type: type.identifier, category: name, start: start))
        }
    }
    let batch = inputs
    blocking {
        guard let service = try? freshService() else { return }
        let owner = service.acting(as: .owner)
        _ = try? await owner.save(batch)
        for input in batch.prefix(4) { _ = try? await owner.save([input]) }
        for type in Set(batch.compactMap(\.type)).sorted() {
            guard let known = try? SampleTypeRegistry.resolve(type), known.kind == .quantity,
                  let stored = try? await owner.samples(SamplesRequest(type: type, limit: 500)),
                  stored.unit == known.canonicalUnit else { continue }
            for item in stored.samples {
                guard let value = item.value else { continue }
                guard known.valueBounds.contains(value) else { fatalError("stored \(value) for \(type)") }
            }
        }
        await readEverything(service)
    }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
