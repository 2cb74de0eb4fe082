import Foundation
import HealthModel
import Logging

/// Copies everything one ``HealthStore`` holds into another, exactly and resumably: `healthbridge store copy` moves a
/// person's data from the embedded SQLite store to PostgreSQL and back.
///
/// What it copies, through the protocol only (so any two stores work, in either direction):
/// - samples and workouts (with their routes' points) by walking the source's change feed from the start, and the
///   deletions the feed reports after them;
/// - correlations of every type present, documents of every kind;
/// - the user's source priority orders and every setting (home time zone, import records, subscriptions…).
///
/// Every object keeps its UUID, so saving it twice stores it once: a copy cut short (a crash, the database gone) is
/// resumed by running it again. The source anchor reached is kept in the target's settings after each batch
/// (``progressKey(source:)``), so a resumed copy reads on from there instead of from the start. ``verify()`` then
/// compares the two stores type by type.
///
/// ```swift
/// let copier = StoreCopier(from: sqlite, to: postgres, sourceName: "health.sqlite")
/// let report = try await copier.run()
/// report.samples     // 574_212
/// try await copier.verify().isEmpty   // true: every type has the same count, span and sources
/// ```
public struct StoreCopier: Sendable {
    /// What a copy did.
    public struct Report: Sendable, Hashable, Codable {
        /// Samples and workouts read from the source's change feed (stored once however often a copy reads them).
        public var samples = 0
        public var workouts = 0
        public var routePoints = 0
        /// Correlations and documents the target did not have yet.
        public var correlations = 0
        public var documents = 0
        public var deletions = 0
        public var settings = 0
        public var priorityOrders = 0
        /// The source anchor the copy started from: 0 for a fresh copy, more when it resumed one.
        public var resumedFrom: Int64 = 0
        /// The source anchor reached.
        public var anchor: Int64 = 0
        public init() {}

        enum CodingKeys: String, CodingKey {
            case samples, workouts, routePoints = "route_points", correlations, documents, deletions, settings
            case priorityOrders = "priority_orders", resumedFrom = "resumed_from", anchor
        }
    }

    /// A type whose copy differs from its source.
    public struct Difference: Sendable, Hashable, Codable, CustomStringConvertible {
        public var type: String
        public var source: String
        public var target: String
        public var description: String { "\(type): source \(source), copy \(target)" }
    }

    public let source: any HealthStore
    public let target: any HealthStore
    /// Names the source in the target's progress setting, so that copies from two sources never share one.
    public let sourceName: String
    /// Changes read per batch.
    public var batchSize: Int
    public let logger: Logger

    public init(from source: any HealthStore, to target: any HealthStore, sourceName: String, batchSize: Int = 5_000,
                logger: Logger = Logger(label: "healthbridge.store-copy", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.source = source; self.target = target; self.sourceName = sourceName
        self.batchSize = max(1, min(batchSize, 50_000)); self.logger = logger
    }

    /// The setting of the target holding how far a copy from `source` got.
    public static func progressKey(source: String) -> String { "store_copy_anchor:\(source)" }

    /// Copies what the target does not have yet. `progress` is called after every batch with the source anchor
    /// reached and the source's current anchor.
    @discardableResult
    public func run(progress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws -> Report {
        var report = Report()
        let key = Self.progressKey(source: sourceName)
        let resumed = try await target.setting(key).flatMap { Int64($0) } ?? 0
        report.resumedFrom = resumed
        let last = try await source.currentAnchor()
        var anchor: Int64? = resumed > 0 ? resumed : nil
        logger.info("store copy", metadata: ["from": "\(resumed)", "to": "\(last)"])
        while true {
            try Task.checkCancellation()
            let page = try await source.changes(since: anchor, types: nil, limit: batchSize)
            var transaction = StoreTransaction(deletions: page.deleted.map(\.uuid), samples: page.added,
                                               workouts: page.addedWorkouts)
            for workout in page.addedWorkouts {
                for route in workout.routes {
                    let points = try await allRoutePoints(route.uuid)
                    if !points.isEmpty { transaction.routes[route.uuid] = points }
                    report.routePoints += points.count
                }
            }
            let result = try await target.commit(transaction)
            report.samples += page.added.count
            report.workouts += page.addedWorkouts.count
            report.deletions += result.deleted
            anchor = page.anchor
            report.anchor = page.anchor
            try await target.setSetting(key, String(page.anchor))
            progress?(page.anchor, last)
            if !page.hasMore { break }
        }
        let present = try await source.typeSummaries()
        for summary in present where summary.kind == .correlation {
            let correlations = try await source.correlations(type: summary.type, start: nil, end: nil, limit: nil)
            for chunk in correlations.chunked(batchSize) {
                report.correlations += try await target.save(correlations: Array(chunk)).inserted
            }
        }
        for kind in HealthDocument.Kind.allCases {
            let documents = try await source.documents(kind: kind, start: nil, end: nil, limit: nil)
            guard !documents.isEmpty else { continue }
            do {
                report.documents += try await target.save(documents: documents).inserted
            } catch let error as HealthError where error.code == .invalidArgument || error.code == .notAuthorized {
                // A store that keeps no documents of this kind (HealthKit's activity summaries are read-only).
                logger.warning("store copy: documents not copied", metadata: ["kind": "\(kind.rawValue)",
                                                                              "reason": "\(error.code.rawValue)"])
            }
        }
        for summary in present {
            let ordered = try await source.priority(type: summary.type, counts: false).filter(\.userOrdered)
            guard !ordered.isEmpty else { continue }
            try await target.setPriority(type: summary.type, sources: ordered.map(\.source.key))
            report.priorityOrders += 1
        }
        // Not copied: copy progress, and pending MCP tool confirmations (`mcp_confirmation:`, one server's questions).
        for (name, value) in try await source.settings(prefix: "")
        where !name.hasPrefix("store_copy_anchor:") && !name.hasPrefix("mcp_confirmation:") {
            // Priority orders are copied above, through their own requirement; a store may keep them as settings.
            guard try await target.setting(name) != value else { continue }
            try await target.setSetting(name, value)
            report.settings += 1
        }
        return report
    }

    /// Type by type, what differs between the two stores: sample count, first and last dates, and the sources.
    /// Empty when the copy is exact.
    public func verify() async throws -> [Difference] {
        let a = Dictionary(uniqueKeysWithValues: try await source.typeSummaries().map { ($0.type, $0) })
        let b = Dictionary(uniqueKeysWithValues: try await target.typeSummaries().map { ($0.type, $0) })
        var differences: [Difference] = []
        for type in Set(a.keys).union(b.keys).sorted() {
            let left = a[type].map(Self.describe) ?? "absent"
            let right = b[type].map(Self.describe) ?? "absent"
            if left != right { differences.append(Difference(type: type, source: left, target: right)) }
        }
        for type in Set(a.keys).intersection(b.keys).sorted() {
            let left = Set(try await source.sources(type: type).map { "\($0.source.key):\($0.count)" })
            let right = Set(try await target.sources(type: type).map { "\($0.source.key):\($0.count)" })
            if left != right {
                differences.append(Difference(type: type, source: "sources \(left.sorted())", target: "sources \(right.sorted())"))
            }
        }
        return differences
    }

    static func describe(_ summary: TypeSummary) -> String {
        "\(summary.count) samples, \(summary.first.map { ISO8601.string($0) } ?? "—") → \(summary.last.map { ISO8601.string($0) } ?? "—")"
    }

    func allRoutePoints(_ route: UUID) async throws -> [RoutePoint] {
        var points: [RoutePoint] = []
        while true {
            let page = try await source.routePoints(route, offset: points.count, limit: 50_000)
            points += page
            if page.count < 50_000 { return points }
        }
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
