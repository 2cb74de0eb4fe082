/// The one error type of the model, store and engine layers.
///
/// Every error carries a stable machine ``Code`` and a human message. Interfaces map it to their own shape
/// (an OpenClaw node error `"CODE: message"`, a JSON-RPC tool error, an HTTP status with a JSON body, a CLI line on
/// stderr with a non-zero exit code).
///
/// ```swift
/// throw HealthError(.invalidType, "unknown type 'stepcont'; did you mean stepCount?")
/// ```
public struct HealthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable machine codes. Their raw values are part of every wire format: never rename one.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The type identifier is not known to the registry nor present in the store.
        case invalidType = "HEALTH_INVALID_TYPE"
        /// The statistic is not defined for the type (a sum of a discrete type, an average of a cumulative one).
        case noSummary = "HEALTH_NO_SUMMARY"
        /// A date or range could not be parsed, or its end is before its start.
        case invalidRange = "HEALTH_INVALID_RANGE"
        /// A unit string could not be parsed, or two units are not compatible.
        case invalidUnit = "HEALTH_INVALID_UNIT"
        /// An IANA time zone name is unknown.
        case invalidTimeZone = "HEALTH_INVALID_TIME_ZONE"
        /// An argument is malformed (a limit, an interval, a cursor, a sample).
        case invalidArgument = "HEALTH_INVALID_ARGUMENT"
        /// The caller is not allowed to read or write this type.
        case notAuthorized = "HEALTH_NOT_AUTHORIZED"
        /// The caller did not say who it is, or its credentials are unknown or revoked (HTTPS: a missing or bad
        /// bearer token).
        case unauthenticated = "HEALTH_UNAUTHENTICATED"
        /// What the request names does not exist: a workout uuid, an endpoint, a principal.
        case notFound = "HEALTH_NOT_FOUND"
        /// Too many requests or attempts; the message says when to try again.
        case rateLimited = "HEALTH_RATE_LIMITED"
        /// The request (or the answer it would need) is larger than allowed.
        case payloadTooLarge = "HEALTH_PAYLOAD_TOO_LARGE"
        /// The owner paused sharing: paired devices get no data until it resumes.
        case sharingPaused = "HEALTH_SHARING_PAUSED"
        /// The request contradicts the current state: an access request already decided, a changed object.
        case conflict = "HEALTH_CONFLICT"
        /// The store cannot be opened: locked, corrupt, or from a newer version.
        case storeUnavailable = "HEALTH_STORE_UNAVAILABLE"
        /// An Apple Health export could not be read.
        case importMalformed = "IMPORT_MALFORMED"
        /// The input is not an Apple Health export, or is unsafe to read (zip slip, decompression bomb).
        case importRejected = "IMPORT_REJECTED"
        /// Anything unexpected. The message says what.
        case internalError = "HEALTH_INTERNAL"
    }

    public var code: Code
    /// What went wrong, in neutral words: no interface's command, tool or route (``hint`` says what to do next).
    public var message: String
    /// With ``Code/notAuthorized`` from a principal that may know it (a paired device reading types the owner did
    /// not share): the types refused. Otherwise nil.
    public var deniedTypes: [String]?
    /// The argument at fault (`type`, `start`, `limit`), when one is.
    public var argument: String?
    /// What the caller can do next, in neutral terms: each interface names it in its own words
    /// (``rendered(_:)``).
    public var hint: Hint?

    public init(_ code: Code, _ message: String, argument: String? = nil, hint: Hint? = nil,
                deniedTypes: [String]? = nil) {
        self.code = code
        self.message = message
        self.argument = argument
        self.hint = hint
        self.deniedTypes = deniedTypes
    }

    /// What a caller can do about an error, without naming any interface. The CLI renders `.listTypes` as
    /// "`healthbridge types` lists them", MCP as "list_types lists them", the paired API as its route.
    public enum Hint: Sendable, Hashable {
        /// The types with data are listed by a use case of their own.
        case listTypes
        /// The sources of a type are listed by a use case of their own.
        case listSources
        /// Workouts have use cases of their own.
        case listWorkouts
        /// Sleep is read as nights (bedtime, wake time, stages).
        case sleepNights
        /// Only the owner changes grants, on the server.
        case ownerChangesGrants
        /// The owner shares types with paired devices.
        case ownerSharesTypes
        /// The owner can let `principal` write `type`.
        case ownerAllowsWrite(principal: String, type: String)
        /// The owner resumes sharing on the server.
        case ownerResumesSharing
    }

    /// This error with its hint in an interface's own words after the message; unchanged when there is no hint or
    /// `words` has none for it.
    ///
    /// ```swift
    /// let error = HealthError(.invalidType, "unknown type 'stepz'", argument: "type", hint: .listTypes)
    /// error.rendered { $0 == .listTypes ? "list_types lists them" : nil }.message
    /// // "unknown type 'stepz' (list_types lists them)"
    /// ```
    public func rendered(_ words: (Hint) -> String?) -> HealthError {
        guard let hint, let text = words(hint) else { return self }
        var rendered = self
        rendered.message += " (\(text))"
        rendered.hint = nil
        return rendered
    }

    /// The one JSON shape of an error on every wire: `{"error": {"code": "HEALTH_…", "message": "…"}}`.
    public var envelope: Envelope { Envelope(error: Body(code: code, message: message, deniedTypes: deniedTypes)) }

    /// `{"code", "message"}` (plus `denied_types` when set).
    public struct Body: Codable, Sendable, Hashable {
        public var code: Code
        public var message: String
        public var deniedTypes: [String]?

        public init(code: Code, message: String, deniedTypes: [String]? = nil) {
            self.code = code; self.message = message; self.deniedTypes = deniedTypes
        }

        enum CodingKeys: String, CodingKey { case code, message, deniedTypes = "denied_types" }
    }

    /// `{"error": Body}`.
    public struct Envelope: Codable, Sendable, Hashable {
        public var error: Body
        public init(error: Body) { self.error = error }
    }

    /// `CODE: message`, the form OpenClaw nodes and the CLI print.
    public var description: String { "\(code.rawValue): \(message)" }
}
