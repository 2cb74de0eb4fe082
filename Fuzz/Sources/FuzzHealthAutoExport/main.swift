import Foundation
import FuzzSupport
import HealthAutoExport

/// The Health Auto Export receiver's reader over arbitrary bodies (what a phone, or anyone holding a push token,
/// can send): the JSON pull reader and the metric, sleep and workout mapping. Errors are fine, crashes and hangs are
/// not; a recognised payload must also read the same way twice.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    _ = HAEPayloadReader.recognises(Array(bytes.prefix(4096)))
    var items = 0, workouts = 0
    let first = try? HAEPayloadReader().read(bytes, item: { _ in items += 1 }, workout: { _ in workouts += 1 })
    if first != nil {
        var again = 0
        _ = try? HAEPayloadReader().read(bytes, item: { _ in again += 1 }, workout: { _ in again += 1 })
        guard again == items + workouts else { fatalError("the same payload read twice gave different items") }
    }
    for bucket in HAEBucket.allCases {
        _ = try? HAEPayloadReader(aggregation: bucket).read(bytes, item: { _ in }, workout: { _ in })
    }
    var reader = JSONPullReader(bytes)
    _ = try? reader.skipValue()
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
