import ExportClient

/// The OpenAPI 3 description of the export API, served at `GET /api/v1/openapi.json`. A test walks the router's
/// routes against `paths` and checks one real answer per endpoint against the schemas here.
public enum OpenAPIDocument {
    public static let document: JSONValue = build()
    public static let bytes: [UInt8] = document.serialized()

    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    static func content(_ schema: String) -> JSONValue {
        ["application/json": ["schema": ref(schema)]]
    }

    static func response(_ description: String, _ schema: String, headers: [String: JSONValue] = [:]) -> JSONValue {
        var headerObject: [String: JSONValue] = [
            ExportAPI.requestIDHeader: ["description": "Server-assigned id of this request, also in the audit log.",
                                        "schema": ["type": "string"]],
        ]
        headerObject.merge(headers) { _, new in new }
        return ["description": .string(description), "headers": .object(headerObject), "content": content(schema)]
    }

    static let retryAfter: [String: JSONValue] = [
        "Retry-After": ["description": "Seconds to wait.", "schema": ["type": "integer"]],
    ]

    static var commonErrors: [String: JSONValue] {
        [
            "400": response("Invalid input (dates, type names, limits, range length, malformed body).", "Error"),
            "401": response("Missing, unknown or revoked token.", "Error"),
            "413": response("Body larger than 64 KB.", "Error"),
            "429": response("Rate limited.", "Error", headers: retryAfter),
        ]
    }

    static func merged(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> JSONValue {
        .object(a.merging(b) { _, new in new })
    }

    static let dataParameters: JSONValue = [
        ["name": "types", "in": "query", "required": true, "description": "Comma-separated type identifiers (stepCount,heartRate).",
         "schema": ["type": "string"]],
        ["name": "start", "in": "query", "required": true, "description": "ISO-8601 instant with a zone.",
         "schema": ["type": "string", "format": "date-time"]],
        ["name": "end", "in": "query", "required": true, "description": "ISO-8601 instant with a zone, after start.",
         "schema": ["type": "string", "format": "date-time"]],
        ["name": "limit", "in": "query", "required": false, "description": "Samples per page, 1…5000 (default 1000).",
         "schema": ["type": "integer", "minimum": 1, "maximum": 5000]],
        ["name": "cursor", "in": "query", "required": false, "description": "nextCursor of the previous page.",
         "schema": ["type": "string"]],
    ]

    static var dataResponses: JSONValue {
        merged(commonErrors, [
            "200": response("Samples of the shared types in the range, oldest first per type.", "DataResponse"),
            "403": response("A requested type is not shared: status no_permission, no samples.", "DataResponse"),
            "423": response("Sharing is paused: status locked, no samples.", "DataResponse"),
        ])
    }

    static func build() -> JSONValue {
        let bearer: JSONValue = [["bearerAuth": []]]
        let paths: JSONValue = [
            "/api/v1/pair": [
                "post": [
                    "operationId": "pair",
                    "summary": "Redeem a one-time pairing code for a client token.",
                    "security": [],
                    "requestBody": ["required": true, "content": content("PairRequest")],
                    "responses": [
                        "200": response("Paired. The token is shown once.", "PairResponse"),
                        "400": response("Malformed body.", "Error"),
                        "401": response("Wrong, expired, used or burnt code.", "Error"),
                        "413": response("Body larger than 64 KB.", "Error"),
                        "429": response("Too many wrong codes from this address.", "Error", headers: retryAfter),
                    ],
                ],
            ],
            "/api/v1/status": [
                "get": [
                    "operationId": "status", "summary": "Server version, device name, shared types, sharing state.",
                    "security": bearer,
                    "responses": merged(commonErrors, ["200": response("Status.", "Status")]),
                ],
            ],
            "/api/v1/health/types": [
                "get": [
                    "operationId": "types", "summary": "The types shared with paired clients.",
                    "security": bearer,
                    "responses": merged(commonErrors, [
                        "200": response("Shared types.", "TypesResponse"),
                        "423": response("Sharing is paused: status locked, no types.", "TypesResponse"),
                    ]),
                ],
            ],
            "/api/v1/health/data": [
                "get": [
                    "operationId": "getData", "summary": "Samples of shared types in a range.",
                    "security": bearer, "parameters": dataParameters, "responses": dataResponses,
                ],
                "post": [
                    "operationId": "postData", "summary": "Samples of shared types in a range (JSON body).",
                    "security": bearer,
                    "requestBody": ["required": true, "content": content("DataRequest")],
                    "responses": dataResponses,
                ],
            ],
            "/api/v1/openapi.json": [
                "get": [
                    "operationId": "openapi", "summary": "This document.",
                    "security": bearer,
                    "responses": merged(commonErrors, ["200": ["description": "The OpenAPI document.",
                                                                "content": ["application/json": ["schema": ["type": "object"]]]]]),
                ],
            ],
        ]
        let string: JSONValue = ["type": "string"]
        let schemas: JSONValue = [
            "PairRequest": [
                "type": "object", "required": ["code", "clientName"],
                "properties": ["code": ["type": "string", "maxLength": 32],
                               "clientName": ["type": "string", "minLength": 1, "maxLength": 64]],
            ],
            "PairResponse": [
                "type": "object", "required": ["token", "clientId"],
                "properties": ["token": ["type": "string", "description": "256 random bits, base64url."],
                               "clientId": string, "deviceName": string],
            ],
            "Status": [
                "type": "object",
                "required": ["status", "serverVersion", "apiVersion", "deviceName", "sharing", "enabledTypes"],
                "properties": [
                    "status": ["type": "string", "enum": ["ok"]],
                    "serverVersion": string, "apiVersion": ["type": "integer"], "deviceName": string,
                    "sharing": ["type": "string", "enum": ["active", "paused"]],
                    "enabledTypes": ["type": "array", "items": string],
                    "lastExport": ["type": "string", "format": "date-time"],
                ],
            ],
            "TypeInfo": [
                "type": "object", "required": ["type", "kind", "displayName", "count"],
                "properties": ["type": string, "kind": ["type": "string", "enum": ["quantity", "category"]],
                               "displayName": string, "unit": string, "count": ["type": "integer"],
                               "first": ["type": "string", "format": "date-time"],
                               "last": ["type": "string", "format": "date-time"]],
            ],
            "TypesResponse": [
                "type": "object", "required": ["status", "types"],
                "properties": ["status": ["type": "string", "enum": ["ok", "locked"]],
                               "types": ["type": "array", "items": ref("TypeInfo")],
                               "error": ref("ErrorDetail"), "requestId": string],
            ],
            "DataRequest": [
                "type": "object", "required": ["types", "start", "end"],
                "properties": [
                    "types": ["type": "array", "items": string, "maxItems": 32],
                    "start": ["type": "string", "format": "date-time"],
                    "end": ["type": "string", "format": "date-time"],
                    "limit": ["type": "integer", "minimum": 1, "maximum": 5000],
                    "cursor": string,
                ],
            ],
            "Sample": [
                "type": "object", "required": ["type", "dateISO"],
                "properties": ["type": string, "dateISO": ["type": "string", "format": "date-time"],
                               "endDateISO": ["type": "string", "format": "date-time"], "value": ["type": "number"],
                               "unit": string, "category": string, "source": string],
            ],
            "DataResponse": [
                "type": "object", "required": ["status", "samples"],
                "properties": [
                    "status": ["type": "string", "enum": ["ok", "no_permission", "locked", "error"]],
                    "samples": ["type": "array", "items": ref("Sample")],
                    "nextCursor": string,
                    "deniedTypes": ["type": "array", "items": string],
                    "error": ref("ErrorDetail"), "requestId": string,
                ],
            ],
            "ErrorDetail": [
                "type": "object", "required": ["code", "message"],
                "properties": ["code": ["type": "string", "enum": .array(ExportErrorCode.vocabulary.map { .string($0) })],
                               "message": string],
            ],
            "Error": [
                "type": "object", "required": ["status", "error", "requestId"],
                "properties": ["status": ["type": "string", "enum": ["error"]], "error": ref("ErrorDetail"),
                               "requestId": string],
            ],
        ]
        return [
            "openapi": "3.0.3",
            "info": ["title": "HealthBridge local-network export API", "version": .string(ExportServer.serverVersion),
                     "description": "Paired HTTPS access to the health data types the person shares. TLS with a self-signed certificate pinned by its SHA-256 fingerprint; bearer tokens from pairing; deny by default."],
            "servers": [["url": "https://{host}:{port}", "variables": ["host": ["default": "localhost"],
                                                                        "port": ["default": "8443"]]]],
            "paths": paths,
            "components": [
                "securitySchemes": ["bearerAuth": ["type": "http", "scheme": "bearer"]],
                "schemas": schemas,
            ],
        ]
    }
}
