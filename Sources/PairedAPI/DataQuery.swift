import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel
import HealthService
import Hummingbird
import HummingbirdCore
import NIOCore

/// Query parameters of a request, read strictly: a parameter given twice, a number that is not one, a flag that is
/// not true or false is `HEALTH_INVALID_ARGUMENT` naming the parameter. What they mean is the service's business.
struct APIParameters {
    let parameters: FlatDictionary<Substring, Substring>

    init(_ uri: URI, allowed: [String]) throws(HealthError) {
        parameters = uri.queryParameters
        for (key, _) in parameters {
            let name = String(key)
            guard allowed.contains(name) else {
                throw HealthError(.invalidArgument, "unknown parameter '\(name.prefix(64))'; this endpoint takes \(allowed.joined(separator: ", "))")
            }
            guard parameters[values: key].count == 1 else {
                throw HealthError(.invalidArgument, "\(name) is given more than once")
            }
        }
    }

    func string(_ name: String) -> String? {
        parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    func int(_ name: String) throws(HealthError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw HealthError(.invalidArgument, "\(name) must be a whole number, got '\(text.prefix(32))'") }
        return value
    }

    func bool(_ name: String) throws(HealthError) -> Bool? {
        guard let text = string(name) else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw HealthError(.invalidArgument, "\(name) must be true or false, got '\(text.prefix(32))'")
        }
    }

    /// A comma-separated list.
    func list(_ name: String) -> [String]? {
        string(name).map { $0.split(separator: ",").map(String.init) }
    }
}

/// `health/data` requests: query parameters or a JSON body, both into the service's ``TypedSamplesRequest``.
enum DataQueryParser {
    static func fromQuery(_ uri: URI) throws -> TypedSamplesRequest {
        let parameters = try APIParameters(uri, allowed: ["types", "start", "end", "limit", "cursor"])
        return TypedSamplesRequest(types: parameters.list("types"), start: parameters.string("start"),
                                   end: parameters.string("end"), limit: try parameters.int("limit"),
                                   cursor: parameters.string("cursor"))
    }

    /// The body of `POST health/data`: `{"types": ["stepCount"] | "stepCount,heartRate", "start": …, "end": …,
    /// "limit": …, "cursor": …}`.
    struct Body: Decodable {
        var types: [String]?
        var start: String?
        var end: String?
        var limit: Int?
        var cursor: String?

        enum CodingKeys: String, CodingKey { case types, start, end, limit, cursor }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let list = try? container.decodeIfPresent([String].self, forKey: .types) {
                types = list
            } else if let text = try? container.decodeIfPresent(String.self, forKey: .types) {
                types = text.split(separator: ",").map(String.init)
            } else if container.contains(.types), try !container.decodeNil(forKey: .types) {
                throw HealthError(.invalidArgument, "types must be an array of strings or a comma-separated string")
            }
            start = try container.decodeIfPresent(String.self, forKey: .start)
            end = try container.decodeIfPresent(String.self, forKey: .end)
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        }
    }

    static func fromBody(_ buffer: ByteBuffer) throws -> TypedSamplesRequest {
        let body = try decode(Body.self, buffer)
        return TypedSamplesRequest(types: body.types, start: body.start, end: body.end, limit: body.limit, cursor: body.cursor)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer) throws -> T {
        guard buffer.readableBytes > 0 else {
            throw HealthError(.invalidArgument, "a JSON body is required")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as HealthError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw HealthError(.invalidArgument, "the JSON body lacks '\(key.stringValue)'")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let path = context.codingPath.map(\.stringValue).filter { !$0.isEmpty }.joined(separator: ".")
            throw HealthError(.invalidArgument, "the JSON body has the wrong type at '\(path.prefix(64))'")
        } catch {
            throw HealthError(.invalidArgument, "the body is not valid JSON")
        }
    }
}

/// Encodes a data page straight to bytes: the same JSON `JSONEncoder.wire` would write for ``DataResponse``
/// (sorted keys, no nulls), several times faster for pages of thousands of samples.
enum DataResponseWriter {
    static func encode(status: DataStatus, samples: [ExportSample], nextCursor: String?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + samples.count * 200)
        out += Array("{".utf8)
        if let nextCursor {
            out += Array("\"nextCursor\":".utf8)
            JSONWriter.string(nextCursor, into: &out)
            out.append(UInt8(ascii: ","))
        }
        out += Array("\"samples\":[".utf8)
        for (index, sample) in samples.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            var first = true
            func key(_ name: StaticString) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                out += [UInt8(ascii: "\""), UInt8(ascii: ":")]
            }
            if let category = sample.category { key("category"); JSONWriter.string(category, into: &out) }
            key("dateISO"); JSONWriter.string(sample.dateISO, into: &out)
            if let end = sample.endDateISO { key("endDateISO"); JSONWriter.string(end, into: &out) }
            if let source = sample.source { key("source"); JSONWriter.string(source, into: &out) }
            key("type"); JSONWriter.string(sample.type, into: &out)
            if let unit = sample.unit { key("unit"); JSONWriter.string(unit, into: &out) }
            if let value = sample.value { key("value"); JSONWriter.number(value, into: &out) }
            out.append(UInt8(ascii: "}"))
        }
        out += Array("],\"status\":".utf8)
        JSONWriter.string(status.rawValue, into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
