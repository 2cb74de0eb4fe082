import Foundation

/// What an import did: counts per element kind and per type, what was skipped and why, and how fast it went.
public struct ImportReport: Sendable, Codable, Hashable {
    /// One element that could not be imported.
    public struct Skipped: Sendable, Codable, Hashable {
        public var element: String
        public var line: Int
        public var offset: Int
        public var reason: String
        public init(element: String, line: Int, offset: Int, reason: String) {
            self.element = element; self.line = line; self.offset = offset; self.reason = reason
        }
    }

    public var path: String
    /// SHA-256 of the file imported: a re-import of the same content is recognised by it.
    public var contentHash: String
    public var exportVersion: Int?
    public var exportDate: String?
    public var locale: String?
    /// Elements read, by kind (Record, Correlation, Workout, ActivitySummary, …).
    public var elements: [String: Int] = [:]
    /// Record elements read, by type identifier as written in the file (a correlation's members included, also
    /// when the file lists them at the top level too; the store keeps them once).
    public var recordTypes: [String: Int] = [:]
    /// What the store did with the samples: new, replaced through a sync identifier, or already there.
    public var samplesInserted = 0
    public var samplesReplaced = 0
    public var samplesAlreadyStored = 0
    public var workoutsInserted = 0
    public var correlationsInserted = 0
    public var documentsInserted = 0
    public var routePoints = 0
    /// Seconds the route reader spent reading, inflating and scanning GPX files, on its own thread alongside the
    /// XML parser (nil in reports of older versions). Wall time: the reader runs at a lower priority and yields the
    /// CPU to the parser and the saver, so this includes its waits for a core.
    public var routeSeconds: Double?
    /// CPU seconds the route reader's thread used for the same work: `routePoints / routeCPUSeconds` is the route
    /// path's throughput, whatever else the machine was doing (nil in reports of older versions).
    public var routeCPUSeconds: Double?
    /// Files the XML refers to (GPX routes, FHIR resources) that the export does not contain.
    public var routesMissing: [String] = []
    public var skippedCount = 0
    /// The first 200 skipped elements.
    public var skipped: [Skipped] = []
    public var bytes: Int = 0
    public var elapsedSeconds: Double = 0
    /// True when the content hash matched a finished import and nothing was read again.
    public var alreadyImported = false

    public init(path: String, contentHash: String) {
        self.path = path
        self.contentHash = contentHash
    }

    public var records: Int { elements["Record", default: 0] }

    public var recordsPerSecond: Double { elapsedSeconds > 0 ? Double(records) / elapsedSeconds : 0 }

    mutating func skip(_ element: String, line: Int, offset: Int, reason: String) {
        skippedCount += 1
        if skipped.count < 200 {
            skipped.append(Skipped(element: element, line: line, offset: offset, reason: reason))
        }
    }
}

/// Progress of a running import, for a terminal display.
public struct ImportProgress: Sendable {
    public var bytesRead: Int
    public var totalBytes: Int
    public var records: Int
    public var elapsedSeconds: Double

    public var fraction: Double { totalBytes > 0 ? min(1, Double(bytesRead) / Double(totalBytes)) : 0 }
    public var bytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytesRead) / elapsedSeconds : 0 }
    public var recordsPerSecond: Double { elapsedSeconds > 0 ? Double(records) / elapsedSeconds : 0 }
    public var etaSeconds: Double? {
        let rate = bytesPerSecond
        return rate > 0 ? Double(totalBytes - bytesRead) / rate : nil
    }
}
