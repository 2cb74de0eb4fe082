import Foundation
import HealthAPI
import MCP

/// The wire facts of MCP 2026-07-28 (the stateless era) that HealthBridge speaks beside the 2025 protocol, as the
/// official Python SDK (`mcp` 2.3) sends and accepts them: the per-request `_meta` envelope, the routing headers, the
/// error codes and their HTTP statuses, and the validation ladder a request passes before it is dispatched.
///
/// ```swift
/// let request = try MCPModernProtocol.Request.parse(body)           // one JSON-RPC request or notification
/// let verdict = MCPModernProtocol.classify(request, headers: fields) // nil: every rung passed
/// ```
public enum MCPModernProtocol {
    /// The stateless protocol revision.
    public static let version = "2026-07-28"
    /// Every revision this server speaks: the handshake era through the SDK, then the stateless one.
    public static let supportedVersions = ["2025-06-18", "2025-11-25", version]

    /// `_meta` keys of the per-request envelope.
    public enum MetaKey {
        public static let protocolVersion = "io.modelcontextprotocol/protocolVersion"
        public static let clientInfo = "io.modelcontextprotocol/clientInfo"
        public static let clientCapabilities = "io.modelcontextprotocol/clientCapabilities"
        public static let serverInfo = "io.modelcontextprotocol/serverInfo"
        public static let subscriptionID = "io.modelcontextprotocol/subscriptionId"
    }

    /// Bytes every message with the envelope contains, whether or not its writer escaped the key's slash: a cheap
    /// test before decoding.
    static let envelopeMarker = Data("modelcontextprotocol".utf8)

    /// HTTP headers of a 2026-07-28 request (compared without regard to case).
    public enum Header {
        public static let protocolVersion = "mcp-protocol-version"
        public static let method = "mcp-method"
        public static let name = "mcp-name"
    }

    /// JSON-RPC error codes this era adds to JSON-RPC's own.
    public enum ErrorCode {
        public static let parseError = -32700
        public static let invalidRequest = -32600
        public static let methodNotFound = -32601
        public static let invalidParams = -32602
        public static let internalError = -32603
        public static let headerMismatch = -32020
        public static let missingRequiredClientCapability = -32021
        public static let unsupportedProtocolVersion = -32022
    }

    /// The HTTP status of an error answer (the Python SDK's table); any other code is 200.
    public static func httpStatus(forErrorCode code: Int) -> Int {
        switch code {
        case ErrorCode.parseError, ErrorCode.invalidRequest, ErrorCode.invalidParams, ErrorCode.headerMismatch,
             ErrorCode.missingRequiredClientCapability, ErrorCode.unsupportedProtocolVersion: 400
        case ErrorCode.methodNotFound: 404
        default: 200
        }
    }

    /// The methods whose name (or URI) an HTTP request repeats in `Mcp-Name`, with the parameter that holds it.
    static let nameBearingMethods = ["tools/call": "name", "prompts/get": "name", "resources/read": "uri"]

    /// A JSON-RPC error of the modern path: code, message and optional data.
    public struct RPCError: Error, Sendable, Equatable {
        public var code: Int
        public var message: String
        public var data: JSONValue?

        public init(_ code: Int, _ message: String, data: JSONValue? = nil) {
            self.code = code; self.message = message; self.data = data
        }

        /// The -32022 answer naming the versions this path serves.
        static func unsupportedVersion(_ requested: String) -> RPCError {
            RPCError(ErrorCode.unsupportedProtocolVersion, "Unsupported protocol version",
                     data: .object(["supported": .array([.string(version)]), "requested": .string(requested)]))
        }

        /// The error an ``MCPError`` thrown by the shared registry (prompts, resources) stands for.
        init(_ error: MCPError) {
            self.init(error.code, error.errorDescription ?? "error")
        }
    }

    /// One decoded message of the modern path.
    public struct Request: Sendable {
        /// The request id; nil for a notification (no `id` member).
        public var id: ID?
        public var method: String
        public var params: [String: JSONValue]

        /// The `_meta` object of the params (empty when absent).
        public var meta: [String: JSONValue] { params["_meta"]?.objectValue ?? [:] }

        /// Decodes one JSON-RPC request or notification. A batch, a response or a malformed envelope is
        /// `invalidRequest`; bytes that are not JSON are `parseError`.
        public static func parse(_ body: Data) throws(RPCError) -> Request {
            let decoded: JSONValue
            do {
                decoded = try JSONDecoder().decode(JSONValue.self, from: body)
            } catch {
                throw RPCError(ErrorCode.parseError, "Parse error")
            }
            let invalid = RPCError(ErrorCode.invalidRequest, "Body must be a single JSON-RPC request or notification object")
            guard case .object(let object) = decoded, object["jsonrpc"] == .string("2.0"),
                  case .string(let method)? = object["method"] else { throw invalid }
            var id: ID?
            switch object["id"] {
            case nil: id = nil
            case .string(let text)?: id = .string(text)
            case .int(let number)?:
                guard let exact = Int(exactly: number) else { throw invalid }
                id = .number(exact)
            default: throw invalid
            }
            let params: [String: JSONValue]
            switch object["params"] {
            case nil, .null?: params = [:]
            case .object(let fields)?: params = fields
            default: throw invalid
            }
            return Request(id: id, method: method, params: params)
        }
    }

    /// The envelope of a request that passed the ladder.
    public struct Envelope: Sendable {
        public var protocolVersion: String
        public var clientCapabilities: [String: JSONValue]
        public var clientInfo: JSONValue?
    }

    /// Runs the validation ladder over a request: the envelope pair in `_meta`, then (over HTTP, `headers` keyed by
    /// lowercase name) the routing headers against the body, then the protocol version. The first failing rung wins.
    public static func classify(_ request: Request, headers: [String: String]?) -> Result<Envelope, RPCError> {
        let meta = request.meta
        guard request.params["_meta"]?.objectValue != nil else {
            return .failure(RPCError(ErrorCode.invalidParams,
                                     "params._meta must be an object carrying the required '\(MetaKey.protocolVersion)' and '\(MetaKey.clientCapabilities)' envelope keys"))
        }
        let missing = [MetaKey.protocolVersion, MetaKey.clientCapabilities].filter { meta[$0] == nil }
        guard missing.isEmpty else {
            return .failure(RPCError(ErrorCode.invalidParams,
                                     "params._meta is missing the required envelope key(s): \(missing.joined(separator: ", "))"))
        }
        let versionValue = meta[MetaKey.protocolVersion]
        if let headers {
            guard let header = headers[Header.protocolVersion], versionValue == .string(header) else {
                return .failure(RPCError(ErrorCode.headerMismatch,
                                         "\(Header.protocolVersion) header does not match the request envelope's protocol version"))
            }
            guard headers[Header.method] == request.method else {
                return .failure(RPCError(ErrorCode.headerMismatch, "\(Header.method) header does not match the request body's method"))
            }
            if let key = nameBearingMethods[request.method], case .string(let value)? = request.params[key],
               decodeHeaderValue(headers[Header.name]) != value {
                return .failure(RPCError(ErrorCode.headerMismatch,
                                         "\(Header.name) header does not match the request body's '\(key)' parameter"))
            }
        }
        guard case .string(let requested)? = versionValue else {
            return .failure(RPCError(ErrorCode.invalidParams, "the protocol-version envelope value must be a string"))
        }
        guard requested == version else { return .failure(.unsupportedVersion(requested)) }
        guard case .object(let capabilities)? = meta[MetaKey.clientCapabilities] else {
            return .failure(RPCError(ErrorCode.invalidParams, "\(MetaKey.clientCapabilities) must be an object"))
        }
        return .success(Envelope(protocolVersion: requested, clientCapabilities: capabilities,
                                 clientInfo: meta[MetaKey.clientInfo]))
    }

    /// A header value as the client wrote it: verbatim, or the `=?base64?…?=` form decoded (nil when malformed).
    static func decodeHeaderValue(_ value: String?) -> String? {
        guard let value else { return nil }
        guard value.hasPrefix("=?base64?"), value.hasSuffix("?="), value.count >= 11 else { return value }
        let payload = String(value.dropFirst(9).dropLast(2))
        guard let data = Data(base64Encoded: payload), data.base64EncodedString() == payload else { return nil }
        return String(data: data, encoding: .utf8)
    }

    // MARK: Encoding

    /// `{"jsonrpc":"2.0","id":…,"result":…}` around an encoded result.
    static func response(id: ID, result: Data) -> Data {
        var data = Data(#"{"jsonrpc":"2.0","id":"#.utf8)
        data.append(encodedID(id))
        data.append(Data(#","result":"#.utf8))
        data.append(result)
        data.append(UInt8(ascii: "}"))
        return data
    }

    /// `{"jsonrpc":"2.0","id":…,"error":{…}}`; a nil id is written as `null`.
    static func errorResponse(id: ID?, _ error: RPCError) -> Data {
        var object: [String: JSONValue] = ["code": .int(Int64(clamping: error.code)), "message": .string(error.message)]
        if let data = error.data { object["data"] = data }
        var data = Data(#"{"jsonrpc":"2.0","id":"#.utf8)
        data.append(id.map(encodedID) ?? Data("null".utf8))
        data.append(Data(#","error":"#.utf8))
        data.append(JSONValue.object(object).encoded())
        data.append(UInt8(ascii: "}"))
        return data
    }

    /// A notification (`{"jsonrpc":"2.0","method":…,"params":…}`).
    static func notification(_ method: String, params: [String: JSONValue]) -> Data {
        JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)]).encoded()
    }

    static func encodedID(_ id: ID) -> Data {
        switch id {
        case .string(let text): JSONValue.string(text).encoded()
        case .number(let number): Data(String(number).utf8)
        }
    }

    static func plainID(_ id: ID) -> JSONValue {
        switch id {
        case .string(let text): .string(text)
        case .number(let number): .int(Int64(clamping: number))
        }
    }

    /// An encoded result object with this era's fields put first: `resultType` always, `ttlMs` and `cacheScope` on
    /// cacheable results. `encoded` must be a JSON object without those keys.
    static func stamp(_ encoded: Data, cacheable: Bool, ttlMs: Int = 0, resultType: String = "complete") -> Data {
        var head = #"{"resultType":"# + String(decoding: JSONValue.string(resultType).encoded(), as: UTF8.self)
        if cacheable { head += #","ttlMs":\#(ttlMs),"cacheScope":"private""# }
        var data = Data(head.utf8)
        // Everything after the object's opening brace; a comma unless the object was empty.
        guard let open = encoded.firstIndex(of: UInt8(ascii: "{")) else { return data + Data("}".utf8) }
        let rest = encoded[encoded.index(after: open)...]
        if rest.first(where: { !$0.isJSONWhitespace }) != UInt8(ascii: "}") { data.append(UInt8(ascii: ",")) }
        data.append(contentsOf: rest)
        return data
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension UInt8 {
    var isJSONWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

/// The contract's one JSON value on the 2026 wire: decoded once, without the SDK's per-string data-URL detection,
/// and encoded back with sorted keys.
extension JSONValue {
    /// The SDK's value (tool arguments).
    var sdkValue: MCP.Value {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(Int(clamping: value))
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.sdkValue))
        case .object(let values): .object(values.mapValues(\.sdkValue))
        }
    }

    /// The value encoded with sorted keys (a value that cannot be encoded, a non-finite number, is `null`).
    func encoded() -> Data {
        (try? MCPModernProtocol.encoder.encode(self)) ?? Data("null".utf8)
    }
}
