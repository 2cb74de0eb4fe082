@_exported import HealthAPI
import Foundation

// The kit decodes the server's answers as the contract's own types (HealthAPI: `WriteResult`, `SummaryResult`,
// `ChangesResult`, …), the same types the server encodes: a field is declared once for the server, MCP, the OpenAPI
// document and the kit. Apps see them through `import HealthBridgeKit`.

extension SampleRecord {
    /// The sample's sync identifier (`HKMetadataKeySyncIdentifier`), if it was written with one.
    ///
    /// ```swift
    /// let mine = batch.added.compactMap(\.sample).filter { $0.syncId?.hasPrefix("water-") == true }
    /// ```
    public var syncId: String? { metadata?["HKMetadataKeySyncIdentifier"] }

    /// The sample's start as a date; nil when malformed.
    public var startDate: Date? { HealthBridgeDates.parse(start) }
}

extension ChangesResult {
    /// True when nothing was added or deleted.
    ///
    /// ```swift
    /// if !batch.isEmpty { apply(batch) }
    /// ```
    public var isEmpty: Bool { added.isEmpty && deleted.isEmpty }
}

// The names of the kit's former mirror of these types, for apps written against them.
@available(*, deprecated, renamed: "WriteResult") public typealias WriteOutcome = WriteResult
@available(*, deprecated, renamed: "DeleteResult") public typealias DeleteOutcome = DeleteResult
@available(*, deprecated, renamed: "WorkoutsResult") public typealias WorkoutList = WorkoutsResult
@available(*, deprecated, renamed: "LatestResult") public typealias LatestSample = LatestResult
@available(*, deprecated, renamed: "SummaryResult") public typealias StatisticsResult = SummaryResult
@available(*, deprecated, renamed: "ChangesResult") public typealias ChangeBatch = ChangesResult
@available(*, deprecated, renamed: "AuthorizationStatus") public typealias HealthAuthorizationStatus = AuthorizationStatus
@available(*, deprecated, renamed: "AccessRequest") public typealias AccessRequestRecord = AccessRequest
@available(*, deprecated, renamed: "AccessRequestFiling") public typealias AuthorizationRequestResult = AccessRequestFiling
@available(*, deprecated, renamed: "AuthorizationStatusResult")
public typealias AuthorizationStatusAnswer = AuthorizationStatusResult
