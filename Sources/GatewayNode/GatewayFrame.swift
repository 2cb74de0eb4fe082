import Foundation
import HealthAPI
import HealthService

// The OpenClaw gateway's frames: one JSON object per WebSocket text frame.
//
// The gateway's schemas are closed (`additionalProperties: false`): what this node sends carries only the keys the
// schema allows, and absent optionals are omitted, never `null`. What it receives is decoded leniently (unknown keys
// ignored), as upstream's clients do.

/// `Error = {code, message, details?, retryable?, retryAfterMs?}`.
public struct GatewayErrorShape: Codable, Sendable, Hashable, Error, CustomStringConvertible {
    public var code: String
    public var message: String
    public var details: JSONValue?
    public var retryable: Bool?
    public var retryAfterMs: Int?

    public init(code: String, message: String, details: JSONValue? = nil, retryable: Bool? = nil,
                retryAfterMs: Int? = nil) {
        self.code = code; self.message = message; self.details = details; self.retryable = retryable
        self.retryAfterMs = retryAfterMs
    }

    /// The structured reason in `details.code` (`PAIRING_REQUIRED`, `AUTH_TOKEN_MISMATCH`,
    /// `DEVICE_AUTH_SIGNATURE_INVALID`, …), which a client branches on before `code`.
    public var detailCode: String? { details?["code"]?.stringValue }

    public var description: String {
        detailCode.map { "\(code) (\($0)): \(message)" } ?? "\(code): \(message)"
    }
}

/// A request frame: `{"type":"req","id","method","params"?}`.
public struct RequestFrame<Params: Encodable & Sendable>: Encodable, Sendable {
    public var id: String
    public var method: String
    public var params: Params?

    public init(id: String, method: String, params: Params?) {
        self.id = id; self.method = method; self.params = params
    }

    enum CodingKeys: String, CodingKey { case type, id, method, params }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("req", forKey: .type)
        try container.encode(id, forKey: .id)
        try container.encode(method, forKey: .method)
        try container.encodeIfPresent(params, forKey: .params)
    }
}

/// A response frame: `{"type":"res","id","ok","payload"?,"error"?}`.
public struct ResponseFrame: Codable, Sendable, Hashable {
    public var id: String
    public var ok: Bool
    public var payload: JSONValue?
    public var error: GatewayErrorShape?

    public init(id: String, ok: Bool, payload: JSONValue? = nil, error: GatewayErrorShape? = nil) {
        self.id = id; self.ok = ok; self.payload = payload; self.error = error
    }

    enum CodingKeys: String, CodingKey { case type, id, ok, payload, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        ok = try container.decode(Bool.self, forKey: .ok)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload)
        error = try container.decodeIfPresent(GatewayErrorShape.self, forKey: .error)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("res", forKey: .type)
        try container.encode(id, forKey: .id)
        try container.encode(ok, forKey: .ok)
        try container.encodeIfPresent(payload, forKey: .payload)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// An event frame: `{"type":"event","event","payload"?,"seq"?,"stateVersion"?}`.
public struct EventFrame: Codable, Sendable, Hashable {
    public var event: String
    public var payload: JSONValue?
    public var seq: Int64?
    public var stateVersion: JSONValue?

    public init(event: String, payload: JSONValue? = nil, seq: Int64? = nil, stateVersion: JSONValue? = nil) {
        self.event = event; self.payload = payload; self.seq = seq; self.stateVersion = stateVersion
    }

    enum CodingKeys: String, CodingKey { case type, event, payload, seq, stateVersion }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        event = try container.decode(String.self, forKey: .event)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload)
        seq = try? container.decodeIfPresent(Int64.self, forKey: .seq)
        stateVersion = try container.decodeIfPresent(JSONValue.self, forKey: .stateVersion)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("event", forKey: .type)
        try container.encode(event, forKey: .event)
        try container.encodeIfPresent(payload, forKey: .payload)
        try container.encodeIfPresent(seq, forKey: .seq)
        try container.encodeIfPresent(stateVersion, forKey: .stateVersion)
    }
}

/// A received frame, told apart by its `type`.
public enum GatewayFrame: Sendable, Hashable {
    case request(id: String, method: String, params: JSONValue?)
    case response(ResponseFrame)
    case event(EventFrame)
    /// Newer gateways: `{"type":"cancel","id"}` cancels the request `id`.
    case cancel(id: String)
    /// A frame of a type this node does not know.
    case unknown(type: String)

    /// Decodes one text frame.
    public static func decode(_ text: String) throws -> GatewayFrame {
        let data = Data(text.utf8)
        let header = try JSONDecoder().decode(Header.self, from: data)
        switch header.type {
        case "req":
            let request = try JSONDecoder().decode(Request.self, from: data)
            return .request(id: request.id, method: request.method, params: request.params)
        case "res":
            return .response(try JSONDecoder().decode(ResponseFrame.self, from: data))
        case "event":
            return .event(try JSONDecoder().decode(EventFrame.self, from: data))
        case "cancel":
            return .cancel(id: try JSONDecoder().decode(Cancel.self, from: data).id)
        default:
            return .unknown(type: header.type)
        }
    }

    struct Header: Decodable { var type: String }
    struct Request: Decodable { var id: String; var method: String; var params: JSONValue? }
    struct Cancel: Decodable { var id: String }
}

/// Encoding of everything this node puts on the wire.
public enum GatewayWire {
    /// Compact JSON text: sorted keys, no escaped slashes, nils omitted.
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        let data = try JSONEncoder.wire.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    /// `{"type":"event",…}` text.
    public static func event(_ name: String, payload: JSONValue?) throws -> String {
        try encode(EventFrame(event: name, payload: payload))
    }

    /// Frames before the handshake are capped at 64 KiB.
    public static let preHandshakeMaxPayload = 64 * 1024
    /// The protocol versions this node speaks.
    public static let minProtocol = 3
    public static let maxProtocol = 4
}
