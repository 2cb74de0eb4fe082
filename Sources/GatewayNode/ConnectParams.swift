import Foundation
import HealthAPI
import HealthModel

/// The `connect` request's params, exactly the keys of the gateway's closed `ConnectParamsSchema`.
///
/// `commands` and `permissions` are omitted when empty; every other absent optional is omitted, never `null`.
public struct ConnectParams: Codable, Sendable, Hashable {
    public var minProtocol: Int
    public var maxProtocol: Int
    public var client: ClientInfo
    public var caps: [String]
    public var commands: [String]?
    public var permissions: [String: Bool]?
    public var role: String
    public var scopes: [String]
    public var device: DeviceProof?
    public var auth: ConnectAuth?
    public var locale: String?
    public var userAgent: String?

    public init(minProtocol: Int = GatewayWire.minProtocol, maxProtocol: Int = GatewayWire.maxProtocol,
                client: ClientInfo, caps: [String], commands: [String], permissions: [String: Bool],
                role: String = "node", scopes: [String] = [], device: DeviceProof?, auth: ConnectAuth?,
                locale: String? = nil, userAgent: String? = nil) {
        self.minProtocol = minProtocol; self.maxProtocol = maxProtocol; self.client = client; self.caps = caps
        self.commands = commands.isEmpty ? nil : commands
        self.permissions = permissions.isEmpty ? nil : permissions
        self.role = role; self.scopes = scopes; self.device = device; self.auth = auth
        self.locale = locale.flatMap { $0.isEmpty ? nil : $0 }
        self.userAgent = userAgent.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// `client`: who is connecting. `id` and `mode` are closed enums on the gateway.
public struct ClientInfo: Codable, Sendable, Hashable {
    public var id: String
    public var displayName: String?
    public var version: String
    public var platform: String
    public var deviceFamily: String?
    public var modelIdentifier: String?
    public var mode: String
    public var instanceId: String?

    public init(id: String, displayName: String? = nil, version: String, platform: String, deviceFamily: String? = nil,
                modelIdentifier: String? = nil, mode: String, instanceId: String? = nil) {
        self.id = id; self.displayName = displayName.flatMap { $0.isEmpty ? nil : $0 }; self.version = version
        self.platform = platform; self.deviceFamily = deviceFamily.flatMap { $0.isEmpty ? nil : $0 }
        self.modelIdentifier = modelIdentifier.flatMap { $0.isEmpty ? nil : $0 }; self.mode = mode
        self.instanceId = instanceId.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// `auth`: one of `{token}`, `{token, deviceToken}`, `{password}`.
public struct ConnectAuth: Codable, Sendable, Hashable {
    public var token: String?
    public var deviceToken: String?
    public var password: String?

    public init(token: String? = nil, deviceToken: String? = nil, password: String? = nil) {
        self.token = token; self.deviceToken = deviceToken; self.password = password
    }

    /// The token the device signature binds (`""` in the signed string when nil).
    public var signatureToken: String? { token }
}

/// `device`: the signed proof of the node's identity for this challenge.
public struct DeviceProof: Codable, Sendable, Hashable {
    public var id: String
    public var publicKey: String
    public var signature: String
    public var signedAt: Int64
    public var nonce: String

    public init(id: String, publicKey: String, signature: String, signedAt: Int64, nonce: String) {
        self.id = id; self.publicKey = publicKey; self.signature = signature; self.signedAt = signedAt
        self.nonce = nonce
    }
}

/// `connect.challenge` payload: `{nonce, ts}`.
public struct ConnectChallenge: Codable, Sendable, Hashable {
    public var nonce: String
    public var ts: Int64

    public init(nonce: String, ts: Int64) { self.nonce = nonce; self.ts = ts }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nonce = try container.decode(String.self, forKey: .nonce)
        if let ts = try? container.decode(Int64.self, forKey: .ts) {
            self.ts = ts
        } else if let ts = try? container.decode(Double.self, forKey: .ts) {
            self.ts = GatewaySessionRules.int64(clamping: ts)
        } else {
            // Older gateways sent only the nonce; their clients signed with their own clock.
            self.ts = Int64(Date().timeIntervalSince1970 * 1000)
        }
    }
}

/// The `hello-ok` payload of a successful `connect`.
public struct HelloOk: Codable, Sendable, Hashable {
    public struct Server: Codable, Sendable, Hashable {
        public var version: String
        public var connId: String
        public init(version: String, connId: String) { self.version = version; self.connId = connId }
    }

    public struct Auth: Codable, Sendable, Hashable {
        public var deviceToken: String?
        public var role: String?
        public var scopes: [String]?
        public var issuedAtMs: Int64?
        public init(deviceToken: String?, role: String?, scopes: [String]?, issuedAtMs: Int64? = nil) {
            self.deviceToken = deviceToken; self.role = role; self.scopes = scopes; self.issuedAtMs = issuedAtMs
        }
    }

    public struct Policy: Codable, Sendable, Hashable {
        public var maxPayload: Int
        public var maxBufferedBytes: Int?
        public var tickIntervalMs: Int
        public init(maxPayload: Int, maxBufferedBytes: Int?, tickIntervalMs: Int) {
            self.maxPayload = maxPayload; self.maxBufferedBytes = maxBufferedBytes; self.tickIntervalMs = tickIntervalMs
        }
    }

    public var type: String
    public var `protocol`: Int
    public var server: Server
    public var features: JSONValue?
    public var snapshot: JSONValue?
    public var auth: Auth?
    public var policy: Policy

    public init(protocol: Int, server: Server, features: JSONValue?, snapshot: JSONValue?, auth: Auth?, policy: Policy) {
        self.type = "hello-ok"; self.protocol = `protocol`; self.server = server; self.features = features
        self.snapshot = snapshot; self.auth = auth; self.policy = policy
    }
}

/// `node.invoke.request` event payload. Unknown keys are ignored; `paramsJSON` may be JSON `null`.
public struct NodeInvokeRequest: Codable, Sendable, Hashable {
    public var id: String
    public var nodeId: String
    public var command: String
    public var paramsJSON: String?
    public var timeoutMs: Int?
    public var idempotencyKey: String?

    public init(id: String, nodeId: String, command: String, paramsJSON: String? = nil, timeoutMs: Int? = nil,
                idempotencyKey: String? = nil) {
        self.id = id; self.nodeId = nodeId; self.command = command; self.paramsJSON = paramsJSON
        self.timeoutMs = timeoutMs; self.idempotencyKey = idempotencyKey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        nodeId = try container.decode(String.self, forKey: .nodeId)
        command = try container.decode(String.self, forKey: .command)
        paramsJSON = try container.decodeIfPresent(String.self, forKey: .paramsJSON)
        if let ms = try? container.decodeIfPresent(Int.self, forKey: .timeoutMs) {
            timeoutMs = ms
        } else {
            timeoutMs = (try? container.decodeIfPresent(Double.self, forKey: .timeoutMs))
                .flatMap { $0.map(GatewaySessionRules.int(clamping:)) }
        }
        idempotencyKey = try? container.decodeIfPresent(String.self, forKey: .idempotencyKey)
    }
}

/// `node.invoke.result` params (closed): `error` carries only `code` and `message`.
public struct NodeInvokeResultParams: Codable, Sendable, Hashable {
    public var id: String
    public var nodeId: String
    public var ok: Bool
    public var payloadJSON: String?
    public var error: NodeInvokeError?

    public init(id: String, nodeId: String, ok: Bool, payloadJSON: String? = nil, error: NodeInvokeError? = nil) {
        self.id = id; self.nodeId = nodeId; self.ok = ok; self.payloadJSON = payloadJSON; self.error = error
    }

    public static func success(_ request: NodeInvokeRequest, payloadJSON: String?) -> NodeInvokeResultParams {
        NodeInvokeResultParams(id: request.id, nodeId: request.nodeId, ok: true, payloadJSON: payloadJSON)
    }

    public static func failure(_ request: NodeInvokeRequest, _ error: NodeInvokeError) -> NodeInvokeResultParams {
        NodeInvokeResultParams(id: request.id, nodeId: request.nodeId, ok: false, error: error)
    }
}

/// A node command's error: `{code, message}`, the message prefixed by the code (`HEALTH_INVALID_TYPE: …`).
public struct NodeInvokeError: Codable, Sendable, Hashable, Error, CustomStringConvertible {
    public var code: String
    public var message: String

    /// Builds an error whose message is `"CODE: text"` (the prefix is not repeated when `text` already has it).
    public init(code: String, _ text: String) {
        self.code = code
        self.message = text.hasPrefix(code + ":") ? text : "\(code): \(text)"
    }

    public var description: String { message }

    public static func invalidRequest(_ text: String) -> NodeInvokeError { NodeInvokeError(code: "INVALID_REQUEST", text) }
    public static func unavailable(_ text: String) -> NodeInvokeError { NodeInvokeError(code: "UNAVAILABLE", text) }
    /// Params the command cannot take: the service's `HEALTH_INVALID_ARGUMENT`, as on every other interface.
    public static func invalidArgument(_ text: String) -> NodeInvokeError {
        NodeInvokeError(code: HealthError.Code.invalidArgument.rawValue, text)
    }
}

/// `node.event` params (closed): `{event, payloadJSON?}`; absent keys omitted.
public struct NodeEventParams: Codable, Sendable, Hashable {
    public var event: String
    public var payloadJSON: String?

    public init(event: String, payloadJSON: String?) { self.event = event; self.payloadJSON = payloadJSON }
}
