import Foundation

/// What a receiver read from a push or a file, in HealthKit's terms, before the service checks, keys, commits and
/// audits it (`HealthService.ingest(_:info:)`): samples with their sync identifiers, workouts with their routes,
/// and what the reader kept aside. A reader (Health Auto Export, Health Connect) decides the dialect's parts — its
/// types, units and dates, each object's sync identifier and source —; the service decides the rest: what is valid,
/// what this writer may write, which version each object gets, and where its totals go.
///
/// ```swift
/// let batch = try HAEPayloadReader(aggregation: .hour).batch(body)
/// let report = try await service.acting(as: Principal(kind: .ingest, name: "phone")).ingest(batch)
/// ```
public struct IngestBatch: Sendable {
    /// The largest body a reader takes (real payloads reach about 25 MB).
    public static let maxBytes = 64 * 1024 * 1024
    /// The most objects one batch may hold after the checks (a real 25 MB payload holds about 130,000).
    public static let maxObjects = 1_000_000

    /// What the batch was read from, as reports name it (`health-auto-export`, `health-connect`).
    public var format: String
    /// How messages name the sender (`Health Auto Export`).
    public var label: String
    /// The samples as read, in order; of two with one sync identifier the later is kept.
    public var samples: [Sample] = []
    /// The sources samples name (``Sample/Attribution/source(_:)`` indexes them).
    public var sources: [HealthSource] = []
    public var workouts: [Workout] = []
    /// Where this writer's merged totals (``Sample/Attribution/writerTotals``) go: a source of its own per writer,
    /// named after ``WriterTotals/name`` and the writer.
    public var writerTotals: WriterTotals
    /// Sections and names the reader does not know, with their item counts: not stored, not an error.
    public var unknown: [String: Int] = [:]
    /// Items the reader could not map, per label, and the first reason of each.
    public var rejected: [String: Int] = [:]
    public var reasons: [String: String] = [:]

    public init(format: String, label: String, writerTotals: WriterTotals) {
        self.format = format; self.label = label; self.writerTotals = writerTotals
    }

    /// One object to store: a quantity or category sample, or a blood pressure reading (a correlation of two).
    public struct Sample: Sendable {
        public enum Value: Sendable, Equatable {
            case quantity(Double)
            case category(Int)
            /// Systolic and diastolic, in mmHg.
            case bloodPressure(systolic: Double, diastolic: Double)
        }

        /// Whose sample it is.
        public enum Attribution: Sendable, Equatable {
            /// One of ``IngestBatch/sources`` (an index), as recorded.
            case source(Int)
            /// A bucket total computed over `start…end` by the sending app (HealthKit's merge): stored under this
            /// writer's totals source, replaced when re-sent with a new value.
            case writerTotals
        }

        /// What rejections are counted under (the payload's metric, `step_count`).
        public var label: String
        /// The HealthKit type (`stepCount`, `sleepAnalysis`, `bloodPressure`).
        public var type: String
        public var value: Value
        /// The canonical unit of a quantity (empty otherwise).
        public var unit: String
        public var start: Date
        public var end: Date
        /// The UTC offset the date was written with.
        public var utcOffset: Int
        public var attribution: Attribution
        /// Extra facts: `HKBloodGlucoseMealTime`, a bucket's `HealthBridgeMinimum` and `HealthBridgeMaximum`…
        public var metadata: [String: String]
        /// HealthKit's sync identifier: the same object sent again has the same one.
        public var syncIdentifier: String
        /// For a stage of a night sent as totals: the night's start (the stage starts then or later).
        public var nightStart: Date?

        public init(label: String, type: String, value: Value, unit: String, start: Date, end: Date, utcOffset: Int,
                    attribution: Attribution, metadata: [String: String], syncIdentifier: String,
                    nightStart: Date? = nil) {
            self.label = label; self.type = type; self.value = value; self.unit = unit; self.start = start
            self.end = end; self.utcOffset = utcOffset; self.attribution = attribution; self.metadata = metadata
            self.syncIdentifier = syncIdentifier; self.nightStart = nightStart
        }
    }

    /// A workout as HealthKit's, its UUID and sync identifier settled by the reader, with the points of its route
    /// (the first of `workout.routes`).
    public struct Workout: Sendable {
        public var workout: HealthWorkout
        public var route: RoutePointColumns

        public init(workout: HealthWorkout, route: RoutePointColumns) {
            self.workout = workout; self.route = route
        }
    }

    /// The name and key of the source a writer's totals are stored under: `NAME (ingest:phone)`, bundle identifier
    /// ``HealthSource/mergedTotalsPrefix`` + `KEY.ingest.phone`.
    public struct WriterTotals: Sendable, Equatable {
        public var name: String
        public var key: String
        public init(name: String, key: String) { self.name = name; self.key = key }
    }
}
