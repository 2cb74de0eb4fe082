import Crypto
import ExportClient
import Foundation
import HealthModel
import Hummingbird
import HummingbirdCore
import NIOCore

/// A validated `health/data` request.
struct DataQuery: Sendable {
    /// Resolved, deduplicated, in the order asked.
    var types: [SampleType]
    var start: Date
    var end: Date
    var limit: Int
    var cursor: DataCursor?
    /// Binds cursors to the types and range they were issued for.
    var hash: String
}

/// Where the next page starts: the type (index into the request's types) and the store's cursor inside it.
struct DataCursor: Sendable, Equatable {
    var typeIndex: Int
    var storeCursor: String?
    var queryHash: String

    func encoded() -> String {
        let text = "v1:\(typeIndex):\(queryHash):\(storeCursor ?? "")"
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> DataCursor? {
        guard text.utf8.count <= 512 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else { return nil }
        let parts = decoded.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", let index = Int(parts[1]), index >= 0 else { return nil }
        return DataCursor(typeIndex: index, storeCursor: parts[3].isEmpty ? nil : String(parts[3]), queryHash: String(parts[2]))
    }
}

/// Boundary validation of data requests: every problem is a 400 with a JSON error naming the parameter.
enum DataQueryParser {
    static func fromQuery(_ uri: URI, _ configuration: ExportServerConfiguration) throws -> DataQuery {
        let parameters = uri.queryParameters
        for name in ["types", "start", "end", "limit", "cursor"] where parameters[values: Substring(name)].count > 1 {
            throw APIError(.badRequest, "INVALID_ARGUMENT", "\(name) is given more than once")
        }
        var types: [String] = []
        if let list = parameters["types"] {
            types = list.split(separator: ",").map { String($0) }
        }
        var limit: Int?
        if let text = parameters["limit"] {
            guard let value = Int(text) else {
                throw APIError(.badRequest, "INVALID_ARGUMENT", "limit must be a whole number from 1 to \(configuration.maxLimit)")
            }
            limit = value
        }
        return try build(types: types, start: parameters["start"].map(String.init), end: parameters["end"].map(String.init),
                         limit: limit, cursor: parameters["cursor"].map(String.init), configuration)
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
                throw APIError(.badRequest, "INVALID_ARGUMENT", "types must be an array of strings or a comma-separated string")
            }
            start = try container.decodeIfPresent(String.self, forKey: .start)
            end = try container.decodeIfPresent(String.self, forKey: .end)
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        }
    }

    static func fromBody(_ buffer: ByteBuffer, _ configuration: ExportServerConfiguration) throws -> DataQuery {
        let body = try decode(Body.self, buffer)
        return try build(types: body.types ?? [], start: body.start, end: body.end, limit: body.limit, cursor: body.cursor,
                         configuration)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer) throws -> T {
        guard buffer.readableBytes > 0 else {
            throw APIError(.badRequest, "BAD_REQUEST", "a JSON body is required")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as APIError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw APIError(.badRequest, "BAD_REQUEST", "the JSON body lacks '\(key.stringValue)'")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let path = context.codingPath.map(\.stringValue).filter { !$0.isEmpty }.joined(separator: ".")
            throw APIError(.badRequest, "BAD_REQUEST", "the JSON body has the wrong type at '\(path.prefix(64))'")
        } catch {
            throw APIError(.badRequest, "BAD_REQUEST", "the body is not valid JSON")
        }
    }

    static func build(types names: [String], start: String?, end: String?, limit: Int?, cursor: String?,
                      _ configuration: ExportServerConfiguration) throws -> DataQuery {
        let names = names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else {
            throw APIError(.badRequest, "INVALID_ARGUMENT", "types is required: type identifiers, e.g. types=stepCount,heartRate")
        }
        guard names.count <= configuration.maxTypesPerRequest else {
            throw APIError(.badRequest, "INVALID_ARGUMENT", "at most \(configuration.maxTypesPerRequest) types per request")
        }
        var types: [SampleType] = []
        var seen = Set<String>()
        for name in names {
            guard name.utf8.count <= 128, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw APIError(.badRequest, "HEALTH_INVALID_TYPE", "type names are ASCII identifiers of at most 128 characters")
            }
            let type: SampleType
            do {
                type = try SampleTypeRegistry.resolve(name)
            } catch {
                throw APIError(.badRequest, error.code.rawValue, error.message)
            }
            guard type.kind == .quantity || type.kind == .category else {
                throw APIError(.badRequest, "HEALTH_INVALID_TYPE", "\(type.identifier) is a \(type.kind.rawValue) type; only quantity and category types are exported")
            }
            if seen.insert(type.identifier).inserted { types.append(type) }
        }
        let startDate = try instant(start, name: "start")
        let endDate = try instant(end, name: "end")
        guard endDate > startDate else {
            throw APIError(.badRequest, "HEALTH_INVALID_RANGE", "end must be after start")
        }
        guard endDate.timeIntervalSince(startDate) <= configuration.maxRange else {
            throw APIError(.badRequest, "HEALTH_INVALID_RANGE",
                           "the range is longer than \(Int(configuration.maxRange / 86_400)) days; ask in several requests")
        }
        let resolvedLimit = limit ?? configuration.defaultLimit
        guard (1...configuration.maxLimit).contains(resolvedLimit) else {
            throw APIError(.badRequest, "INVALID_ARGUMENT", "limit must be from 1 to \(configuration.maxLimit)")
        }
        let hash = queryHash(types: types.map(\.identifier), start: startDate, end: endDate)
        var decodedCursor: DataCursor?
        if let cursor, !cursor.isEmpty {
            guard let parsed = DataCursor.decode(cursor), parsed.queryHash == hash, parsed.typeIndex < types.count else {
                throw APIError(.badRequest, "INVALID_CURSOR", "cursor is not one this server issued for these types and range; start again without it")
            }
            decodedCursor = parsed
        }
        return DataQuery(types: types, start: startDate, end: endDate, limit: resolvedLimit, cursor: decodedCursor, hash: hash)
    }

    /// An ISO-8601 instant that names its zone (`Z` or an offset).
    static func instant(_ text: String?, name: String) throws -> Date {
        guard let text, !text.isEmpty else {
            throw APIError(.badRequest, "HEALTH_INVALID_RANGE", "\(name) is required: an ISO-8601 instant such as 2026-01-07T00:00:00Z")
        }
        guard text.utf8.count <= 40, let date = ISO8601.date(text), hasZone(text) else {
            throw APIError(.badRequest, "HEALTH_INVALID_RANGE",
                           "\(name) must be an ISO-8601 instant with a zone, such as 2026-01-07T00:00:00Z or 2026-01-07T01:00:00+01:00")
        }
        let seconds = date.timeIntervalSince1970
        guard seconds >= 0, seconds < 4_102_444_800 else {   // 1970 … 2100
            throw APIError(.badRequest, "HEALTH_INVALID_RANGE", "\(name) must be between 1970 and 2100")
        }
        return date
    }

    static func hasZone(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count > 19 else { return false }
        if bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z") { return true }
        return bytes[19...].contains(UInt8(ascii: "+")) || bytes[19...].contains(UInt8(ascii: "-"))
    }

    static func queryHash(types: [String], start: Date, end: Date) -> String {
        let text = types.joined(separator: ",") + "|\(start.timeIntervalSince1970)|\(end.timeIntervalSince1970)"
        return String(CertificateFingerprint.hex(SHA256.hash(data: Data(text.utf8))).prefix(16))
    }
}

/// Encodes a data page straight to bytes: the same JSON `JSONEncoder.exportWire` would write for ``DataResponse``
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
