import Foundation
import HealthModel

/// The wire protocol of the local-network export API (`/api/v1`), shared by the server and the client.
///
/// Every payload encodes with sorted keys and without nulls. Dates are ISO-8601 instants. Fingerprints are the
/// SHA-256 of the server certificate's DER bytes as 64 lowercase hex digits (``CertificateFingerprint``).
public enum PairedAPIProtocol {
    /// The API version in the path and in the DNS-SD TXT record.
    public static let version = 1
    public static let basePath = "/api/v1"
    /// The DNS-SD service type advertised while sharing is active.
    public static let serviceType = "_healthsync._tcp"
    /// The response header carrying the server's request id.
    public static let requestIDHeader = "X-Request-Id"
    /// The default HTTPS port of the export API.
    public static let defaultPort = 8443
}

/// What a pairing QR code carries: where the server is, how to recognise it, and the one-time code.
public struct PairingPayload: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    /// The SHA-256 fingerprint of the server certificate (64 lowercase hex digits).
    public var fingerprint: String
    /// The one-time pairing code.
    public var code: String
    /// When the code expires (ISO-8601 instant).
    public var expires: String
    /// The app the code was issued for (`healthbridge pair-code --app ID`): the client redeeming it acts as
    /// `app:<appId>`. Absent for a device code.
    public var appId: String?

    public init(host: String, port: Int, fingerprint: String, code: String, expires: String, appId: String? = nil) {
        self.host = host; self.port = port; self.fingerprint = fingerprint; self.code = code; self.expires = expires
        self.appId = appId
    }

    /// The compact JSON that goes into the QR code (sorted keys, no whitespace).
    public func json() throws -> String {
        String(decoding: try JSONEncoder.wire.encode(self), as: UTF8.self)
    }
}

/// `POST /api/v1/pair` body. An app identity is never self-asserted: a client acts as the principal `app:<appId>`
/// (grants per app, read denial never revealed, HealthKit's rule) only when it redeems a code the owner issued for
/// that app (`healthbridge pair-code --app ID`, the console's Pairing page). `appId` here is a check: a code not
/// issued for it is refused (`403 HEALTH_NOT_AUTHORIZED`, the code stays usable). A device code without `appId`
/// pairs the device `device:<clientId>`.
public struct PairRequest: Codable, Sendable, Equatable {
    public var code: String
    public var clientName: String
    /// A reverse-DNS app id (`com.example.diet`): 1 to 128 letters, digits, `.`, `-`, `_`.
    public var appId: String?
    public init(code: String, clientName: String, appId: String? = nil) {
        self.code = code; self.clientName = clientName; self.appId = appId
    }

    /// Whether `id` is a valid app id: 1 to 128 ASCII letters, digits, `.`, `-` and `_`.
    public static func isValidAppId(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }
}

/// `POST /api/v1/pair` answer. The token is shown once: the server keeps only its SHA-256.
public struct PairResponse: Codable, Sendable, Equatable {
    public var token: String
    /// The id `healthbridge clients revoke` takes.
    public var clientId: String
    public var deviceName: String?
    /// The app this client acts as (`app:<appId>`): the one its code was issued for. Absent for a device.
    public var appId: String?
    public init(token: String, clientId: String, deviceName: String? = nil, appId: String? = nil) {
        self.token = token; self.clientId = clientId; self.deviceName = deviceName; self.appId = appId
    }
}

/// Whether the person currently shares data with paired clients.
public enum SharingState: String, Codable, Sendable, Equatable {
    case active
    /// The equivalent of the phone being locked or the app backgrounded: health endpoints answer 423 `locked`.
    case paused
}

/// `GET /api/v1/status`.
public struct StatusResponse: Codable, Sendable, Equatable {
    public var status: String
    public var serverVersion: String
    public var apiVersion: Int
    public var deviceName: String
    public var sharing: SharingState
    public var enabledTypes: [String]
    /// The last time data was read by a paired client (ISO-8601), if ever.
    public var lastExport: String?

    public init(status: String = "ok", serverVersion: String, apiVersion: Int = PairedAPIProtocol.version, deviceName: String,
                sharing: SharingState, enabledTypes: [String], lastExport: String?) {
        self.status = status; self.serverVersion = serverVersion; self.apiVersion = apiVersion
        self.deviceName = deviceName; self.sharing = sharing; self.enabledTypes = enabledTypes; self.lastExport = lastExport
    }
}

/// The `status` field of the health endpoints.
public enum DataStatus: String, Codable, Sendable, Equatable {
    case ok
    /// A requested type is not shared: nothing is returned, never a guess.
    case noPermission = "no_permission"
    /// Sharing is paused: nothing is returned.
    case locked
    case error
}

/// A shared type, as `GET /api/v1/health/types` lists it.
public struct ExportTypeInfo: Codable, Sendable, Equatable {
    public var type: String
    public var kind: String
    public var displayName: String
    /// The unit values are sent in (quantity types).
    public var unit: String?
    /// How many samples the server holds, and their span.
    public var count: Int
    public var first: String?
    public var last: String?

    public init(type: String, kind: String, displayName: String, unit: String?, count: Int, first: String?, last: String?) {
        self.type = type; self.kind = kind; self.displayName = displayName; self.unit = unit; self.count = count
        self.first = first; self.last = last
    }
}

/// `GET /api/v1/health/types`.
public struct TypesResponse: Codable, Sendable, Equatable {
    public var status: DataStatus
    public var types: [ExportTypeInfo]
    public init(status: DataStatus, types: [ExportTypeInfo]) { self.status = status; self.types = types }
}

/// `POST /api/v1/health/data` body (the `GET` form takes the same names as query parameters, `types` comma-separated).
public struct DataRequest: Codable, Sendable, Equatable {
    public var types: [String]
    /// ISO-8601 instants with a zone (`Z` or an offset).
    public var start: String
    public var end: String
    public var limit: Int?
    public var cursor: String?

    public init(types: [String], start: String, end: String, limit: Int? = nil, cursor: String? = nil) {
        self.types = types; self.start = start; self.end = end; self.limit = limit; self.cursor = cursor
    }

    /// The query string of the `GET` form.
    public var queryString: String {
        var items = [("types", types.joined(separator: ",")), ("start", start), ("end", end)]
        if let limit { items.append(("limit", String(limit))) }
        if let cursor { items.append(("cursor", cursor)) }
        return items.map { "\($0.0)=\(Self.percentEncode($0.1))" }.joined(separator: "&")
    }

    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~,:")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// One sample on the wire: the OpenClaw sample shape plus its type.
public struct ExportSample: Codable, Sendable, Equatable {
    public var type: String
    public var dateISO: String
    public var endDateISO: String?
    public var value: Double?
    public var unit: String?
    public var category: String?
    public var source: String?

    public init(type: String, dateISO: String, endDateISO: String? = nil, value: Double? = nil, unit: String? = nil,
                category: String? = nil, source: String? = nil) {
        self.type = type; self.dateISO = dateISO; self.endDateISO = endDateISO; self.value = value; self.unit = unit
        self.category = category; self.source = source
    }
}

/// `GET|POST /api/v1/health/data`.
public struct DataResponse: Codable, Sendable, Equatable {
    public var status: DataStatus
    public var samples: [ExportSample]
    /// Present when more samples match: pass it back as `cursor` with the same types and range.
    public var nextCursor: String?
    /// With `no_permission`: the requested types that are not shared.
    public var deniedTypes: [String]?

    public init(status: DataStatus, samples: [ExportSample], nextCursor: String? = nil, deniedTypes: [String]? = nil) {
        self.status = status; self.samples = samples; self.nextCursor = nextCursor; self.deniedTypes = deniedTypes
    }
}

/// Every error answer: `{"status":"error","error":{"code":…,"message":…},"requestId":…}` (423 answers carry
/// `status: locked`, 403 data answers `status: no_permission`).
public struct APIErrorResponse: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) { self.code = code; self.message = message }
    }
    public var status: String
    public var error: Detail
    public var requestId: String?
    public init(status: String = "error", code: String, message: String, requestId: String?) {
        self.status = status; self.error = Detail(code: code, message: message); self.requestId = requestId
    }
}

// MARK: - Schemas

extension PairRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema([
        "type": "object", "required": ["code", "clientName"],
        "properties": [
            "code": ["type": "string", "maxLength": 32],
            "clientName": ["type": "string", "minLength": 1, "maxLength": 64],
            "appId": ["type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[A-Za-z0-9._-]+$",
                      "description": "The app the code was issued for (HealthBridgeKit). A check, not a claim: the app id comes from the code (`healthbridge pair-code --app ID`); a code not issued for this app is refused with 403 HEALTH_NOT_AUTHORIZED."],
        ],
    ])
}

extension PairResponse: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "token": .string("256 random bits, base64url."), "clientId": .string(), "deviceName": .string(),
        "appId": .string("The app this client acts as (app:<appId>): the one its code was issued for. Absent for a device."),
    ], required: ["token", "clientId"])
}

extension StatusResponse: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "status": .string(oneOf: ["ok"]), "serverVersion": .string(), "apiVersion": .integer(), "deviceName": .string(),
        "sharing": .string(oneOf: ["active", "paused"]), "enabledTypes": .array(.string()),
        "lastExport": .string("The last time data was read by a paired client, if ever.", format: "date-time"),
    ], required: ["status", "serverVersion", "apiVersion", "deviceName", "sharing", "enabledTypes"])
}

extension ExportTypeInfo: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string(), "kind": .string(oneOf: ["quantity", "category"]), "displayName": .string(),
        "unit": .string("The unit values are sent in (quantity types)."), "count": .integer(),
        "first": .string(format: "date-time"), "last": .string(format: "date-time"),
    ], required: ["type", "kind", "displayName", "count"])
}

extension TypesResponse: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "status": .string(oneOf: ["ok", "locked"]), "types": .array(ExportTypeInfo.jsonSchema),
        "error": APIErrorResponse.Detail.jsonSchema, "requestId": .string(),
    ], required: ["status", "types"])
}

extension DataRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema([
        "type": "object", "required": ["types", "start", "end"],
        "properties": [
            "types": ["type": "array", "items": ["type": "string"], "maxItems": 32],
            "start": ["type": "string", "format": "date-time"],
            "end": ["type": "string", "format": "date-time"],
            "limit": ["type": "integer", "minimum": 1, "maximum": 5000],
            "cursor": ["type": "string"],
        ],
    ])
}

extension ExportSample: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "type": .string(), "dateISO": .string(format: "date-time"), "endDateISO": .string(format: "date-time"),
        "value": .number(), "unit": .string(), "category": .string(), "source": .string(),
    ], required: ["type", "dateISO"])
}

extension DataResponse: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "status": .string(oneOf: ["ok", "no_permission", "locked", "error"]),
        "samples": .array(ExportSample.jsonSchema),
        "nextCursor": .string("Present when more samples match: pass it back as cursor with the same types and range."),
        "deniedTypes": .array(.string(), "With no_permission: the requested types that are not shared."),
        "error": APIErrorResponse.Detail.jsonSchema, "requestId": .string(),
    ], required: ["status", "samples"])
}

extension APIErrorResponse: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "status": .string(oneOf: ["error", "no_permission", "locked"]),
        "error": Detail.jsonSchema, "requestId": .string(), "deniedTypes": .array(.string()),
    ], required: ["status", "error", "requestId"])
}

extension APIErrorResponse.Detail: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "code": .string("The one error vocabulary of every HealthBridge interface.",
                        oneOf: HealthError.Code.allCases.map(\.rawValue)),
        "message": .string(),
    ], required: ["code", "message"])
}
