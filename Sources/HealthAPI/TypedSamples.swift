import Foundation
import HealthModel

/// Samples of several types in one paged stream, oldest first, type after type: the local-network export's
/// `health/data`.
///
/// ```swift
/// let page = try await service.samples(ofTypes: TypedSamplesRequest(types: ["stepCount", "heartRate"], start: "7d"))
/// ```
public struct TypedSamplesRequest: Codable, Sendable, Hashable {
    /// 1…32 quantity or category types.
    public var types: [String]?
    /// Default `7d`. See ``DateRange``.
    public var start: String?
    public var end: String?
    /// Samples per page, 1…5,000, default 1,000.
    public var limit: Int?
    public var cursor: String?

    public init(types: [String]? = nil, start: String? = nil, end: String? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.types = types; self.start = start; self.end = end; self.limit = limit; self.cursor = cursor
    }

    public static let maxTypes = 32
    public static let maxLimit = 5_000
    public static let defaultLimit = 1_000
}

public struct TypedSamplesResult: Sendable, Equatable {
    public var types: [String]
    public var start: Date
    public var end: Date
    /// In the order of `types`, each type's samples oldest first.
    public var samples: [TypedSample]
    public var nextCursor: String?

    public init(types: [String], start: Date, end: Date, samples: [TypedSample], nextCursor: String? = nil) {
        self.types = types; self.start = start; self.end = end; self.samples = samples; self.nextCursor = nextCursor
    }
}

/// A sample with its type.
public struct TypedSample: Sendable, Equatable {
    public var type: String
    public var sample: SampleRecord

    public init(type: String, sample: SampleRecord) {
        self.type = type; self.sample = sample
    }
}

// MARK: - Schemas

extension TypedSamplesRequest: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "types": .array(.string(), "1 to 32 quantity or category types."),
        "start": .string("Start of the range: a date expression (DateRange). Default 7d."),
        "end": .string("End of the range (exclusive). Default now."),
        "limit": .integer("Samples per page.", minimum: 1, maximum: maxLimit, default: defaultLimit),
        "cursor": .string("The cursor of the previous page."),
    ])
}

// A `TypedSamplesResult` is a page in process, not a document: the paired API answers it as a `DataResponse`.
