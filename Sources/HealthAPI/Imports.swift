import Foundation
import HealthModel

/// One finished import, as the importer's report stored it (no health value: counts and the export's date).
public struct ImportRecord: Codable, Sendable, Hashable {
    public var contentHash: String
    /// When the export was made (the export's own `ExportDate`).
    public var exportDate: String?
    public var samplesInserted: Int?
    public var workoutsInserted: Int?
    public var bytes: Int?

    public init(contentHash: String, exportDate: String? = nil, samplesInserted: Int? = nil,
                workoutsInserted: Int? = nil, bytes: Int? = nil) {
        self.contentHash = contentHash; self.exportDate = exportDate; self.samplesInserted = samplesInserted
        self.workoutsInserted = workoutsInserted; self.bytes = bytes
    }
}

public struct ImportsResult: Codable, Sendable, Hashable {
    public var imports: [ImportRecord]

    public init(imports: [ImportRecord]) {
        self.imports = imports
    }
}

// MARK: - Schemas

extension ImportRecord: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object([
        "contentHash": .string("The SHA-256 of the export."),
        "exportDate": .string("When the export was made (its own ExportDate)."),
        "samplesInserted": .integer(), "workoutsInserted": .integer(), "bytes": .integer(),
    ], required: ["contentHash"])
}

extension ImportsResult: SchemaDescribed {
    public static let jsonSchema = JSONSchema.object(["imports": .array(ImportRecord.jsonSchema)], required: ["imports"])
}
