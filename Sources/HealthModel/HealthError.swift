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
        /// The store cannot be opened: locked, corrupt, or from a newer version.
        case storeUnavailable = "HEALTH_STORE_UNAVAILABLE"
        /// An Apple Health export could not be read.
        case importMalformed = "IMPORT_MALFORMED"
        /// The input is not an Apple Health export, or is unsafe to read (zip slip, decompression bomb).
        case importRejected = "IMPORT_REJECTED"
        /// Too many requests (or too many failed attempts) from one client or address: retry after the time given.
        case rateLimited = "HEALTH_RATE_LIMITED"
        /// A request or its body is larger than the interface accepts.
        case payloadTooLarge = "HEALTH_PAYLOAD_TOO_LARGE"
        /// Anything unexpected. The message says what.
        case internalError = "HEALTH_INTERNAL"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `CODE: message`, the form OpenClaw nodes and the CLI print.
    public var description: String { "\(code.rawValue): \(message)" }
}
