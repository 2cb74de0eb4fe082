import Foundation
import FuzzSupport
import HealthAPI
import HealthSupport
import PairedAPIClient
import Hummingbird
import HummingbirdCore
import NIOCore
@testable import PairedAPI

/// What the export API decodes from a request before any handler logic: the request target's query (GET
/// health/data), the JSON bodies (POST health/data, POST pair), the bearer token and the use cases' parameters. The first
/// input byte picks the decoder; errors become API errors, nothing may crash.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let selector = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let text = String(decoding: rest, as: UTF8.self)
    switch selector % 5 {
    case 0:
        _ = try? DataQueryParser.fromQuery(URI(String("/api/v1/health/data?" + text)))
    case 1:
        _ = try? DataQueryParser.fromBody(ByteBuffer(bytes: rest))
    case 2:
        _ = try? DataQueryParser.decode(PairRequest.self, ByteBuffer(bytes: rest))
    case 3:
        // The use-case endpoints' query parameters (health/statistics, sleep, workouts…).
        if let parameters = try? APIParameters(URI(String("/api/v1/health/statistics?" + text)),
                                               allowed: ["type", "start", "end", "limit", "by_source", "source"]) {
            _ = try? parameters.int("limit")
            _ = try? parameters.bool("by_source")
            _ = parameters.list("source")
        }
    default:
        // The one reading of `Authorization: Bearer` (the paired API's, MCP over HTTP's).
        _ = BearerToken.parse(text, maxLength: 128)
        _ = BearerToken.parse(text)
    }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
