import HealthModel

/// The codes an export API error answer may carry in `error.code`: the one vocabulary of ``HealthError/Code`` plus the
/// codes of the API's own concerns (authentication, pairing, HTTP framing). Closed: the OpenAPI document lists them as
/// an enum, and the API property tests (scripts/schemathesis.sh) fail on any other.
public enum ExportErrorCode: String, Sendable, CaseIterable {
    case tokenMissing = "TOKEN_MISSING"
    case tokenInvalid = "TOKEN_INVALID"
    case tokenRevoked = "TOKEN_REVOKED"
    case pairCodeInvalid = "PAIR_CODE_INVALID"
    case pairCodeExpired = "PAIR_CODE_EXPIRED"
    case pairCodeBurnt = "PAIR_CODE_BURNT"
    case pairCodeUsed = "PAIR_CODE_USED"
    case badRequest = "BAD_REQUEST"
    case invalidArgument = "INVALID_ARGUMENT"
    case invalidCursor = "INVALID_CURSOR"
    case notFound = "NOT_FOUND"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case uriTooLong = "URI_TOO_LONG"
    case sharingPaused = "SHARING_PAUSED"
    case `internal` = "INTERNAL"

    /// Every code an error answer may carry.
    public static let vocabulary: [String] = HealthError.Code.allCases.map(\.rawValue) + allCases.map(\.rawValue)
}
