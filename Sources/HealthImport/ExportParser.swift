import Foundation
import HealthModel
import HealthStore
import HealthXML

/// What the parser hands to the saver, in one transaction's worth.
struct ImportBatch: Sendable {
    var samples: SampleBatch
    var correlations: [HealthCorrelation] = []
    var workouts: [HealthWorkout] = []
    var documents: [HealthDocument] = []
    var routes: [(UUID, RoutePointColumns)] = []
    var bytesRead = 0
    /// Bytes of document JSON in the batch: a batch is sent before they pass ``ExportParser/documentBytesPerBatch``.
    var documentBytes = 0

    init(capacity: Int = 0) {
        // A batch grows to about `capacity` samples: reserve once instead of copying on every doubling.
        samples = SampleBatch(capacity: capacity + capacity / 8)
    }

    var isEmpty: Bool {
        samples.isEmpty && correlations.isEmpty && workouts.isEmpty && documents.isEmpty && routes.isEmpty
    }
}

/// Turns scanner events into model objects, element by element, with flat memory.
///
/// Top-level elements sit at depth 1 (under `HealthData`). A `Record` inside a `Correlation` also appears at the top
/// level: both copies get the same natural UUID, so the store keeps one and the correlation links to it.
///
/// A value type, mutated in place by the scanner's non-escaping handler: its accesses are checked at compile time,
/// with no runtime exclusivity bookkeeping on the hot path.
struct ExportParser {
    var report: ImportReport
    var batch: ImportBatch
    let batchSize: Int
    let strict: Bool
    let flush: (ImportBatch) throws -> Void
    private(set) var sawRoot = false
    /// Called with every route whose points are in a GPX file, as soon as its workout is read.
    let routeFile: (UUID, String) -> Void
    /// Clinical records whose FHIR JSON is in a file, read after the XML.
    var pendingClinical: [(document: HealthDocument, path: String)] = []

    private var record: RecordBuilder?
    private var correlation: CorrelationBuilder?
    private var workout: WorkoutBuilder?
    private var generic: GenericBuilder?
    private var genericBudget = GenericBudget()
    static let documentBytesPerBatch = 8 << 20
    private var caches = ParserCaches()
    /// The metadata of the record being read.
    private var metadata = MetadataAccumulator()
    /// Hot counters, folded into the report by ``finish(bytesRead:)`` (no dictionary work per record).
    private var topLevelRecords = 0
    /// Records read per type, by the type's index in this import (`TypeInfo.index`).
    private var typeCounts: [(info: TypeInfo, count: Int)] = []

    /// Records read so far, for progress.
    var records: Int { report.elements["Record", default: 0] + topLevelRecords }

    private mutating func foldCounters() {
        if topLevelRecords > 0 { report.elements["Record", default: 0] += topLevelRecords }
        topLevelRecords = 0
        for (info, count) in typeCounts where count > 0 { report.recordTypes[info.written, default: 0] += count }
        typeCounts.removeAll()
    }

    /// The main XML's size, when known (0 otherwise): batches shrink near its end.
    let totalBytes: Int
    private var batchesSent = 0

    init(report: ImportReport, batchSize: Int, totalBytes: Int = 0, strict: Bool,
         routeFile: @escaping (UUID, String) -> Void = { _, _ in },
         flush: @escaping (ImportBatch) throws -> Void) {
        self.routeFile = routeFile
        self.report = report
        self.totalBytes = totalBytes
        self.batch = ImportBatch(capacity: batchSize)
        self.batchSize = batchSize
        self.strict = strict
        self.flush = flush
    }

    mutating func handle(_ event: borrowing XMLEvent) throws {
        switch event {
        case .startElement(let element):
            try start(element)
            if element.isSelfClosing { try flushIfIdle(bytesRead: element.offset) }
        case .endElement(let element):
            try end(element)
            try flushIfIdle(bytesRead: element.offset)
        case .malformed(let error):
            try malformed(error)
        }
    }

    /// Batches end between top-level elements, so that `batchSize` bounds every transaction.
    private mutating func flushIfIdle(bytesRead: Int) throws {
        guard record == nil, correlation == nil, workout == nil, generic == nil else { return }
        try flushIfFull(bytesRead: bytesRead)
    }

    /// Depth as the export intends it: the scanner's depth less the elements left open by a missing end tag.
    private var depthOffset = 0

    @inline(__always)
    private func depth(_ scannerDepth: Int) -> Int { scannerDepth - depthOffset }

    private static let topLevelNames: [StaticString] = ["Record", "Workout", "Correlation", "ActivitySummary",
                                                        "ClinicalRecord", "Audiogram", "VisionPrescription", "Me",
                                                        "ExportDate"]

    /// A top-level element starting where a child was expected means the open element's end tag is missing: close
    /// it (its data is kept and the repair reported) and read the new element as top-level.
    private mutating func recoverFromMissingEndTag(_ element: XMLStartElement) throws -> Bool {
        guard depth(element.depth) == 2, Self.topLevelNames.contains(where: { element.name == $0 }) else { return false }
        if element.name == "Record", correlation != nil, record == nil { return false }  // a correlation's member
        let open: String
        if let builder = record, correlation == nil {
            record = nil
            open = "Record"
            try finishRecord(builder, element: nil)
        } else if let builder = workout {
            workout = nil
            open = "Workout"
            try finishWorkout(builder)
        } else if let builder = correlation {
            if let child = record {
                record = nil
                try finishRecord(child, element: nil)
            }
            correlation = nil
            open = "Correlation"
            try finishCorrelation(builder)
        } else if let builder = generic {
            generic = nil
            open = builder.name
            try finishGeneric(builder)
        } else {
            return false
        }
        if strict {
            throw HealthError(.importMalformed,
                              "line \(element.line), byte \(element.offset): the \(open) before this element has no end tag (stopped: --strict)")
        }
        report.skip(open, line: element.line, offset: element.offset,
                    reason: "missing </\(open)> before this line: closed here, its data kept")
        depthOffset += 1
        try startTopLevel(element)
        return true
    }

    /// How many samples the current batch holds before it is sent: `batchSize`, except for the first batches
    /// (2,000, then doubling), so that the saver starts early, and for those in the last 1/32 of the file (an eighth
    /// of `batchSize`, at least 1,000), so that it finishes soon after the parser. Parser and saver overlap longer.
    private func sampleLimit(bytesRead: Int) -> Int {
        var limit = batchesSent < 4 ? min(batchSize, 2_000 << batchesSent) : batchSize
        if totalBytes > 0, bytesRead > totalBytes - totalBytes / 32 { limit = min(limit, max(batchSize / 8, 1_000)) }
        return limit
    }

    /// Sends what is left. Call once, after the scanner's `finish`.
    mutating func finish(bytesRead: Int) throws {
        foldCounters()
        batch.bytesRead = bytesRead
        batch.samples.tables = caches.tables
        if !batch.isEmpty { try flush(batch) }
        batch = ImportBatch(capacity: batchSize)
    }

    mutating func flushIfFull(bytesRead: Int) throws {
        if batch.samples.count >= sampleLimit(bytesRead: bytesRead) || batch.documents.count >= 2_000
            || batch.workouts.count >= 1_000 || batch.documentBytes >= Self.documentBytesPerBatch {
            batch.bytesRead = bytesRead
            batch.samples.tables = caches.tables
            try flush(batch)
            batchesSent += 1
            batch = ImportBatch(capacity: batchSize)
        }
    }

    // MARK: Events

    private mutating func malformed(_ error: XMLScanError) throws {
        if strict {
            throw HealthError(.importMalformed, "\(error) (stopped: --strict)")
        }
        report.skip(currentElementName ?? "markup", line: error.line, offset: error.offset, reason: error.message)
    }

    private var currentElementName: String? {
        if record != nil { return "Record" }
        if workout != nil { return "Workout" }
        if correlation != nil { return "Correlation" }
        return generic?.name
    }

    private mutating func start(_ element: XMLStartElement) throws {
        switch depth(element.depth) {
        case ...0:
            guard !sawRoot else { return }
            guard element.name == "HealthData" else {
                throw HealthError(.importRejected,
                                  "the document's root element is <\(element.name.string)>, not <HealthData>: not an Apple Health export; nothing was imported")
            }
            sawRoot = true
            report.locale = element.attribute(named: "locale")?.string
        case 1:
            try startTopLevel(element)
        default:
            try startChild(element)
        }
    }

    private mutating func startTopLevel(_ element: XMLStartElement) throws {
        let name = element.name
        if name == "Record" {
            topLevelRecords += 1
            metadata.reset()
            let builder = RecordBuilder(element, caches: &caches)
            if element.isSelfClosing { try finishRecord(builder, element: element) } else { record = builder }
        } else if name == "Workout" {
            report.elements["Workout", default: 0] += 1
            let builder = WorkoutBuilder(element, caches: &caches)
            if element.isSelfClosing { try finishWorkout(builder) } else { workout = builder }
        } else if name == "Correlation" {
            report.elements["Correlation", default: 0] += 1
            let builder = CorrelationBuilder(element, caches: &caches)
            if element.isSelfClosing { try finishCorrelation(builder) } else { correlation = builder }
        } else {
            let elementName = element.name.string
            report.elements[elementName, default: 0] += 1
            let builder = GenericBuilder(element, budget: &genericBudget)
            if element.isSelfClosing { try finishGeneric(builder) } else { generic = builder }
        }
    }

    private mutating func startChild(_ element: XMLStartElement) throws {
        let name = element.name
        if try recoverFromMissingEndTag(element) { return }
        // Builders are mutated in place (optional chaining), never copied out and back: a copy would share the
        // metadata dictionary and make every added entry copy it.
        if record != nil {
            // Record > MetadataEntry | HeartRateVariabilityMetadataList > InstantaneousBeatsPerMinute
            if name == "MetadataEntry" {
                record?.addMetadata(element, to: &metadata, caches: &caches)
            } else if name == "InstantaneousBeatsPerMinute" {
                record?.addBeat(element)
            }
            return
        }
        if correlation != nil {
            if name == "Record", depth(element.depth) == 2 {
                report.elements["Record (in Correlation)", default: 0] += 1
                metadata.reset()
                let child = RecordBuilder(element, caches: &caches)
                if element.isSelfClosing { try finishRecord(child, element: element) } else { record = child }
            } else if name == "MetadataEntry", depth(element.depth) == 2 {
                correlation?.addMetadata(element)
            }
            return
        }
        if workout != nil {
            let level = depth(element.depth)
            workout?.addChild(element, depth: level)
            return
        }
        if generic != nil {
            generic?.addChild(element, budget: &genericBudget)
            return
        }
        // A child whose parent was skipped as malformed.
        report.skip(name.string, line: element.line, offset: element.offset, reason: "orphan element (its parent was malformed)")
    }

    private mutating func end(_ element: XMLEndElement) throws {
        if let builder = record, element.name == "Record" {
            record = nil
            try finishRecord(builder, element: nil)
            return
        }
        if depth(element.depth) <= 1 {
            if let builder = correlation, element.name == "Correlation" {
                correlation = nil
                try finishCorrelation(builder)
            } else if let builder = workout, element.name == "Workout" {
                workout = nil
                try finishWorkout(builder)
            } else if let builder = generic {
                generic = nil
                try finishGeneric(builder)
            }
            return
        }
        if workout != nil {
            let level = depth(element.depth)
            workout?.endChild(depth: level)
        } else if generic != nil {
            generic?.endChild(element)
        }
    }

    // MARK: Building

    private mutating func finishRecord(_ builder: RecordBuilder, element: XMLStartElement?) throws {
        switch builder.build(&metadata, into: &batch.samples, caches: &caches) {
        case .success(let uuid):
            let index = builder.info.index
            if index >= 0 {
                while typeCounts.count <= index { typeCounts.append((TypeInfo.missing, 0)) }
                typeCounts[index].info = builder.info
                typeCounts[index].count += 1
            }
            correlation?.members.append(uuid)
        case .failure(let error):
            if strict {
                throw HealthError(.importMalformed, "line \(builder.line), byte \(builder.offset): Record \(error.message) (stopped: --strict)")
            }
            report.skip("Record", line: builder.line, offset: builder.offset, reason: error.message)
        }
    }

    private mutating func finishCorrelation(_ builder: CorrelationBuilder) throws {
        switch builder.build() {
        case .success(let correlation):
            batch.correlations.append(correlation)
        case .failure(let error):
            if strict {
                throw HealthError(.importMalformed, "line \(builder.line), byte \(builder.offset): Correlation \(error.message) (stopped: --strict)")
            }
            report.skip("Correlation", line: builder.line, offset: builder.offset, reason: error.message)
        }
    }

    private mutating func finishWorkout(_ builder: WorkoutBuilder) throws {
        switch builder.build() {
        case .success(let (workout, inlineRoutes, fileRoutes)):
            batch.workouts.append(workout)
            for (route, points) in inlineRoutes {
                batch.routes.append((route, points))
                report.routePoints += points.count
            }
            for (route, path) in fileRoutes { routeFile(route, path) }
        case .failure(let error):
            if strict {
                throw HealthError(.importMalformed, "line \(builder.line), byte \(builder.offset): Workout \(error.message) (stopped: --strict)")
            }
            report.skip("Workout", line: builder.line, offset: builder.offset, reason: error.message)
        }
    }

    private mutating func finishGeneric(_ builder: GenericBuilder) throws {
        if builder.truncated {
            report.skip(builder.name, line: builder.line, offset: builder.offset,
                        reason: "kept \(builder.keptBytes) bytes of it; dropped \(builder.droppedChildren) child elements and "
                            + "\(builder.droppedAttributes) attributes over the limit (\(GenericBuilder.Limits.maximumBytesPerElement) "
                            + "bytes per element, \(GenericBuilder.Limits.maximumBytesPerImport) per import)")
        }
        let object = builder.object()
        let attributes = builder.attributes
        func date(_ key: String) -> Date? {
            attributes[key].flatMap { ExportDate.parse($0) }.map { Date(timeIntervalSince1970: $0.seconds) }
        }
        let json = GenericBuilder.json(object)
        let kind: HealthDocument.Kind
        var start: Date? = nil, end: Date? = nil
        switch builder.name {
        case "ExportDate":
            report.exportDate = attributes["value"]
            kind = .exportInfo
            start = date("value")
        case "Me":
            kind = .me
        case "ActivitySummary":
            kind = .activitySummary
            if let day = attributes["dateComponents"], let parsed = DateExpression.calendarDay(day) {
                start = parsed
                end = parsed.addingTimeInterval(86_400)
            }
        case "ClinicalRecord":
            kind = .clinicalRecord
            start = date("receivedDate")
        case "Audiogram":
            kind = .audiogram
            start = date("startDate")
            end = date("endDate")
        case "VisionPrescription":
            kind = .visionPrescription
            start = date("dateIssued") ?? date("startDate")
            end = date("expirationDate") ?? date("endDate")
        default:
            kind = .other
            start = date("startDate")
            end = date("endDate")
        }
        var hasher = StableHasher()
        hasher.combine("document:" + builder.name)
        hasher.combine(json)
        let document = HealthDocument(uuid: hasher.uuid(), kind: kind, start: start, end: end,
                                      sourceName: attributes["sourceName"], json: json)
        if kind == .clinicalRecord, let path = attributes["resourceFilePath"], !path.isEmpty {
            pendingClinical.append((document, path))
        } else {
            batch.documents.append(document)
            batch.documentBytes += json.utf8.count
        }
    }
}

extension DateExpression {
    /// `yyyy-MM-dd` as midnight UTC (ActivitySummary's `dateComponents`).
    static func calendarDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        return Date(timeIntervalSince1970: Double(ISO8601.daysFromCivil(y, m, d) * 86_400))
    }
}
