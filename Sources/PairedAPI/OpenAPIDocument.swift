import HealthAPI
import PairedAPIClient
import HealthModel

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
            PairedAPIProtocol.requestIDHeader: ["description": "Server-assigned id of this request, also in the audit log.",
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
            "400": response("Invalid input (dates, type names, units, limits, malformed body).", "Error"),
            "401": response("Missing, unknown or revoked token.", "Error"),
            "413": response("Body larger than \(PairedAPIServerConfiguration.defaultMaxBodyBytes / 1024) KB.", "Error"),
            "429": response("Rate limited.", "Error", headers: retryAfter),
        ]
    }

    static func merged(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> JSONValue {
        .object(a.merging(b) { _, new in new })
    }

    static let dateHelp = "an ISO date (2024-05-01, the start of that day in the server's home zone), an instant (2024-05-01T08:00:00Z), now, today, yesterday, or a span back from now: 7d (the last seven days including today), 12h, 2w, 3mo, 1y"

    static func query(_ name: String, _ description: String, _ schema: JSONValue = ["type": "string"],
                      required: Bool = false) -> JSONValue {
        ["name": .string(name), "in": "query", "required": .bool(required), "description": .string(description),
         "schema": schema]
    }

    static let startParameter = query("start", "Start of the range: \(dateHelp). Default 7d.")
    static let endParameter = query("end", "End of the range (exclusive), same forms. Default now; before start is HEALTH_INVALID_RANGE.")
    static let zoneParameter = query("time_zone", "IANA zone for day boundaries and the dates of the answer. Default: the server's home zone.")
    static let cursorParameter = query("cursor", "next_cursor of the previous page; the other parameters are then taken from it.")

    static let dataParameters: JSONValue = [
        ["name": "types", "in": "query", "required": true, "description": "Comma-separated type identifiers (stepCount,heartRate).",
         "schema": ["type": "string"]],
        ["name": "start", "in": "query", "required": false, "description": .string("Start: \(dateHelp). Default 7d."),
         "schema": ["type": "string"]],
        ["name": "end", "in": "query", "required": false, "description": "End (exclusive), same forms. Default now.",
         "schema": ["type": "string"]],
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
                    "summary": "Redeem a one-time pairing code for a client token. A client acts as app:<appId> only with a code the owner issued for that app (`healthbridge pair-code --app ID`); an appId the code was not issued for is refused (403 HEALTH_NOT_AUTHORIZED, the code stays usable).",
                    "security": [],
                    "requestBody": ["required": true, "content": content("PairRequest")],
                    "responses": [
                        "200": response("Paired. The token is shown once.", "PairResponse"),
                        "400": response("Malformed body.", "Error"),
                        "401": response("Wrong, expired, used or burnt code.", "Error"),
                        "403": response("HEALTH_NOT_AUTHORIZED: the code was not issued for the appId given.", "Error"),
                        "413": response("Body larger than \(PairedAPIServerConfiguration.defaultMaxBodyBytes / 1024) KB.", "Error"),
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
            "/api/v1/health/statistics": useCase(
                "statistics", "HealthKit-accurate statistics of one type per interval, merged across sources by priority.",
                [query("type", "A quantity or category type.", required: true), startParameter, endParameter,
                 query("interval", "minute, hour, day (default), week, month, year, optionally with a count (15minute); or total."),
                 query("statistics", "Comma-separated: sum, average, min, max, most_recent, duration. Default: all that apply."),
                 zoneParameter, query("by_source", "Also each source's own series.", ["type": "boolean"]),
                 query("source", "Only these sources, comma-separated."),
                 query("skip_empty", "Leave out empty buckets.", ["type": "boolean"]),
                 query("unit", "Values in this unit (kcal, kJ, lb, mi, …)."),
                 query("limit", "Buckets per page.", ["type": "integer", "minimum": 1, "maximum": 100000]), cursorParameter,
                 query("contributions", "Cumulative types: which source won — each source's part of the merged total beside its own unmerged total.", ["type": "boolean"])],
                "SummaryResult"),
            "/api/v1/health/coverage": useCase(
                "coverage", "Per day (or hour) of a range, which sources recorded a type with their sample counts, and the gaps where nothing was recorded (missing, not 0). A type this client may not read looks like a type without data.",
                [query("type", "A quantity or category type.", required: true),
                 query("start", "Start: \(dateHelp). Default 30d."), endParameter,
                 query("interval", "day (default) or hour.", ["type": "string", "enum": ["day", "hour"]]), zoneParameter],
                "CoverageResult"),
            "/api/v1/health/latest": useCase(
                "latest", "The most recent sample of a type.",
                [query("type", "A quantity or category type.", required: true), query("source", "Only these sources."), zoneParameter],
                "LatestResult"),
            "/api/v1/health/sleep": useCase(
                "sleep", "Sleep per night by wake-up day (18:00 → 18:00), merged by source priority.",
                [startParameter, endParameter, zoneParameter, cursorParameter], "SleepResult"),
            "/api/v1/health/workouts": useCase(
                "workouts", "Workouts in a range, newest first.",
                [query("activity_type", "Only these activity types (running, walking, …), comma-separated."),
                 query("start", "Start: \(dateHelp). Default 30d."), endParameter,
                 query("limit", "Workouts per page.", ["type": "integer", "minimum": 1, "maximum": 500]),
                 query("order", "desc (default) or asc.", ["type": "string", "enum": ["asc", "desc"]]), zoneParameter,
                 cursorParameter],
                "WorkoutsResult"),
            "/api/v1/health/workouts/{uuid}": useCase(
                "workout", "One workout: statistics, events, metadata, route summary and a page of route points. The route is a type of its own (workoutRoute): without a workoutRoute read grant the workout looks as if it had no route (no summary, no points, route_point_count 0).",
                [["name": "uuid", "in": "path", "required": true, "schema": ["type": "string", "format": "uuid"]],
                 query("route_offset", "First route point.", ["type": "integer", "minimum": 0]),
                 query("route_limit", "Route points (0 for the summary only).", ["type": "integer", "minimum": 0, "maximum": 5000]),
                 zoneParameter],
                "WorkoutDetail", notFound: true),
            "/api/v1/health/activity": useCase(
                "activity", "Activity rings per day, newest first, from an imported export.",
                [startParameter, endParameter,
                 query("limit", "Days per page.", ["type": "integer", "minimum": 1, "maximum": 1000]), zoneParameter,
                 cursorParameter],
                "ActivityResult"),
            "/api/v1/health/sources": useCase(
                "sources", "Sources of the types this client may read, with those types' counts; with type, that type's sources in the order its statistics merge by (none for a type it may not read).",
                [query("type", "A type.")], "SourcesResult"),
            "/api/v1/health/today": useCase(
                "today", "Today so far: steps and active energy merged by priority, resting heart rate, last night, workouts.",
                [], "TodayResult"),
            "/api/v1/health/energy": useCase(
                "energy", "Energy in and out per day (kcal): eaten, active and resting burned, burned = active + resting (TDEE), balance = eaten − burned; a total only when its parts were recorded.",
                [startParameter, endParameter, zoneParameter], "EnergyResult"),
            "/api/v1/health/changes": useCase(
                "changes", "Objects added and deleted since an anchor (HealthKit's anchored object query); wait long-polls.",
                [query("types", "Types to follow, comma-separated (default every type)."),
                 query("anchor", "The anchor of the previous answer (default: from the beginning)."),
                 query("wait", "Seconds to wait for a change when there is none yet, 0–60.", ["type": "number"]),
                 query("limit", "Changes per answer.", ["type": "integer", "minimum": 1, "maximum": 5000]), zoneParameter],
                "ChangesResult"),
            "/api/v1/health/changes/anchor": useCase(
                "changesAnchor", "The change feed's anchor now, whatever the store holds (HealthKit's anchor \"now\"): pass it as anchor to health/changes to get only later changes, without downloading the history.",
                [], "ChangesAnchor"),
            "/api/v1/health/samples/query": readBodyCase(
                "querySamples", "Raw samples of one type, paged (HealthKit's HKSampleQuery): date range, sources, order, unit, and the metadata predicate metadata_key + metadata_values (predicateForObjects(withMetadataKey:allowedValues:)). A type an app may not read shows only what it wrote itself (HealthKit's rule); a paired device is told 403.",
                "SamplesQuery", "SamplesResult"),
            "/api/v1/health/delete": [
                "post": ["operationId": "deleteObjects",
                         "summary": "Delete what this client wrote, in one transaction: one object (uuid), several (uuids, 1–1,000; HealthKit's delete([HKObject])), every object of a log id, or the object with a sync id. Exactly one of them; unknown UUIDs are skipped. A meal is authorized through its nutrients.",
                         "security": [["bearerAuth": []]],
                         "requestBody": ["required": true, "content": content("DeleteRequest")],
                         "responses": merged(commonErrors, [
                             "200": response("Deleted (0 when nothing matched).", "DeleteResult"),
                             "403": response("Not this client's to delete, or no write grant for a type.", "Error"),
                             "423": response("Sharing is paused: status locked.", "Error"),
                         ])],
            ],
            "/api/v1/health/samples": writeCase("saveSamples", "Write quantity and category samples (a write grant per type).",
                                                "SamplesRequest"),
            "/api/v1/log/food": writeCase("logFood", "Log a meal: a sample per nutrient and a food correlation.", "FoodLog"),
            "/api/v1/log": writeCase("logQuantity", "Log one measurement of any writable quantity type (type in the body; unit one of its entry units; metadata the type allows).", "QuantityLog"),
            "/api/v1/log/weight": writeCase("logWeight", "Log a weight (bodyMass), default kg.", "QuantityLog"),
            "/api/v1/log/water": writeCase("logWater", "Log water (dietaryWater), default mL.", "QuantityLog"),
            "/api/v1/log/workout": writeCase("logWorkout", "Log a workout.", "WorkoutLog"),
            "/api/v1/ingest/health-auto-export": [
                "post": [
                    "operationId": "ingestHealthAutoExport",
                    "summary": "Receive a Health Auto Export push (the iOS app's REST API automation, JSON). Each item is stored once, whatever is re-sent; aggregated totals replace their bucket when re-sent with a new total.",
                    "description": "Authorization: Bearer <ingest token> from `healthbridge ingest-token create NAME` (not a paired client's token). Body up to 64 MB and 1,000,000 objects; unknown metrics are counted in the answer, malformed JSON is 400 and writes nothing. Every item passes the checks every write passes (a finite value within its type's bounds in its canonical unit, dates from 1900 to a little after now, a span of at most 370 days, a night's stage at most a day): an item that fails is counted under `rejected` with the first reason per metric in `reasons`, never stored. Bucket totals are stored under a source of this token's own (`Health Auto Export (ingest:NAME)`), so two tokens never replace each other's totals.",
                    "security": [["bearerAuth": []]],
                    "parameters": .array(["automation-name", "automation-id", "automation-aggregation", "automation-period",
                                          "session-id"].map { name in
                        ["name": .string(name), "in": "header", "required": false,
                         "description": "Sent by Health Auto Export; recorded in the audit entry of the batch.",
                         "schema": ["type": "string"]]
                    }),
                    "requestBody": ["required": true, "content": content("HealthAutoExportPayload")],
                    "responses": merged(commonErrors, [
                        "200": response("Stored: counts per type, what was new, replaced or already stored, what was kept aside.", "IngestReport"),
                        "403": response("The token has no write grant for a type of the payload (HEALTH_NOT_AUTHORIZED); nothing written.", "Error"),
                        "413": response("Body larger than 64 MB, or more than 1,000,000 objects.", "Error"),
                    ]),
                ],
            ],
            "/api/v1/ingest/health-connect": [
                "post": [
                    "operationId": "ingestHealthConnect",
                    "summary": "Receive an Android phone's Health Connect records as the app HC Webhook (github.com/mcnaveen/health-connect-webhook) pushes them (JSON). Each record is stored once, whatever is re-sent.",
                    "description": "Authorization: Bearer <ingest token> from `healthbridge ingest-token create NAME`, the same tokens as Health Auto Export's. Body up to 64 MB and 1,000,000 objects. Mapped to HealthKit: steps, distance (walking + running), active_calories, heart_rate (a {avg, min, max} aggregate keeps its min and max), resting_heart_rate, respiratory_rate, oxygen_saturation, weight, height, lean_body_mass, body_fat, body_temperature, basal_body_temperature, blood_glucose, blood_pressure, vo2_max, hydration, nutrition, sleep (stages: light → core, sleeping → asleep, awake in bed → awake) and exercise (workouts). Not mapped, counted under `unknown`: total_calories, heart_rate_variability (RMSSD, not SDNN), bmi (computed by the app), basal_metabolic_rate and other sections. Each record's source is its data origin (the package name of the app that wrote it). Every record passes the checks every write passes; one that fails is counted under `rejected` with the first reason per section in `reasons`.",
                    "security": [["bearerAuth": []]],
                    "requestBody": ["required": true, "content": content("HealthConnectPayload")],
                    "responses": merged(commonErrors, [
                        "200": response("Stored: counts per type, what was new or already stored, what was kept aside.", "IngestReport"),
                        "403": response("The token has no write grant for a type of the payload (HEALTH_NOT_AUTHORIZED); nothing written.", "Error"),
                        "413": response("Body larger than 64 MB, or more than 1,000,000 objects.", "Error"),
                    ]),
                ],
            ],
            "/api/v1/log/{logId}": [
                "delete": ["operationId": "deleteLog", "summary": "Delete every object this client wrote with a log id.",
                           "security": [["bearerAuth": []]],
                           "parameters": [["name": "logId", "in": "path", "required": true, "schema": ["type": "string"]]],
                           "responses": merged(commonErrors, [
                               "200": response("Deleted (0 when nothing had that log id).", "DeleteResult"),
                               "403": response("Not this client's to delete, or no write grant.", "Error"),
                               "423": response("Sharing is paused: status locked.", "Error"),
                           ])],
            ],
            "/api/v1/access/requests": [
                "post": ["operationId": "requestAccess",
                         "summary": "Ask the owner for access to types (HealthKit's requestAuthorization); the owner approves or denies with `healthbridge access`.",
                         "security": [["bearerAuth": []]],
                         "requestBody": ["required": true, "content": content("AccessRequestInput")],
                         "responses": merged(commonErrors, [
                             "200": response("Filed (request absent when every type was already decided); every read asked is recorded whatever is granted; the write status of each type.", "AccessRequestFiling"),
                         ])],
            ],
            "/api/v1/access/status": [
                "get": ["operationId": "authorizationStatus",
                        "summary": "Whether this client may write each type: notDetermined, sharingDenied or sharingAuthorized (reads are never reported).",
                        "security": [["bearerAuth": []]],
                        "parameters": [query("types", "Types, comma-separated.", required: true)],
                        "responses": merged(commonErrors, ["200": response("The write status of each type.", "AuthorizationStatus")])],
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
        let schemas = resultSchemas
        return [
            "openapi": "3.0.3",
            "info": ["title": "HealthBridge local-network export API", "version": .string(PairedAPIServer.serverVersion),
                     "description": "Paired HTTPS access to the health data types the person shares. TLS with a self-signed certificate pinned by its SHA-256 fingerprint; bearer tokens from pairing; deny by default."],
            "servers": [["url": "https://{host}:{port}", "variables": ["host": ["default": "localhost"],
                                                                        "port": ["default": "8443"]]]],
            "paths": paths,
            "components": [
                "securitySchemes": ["bearerAuth": ["type": "http", "scheme": "bearer"]],
                "schemas": .object(schemas),
            ],
        ]
    }

    /// A read use case: GET with query parameters, its result document, the common errors, 403 for an unshared
    /// type (paired devices are told), 423 while sharing is paused.
    static func useCase(_ id: String, _ summary: String, _ parameters: [JSONValue], _ result: String,
                        notFound: Bool = false) -> JSONValue {
        var responses = commonErrors
        responses["200"] = response("The result.", result)
        responses["403"] = response("The type is not shared with this device: status no_permission.", "Error")
        responses["423"] = response("Sharing is paused: status locked.", "Error")
        if notFound { responses["404"] = response("No such workout.", "Error") }
        return ["get": ["operationId": .string(id), "summary": .string(summary), "security": [["bearerAuth": []]],
                        "parameters": .array(parameters), "responses": .object(responses)]]
    }

    /// A read use case whose request is a JSON body (the contract's request type): POST, its result document, the
    /// common errors, 403 for an unshared type (paired devices are told), 423 while sharing is paused.
    static func readBodyCase(_ id: String, _ summary: String, _ body: String, _ result: String) -> JSONValue {
        var responses = commonErrors
        responses["200"] = response("The result.", result)
        responses["403"] = response("The type is not shared with this device: status no_permission.", "Error")
        responses["423"] = response("Sharing is paused: status locked.", "Error")
        return ["post": ["operationId": .string(id), "summary": .string(summary), "security": [["bearerAuth": []]],
                         "requestBody": ["required": true, "content": content(body)], "responses": .object(responses)]]
    }

    /// A write: a JSON body, the write's result, 403 without a write grant for a type.
    static func writeCase(_ id: String, _ summary: String, _ body: String) -> JSONValue {
        var responses = commonErrors
        responses["200"] = response("Written (or already stored: a retry changes nothing).", "WriteResult")
        responses["403"] = response("No write grant for a type (HEALTH_NOT_AUTHORIZED).", "Error")
        responses["423"] = response("Sharing is paused: status locked.", "Error")
        return ["post": ["operationId": .string(id), "summary": .string(summary), "security": [["bearerAuth": []]],
                         "requestBody": ["required": true, "content": content(body)], "responses": .object(responses)]]
    }

    /// The request and result documents of the use cases, read from the contract (HealthAPI): the same JSON MCP's
    /// structured content and `healthbridge … --json` give. The names are the components' own.
    static var contractSchemas: [String: any SchemaDescribed.Type] { [
        "SampleInput": SampleInput.self, "FoodLog": FoodLog.self, "QuantityLog": QuantityLog.self,
        "WorkoutLog": WorkoutLog.self, "WriteResult": WriteResult.self, "DeleteResult": DeleteResult.self,
        "DeleteRequest": DeleteRequest.self, "SamplesQuery": SamplesRequest.self, "SamplesResult": SamplesResult.self,
        "ChangesAnchor": ChangesAnchor.self, "ChangesResult": ChangesResult.self, "SummaryResult": SummaryResult.self,
        "CoverageResult": CoverageResult.self,
        "LatestResult": LatestResult.self, "SleepResult": SleepResult.self, "WorkoutsResult": WorkoutsResult.self,
        "WorkoutDetail": WorkoutDetail.self, "ActivityResult": ActivitySummariesResult.self,
        "SourcesResult": SourcesResult.self, "EnergyResult": EnergyResult.self, "TodayResult": TodayResult.self,
        "AccessRequestInput": AccessRequestInput.self, "AccessRequest": AccessRequest.self,
        "AccessRequestFiling": AccessRequestFiling.self, "AuthorizationStatus": AuthorizationStatusResult.self,
        "PairRequest": PairRequest.self, "PairResponse": PairResponse.self, "Status": StatusResponse.self,
        "TypeInfo": ExportTypeInfo.self, "TypesResponse": TypesResponse.self, "DataRequest": DataRequest.self,
        "Sample": ExportSample.self, "DataResponse": DataResponse.self, "ErrorDetail": APIErrorResponse.Detail.self,
        "Error": APIErrorResponse.self, "IngestReport": IngestReport.self,
    ] }

    /// The contract's schemas, and the bodies of this API alone: the write's envelope and the receivers' dialects.
    static var resultSchemas: [String: JSONValue] {
        let string: JSONValue = ["type": "string"]
        func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
        func object(_ required: [String], _ properties: [String: JSONValue]) -> JSONValue {
            ["type": "object", "required": .array(required.map { .string($0) }), "properties": .object(properties)]
        }
        var schemas = contractSchemas.mapValues { type in type.jsonSchema.json }
        schemas.merge([
            "SamplesRequest": object(["samples"], ["samples": array(ref("SampleInput"))]),
            "HealthAutoExportPayload": [
                "type": "object", "required": ["data"],
                "properties": ["data": [
                    "type": "object",
                    "properties": ["metrics": array(["type": "object", "properties": ["name": string, "units": string,
                                                                                     "data": array(["type": "object"])]]),
                                   "workouts": array(["type": "object"])],
                ]],
            ],
            "HealthConnectPayload": [
                "type": "object",
                "description": "HC Webhook's payload: record lists by section, each record with its times (`time`, or `start_time` and `end_time`, ISO 8601), its value fields and `metadata.data_origin`.",
                "properties": ["timestamp": string, "app_version": string,
                               "steps": array(["type": "object"]), "heart_rate": array(["type": "object"]),
                               "sleep": array(["type": "object"]), "distance": array(["type": "object"]),
                               "active_calories": array(["type": "object"]), "weight": array(["type": "object"]),
                               "blood_pressure": array(["type": "object"]), "exercise": array(["type": "object"]),
                               "nutrition": array(["type": "object"])],
            ],
        ]) { contract, _ in contract }
        return schemas
    }
}
