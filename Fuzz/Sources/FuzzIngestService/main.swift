import Foundation
import FuzzSupport
import HealthAutoExport
import HealthAPI
import HealthModel
import HealthService

/// The whole push path through the service (issue 21): arbitrary bodies as Health Auto Export payloads from an
/// ingest token allowed every type — the reader, the checks every write passes, the natural keys, the bucket
/// comparison, the commit into an in-memory store — then every reader that formats what was stored. A body may be
/// refused or its items rejected; nothing may trap, and nothing stored may stop a reader.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    blocking {
        guard let service = try? freshService() else { return }
        let token = Principal(kind: .ingest, name: "fuzz")
        _ = try? await service.acting(as: .owner).updateGrants(GrantsUpdate(principal: token.id, allowWrite: ["*"]))
        let ingest = service.acting(as: token)
        if let batch = try? HAEPayloadReader(aggregation: .hour).batch(bytes) {
            _ = try? await ingest.ingest(batch, info: IngestBatchInfo(aggregation: "hours"))
        }
        if let batch = try? HAEPayloadReader().batch(bytes) {
            _ = try? await ingest.ingest(batch)   // the same again: exactly once, or a new bucket version
        }
        await readEverything(service)
    }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
