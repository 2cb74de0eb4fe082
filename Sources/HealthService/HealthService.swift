import Foundation
import HealthAPI
import HealthAccess
import HealthEngine
import HealthModel
import HealthStore

/// The product: every use case of HealthBridge, for every interface.
///
/// The CLI, the MCP server, the OpenClaw node and the HTTPS API are thin adapters over this type: they decode their
/// wire form into a request (``SamplesRequest``, ``SummaryRequest``, ``SleepRequest``, …), call the matching method
/// and encode its result. The service owns what they must agree on:
/// - the use cases: samples, statistics, latest value, sleep nights, workouts and one workout with its route,
///   activity summaries, types, sources and priority, today's overview, the ingest of neutral batches — in neutral
///   results that each adapter maps to its own dialect (the OpenClaw node's payloads are the node's);
/// - the date rules (``DateRange``), the home time zone and every default and limit;
/// - the one error vocabulary: every failure is a ``HealthError`` with a ``HealthError/Code``;
/// - consent: each call acts for a ``Principal`` whose grants per type and direction are checked here. A type the
///   principal may not read looks like a type with no data (HealthKit's rule), except to paired devices, which are
///   told (``Principal/seesReadDenial``).
///
/// ```swift
/// let service = try await HealthService.open(store: store).acting(as: .mcp())
/// let steps = try await service.summary(SummaryRequest(type: "stepCount", start: "7d"))
/// steps.buckets.map(\.sum)   // seven daily totals, merged across iPhone and Apple Watch
/// ```
public struct HealthService: Sendable {
    /// The store, narrow (``HealthStore``: what HealthKit can answer); never handed to an adapter.
    let store: any HealthStore
    let engine: HealthEngine
    /// The store's bulk path when it has one (``BulkImportStore``), else its plain API: what ingests write through.
    var bulk: BulkWriter { BulkWriter(store) }
    /// The zone day boundaries are taken in unless a request names another.
    public var homeTimeZone: TimeZone
    /// Injected for tests.
    public var clock: @Sendable () -> Date
    /// Who the calls are made for. The owner unless an adapter says otherwise with ``acting(as:)``.
    public private(set) var principal: Principal
    /// The paired client making the calls, when there is one (``acting(as:client:)``): several clients may act as one
    /// app (each with a code the owner issued for it); each files its own access requests.
    public private(set) var client: String?
    /// Where writes and deletes are reported (``auditing(to:)``).
    public internal(set) var auditor: (any HealthAuditor)?
    /// The access state (`export.sqlite`) of the access use cases: pairing, clients, sharing, tokens, console keys,
    /// the audit log (``open(store:access:timeZone:clock:logger:)``). Never published: adapters call the use cases.
    var access: AccessStore?
    /// The sharing state read with a paired client's token (``authenticatePairedClient(token:)``), so that one
    /// request sees one state; nil: read from ``access`` when needed.
    var pairedSharing: SharingState?

    public static let homeTimeZoneSetting = "home_time_zone"

    public init(store: any HealthStore, homeTimeZone: TimeZone, clock: @escaping @Sendable () -> Date = { Date() },
                principal: Principal = .owner) {
        self.store = store
        self.engine = HealthEngine(store: store)
        self.homeTimeZone = homeTimeZone
        self.clock = clock
        self.principal = principal
    }

    /// A service whose home zone is the store's setting, else the system's.
    ///
    /// ```swift
    /// let service = try await HealthService.open(store: try SQLiteHealthStore(location: .file(url)))
    /// ```
    public static func open(store: any HealthStore, timeZone override: TimeZone? = nil,
                            clock: @escaping @Sendable () -> Date = { Date() }) async throws -> HealthService {
        var zone = TimeZone.current
        if let name = try await store.setting(homeTimeZoneSetting), let stored = TimeZone(identifier: name) { zone = stored }
        return HealthService(store: store, homeTimeZone: override ?? zone, clock: clock)
    }

    /// The same service acting for `principal`: its grants decide what the calls may read and write.
    ///
    /// ```swift
    /// let device = service.acting(as: .device(client.id))
    /// ```
    public func acting(as principal: Principal) -> HealthService {
        var copy = self
        copy.principal = principal
        copy.client = nil
        return copy
    }

    /// The same service acting for `principal` through the paired client `client` (its id): grants are the
    /// principal's, access requests the client's own.
    ///
    /// ```swift
    /// let app = service.acting(as: client.principal, client: client.id)
    /// ```
    public func acting(as principal: Principal, client: String?) -> HealthService {
        var copy = acting(as: principal)
        copy.client = client
        return copy
    }

    /// The service in the zone a request names (an IANA name), else in the home zone.
    func zoned(_ name: String?) throws(HealthError) -> HealthService {
        guard let name = DateRange.nonEmpty(name) else { return self }
        var copy = self
        copy.homeTimeZone = try DateExpression.timeZone(name.trimmingCharacters(in: .whitespaces))
        return copy
    }

    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = homeTimeZone
        return calendar
    }

    /// Resolves a range of a request (see ``DateRange``) in this service's zone, at this service's now.
    public func range(start: String?, end: String?, defaultStart: String) throws(HealthError) -> DateRange {
        try DateRange.resolve(start: start, end: end, defaultStart: defaultStart, now: clock(), timeZone: homeTimeZone)
    }

    /// The last `count` calendar days up to today in this service's zone, oldest first, as ISO dates: what a
    /// report over "the last 14 days" starts its rows and weeks from.
    ///
    /// ```swift
    /// try service.lastDays(3)   // ["2024-05-05", "2024-05-06", "2024-05-07"] on 7 May
    /// ```
    public func lastDays(_ count: Int) throws(HealthError) -> [String] {
        guard (1...3_660).contains(count) else {
            throw HealthError(.invalidArgument, "days must be 1–3660", argument: "days")
        }
        let calendar = self.calendar
        let today = calendar.startOfDay(for: clock())
        var days: [String] = []
        for offset in (0..<count).reversed() {
            guard let day = calendar.date(byAdding: .day, value: -offset, to: today) else {
                throw HealthError(.internalError, "cannot count \(count) days back from today")
            }
            days.append(ISO8601.dateString(day, timeZone: homeTimeZone))
        }
        return days
    }

    /// An instant in this service's zone, as every result writes it.
    func iso(_ date: Date) -> String { ISO8601.string(date, timeZone: homeTimeZone) }

    // MARK: Types and sources of a request

    /// Resolves a type name; when nothing is close, the error lists what the store has that this principal may read
    /// (a type it may not read is never named).
    func resolveType(_ name: String?, argument: String = "type") async throws -> SampleType {
        guard let name = DateRange.nonEmpty(name)?.trimmingCharacters(in: .whitespaces) else {
            throw HealthError(.invalidArgument, "\(argument) is required: a type such as stepCount, heartRate or bodyMass",
                              argument: argument, hint: .listTypes)
        }
        do {
            return try await engine.resolveType(name)
        } catch let error as HealthError where error.code == .invalidType {
            if error.message.contains("did you mean") {
                throw HealthError(.invalidType, error.message, argument: argument, hint: .listTypes)
            }
            let readable = try await readGrant()
            let present = try await store.typeSummaries().filter { readable.allows($0.type) }.prefix(12).map(\.type)
            throw HealthError(.invalidType,
                              "unknown type '\(name)'; the store has \(present.isEmpty ? "no data yet" : present.joined(separator: ", ") + (present.count == 12 ? ", …" : ""))",
                              argument: argument, hint: .listTypes)
        }
    }

    /// A quantity or category type by any of its names: what samples, latest values and subscriptions take.
    /// `HEALTH_INVALID_TYPE` for anything else, with close matches.
    ///
    /// ```swift
    /// let heart = try await service.sampleType("HKQuantityTypeIdentifierHeartRate", use: "health.subscribe")
    /// ```
    public func sampleType(_ name: String, use: String) async throws -> SampleType {
        let type = try await resolveType(name)
        try requireSampleType(type, use: use)
        return type
    }

    /// Requires a quantity or category type (samples, latest).
    func requireSampleType(_ type: SampleType, use: String) throws(HealthError) {
        guard type.kind == .quantity || type.kind == .category else {
            throw HealthError(.invalidType, "'\(type.identifier)' is a \(type.kind.rawValue) type; \(use) reads quantity and category types",
                              argument: "type", hint: .listWorkouts)
        }
    }

    /// Checks a source filter against the sources of `type`, so that a misspelt name is an error, not an empty page.
    /// A type this principal may not read has no sources here, exactly like a type without data: the error never
    /// names a denied type's sources.
    func checkSources(_ names: [String]?, type: SampleType) async throws {
        guard let names else { return }
        let readable = try await readGrant().allows(type.identifier)
        let known = readable ? try await store.sources(type: type.identifier) : []
        for name in names {
            let lowered = name.lowercased()
            if !known.contains(where: { $0.source.name.lowercased() == lowered || $0.source.key.lowercased() == lowered }) {
                throw HealthError(.invalidArgument,
                                  "no source named '\(name)' has \(type.identifier) samples; known: \(known.map(\.source.name).joined(separator: ", "))",
                                  argument: "sources", hint: .listSources)
            }
        }
    }

    /// A limit of a request: the default when absent, `HEALTH_INVALID_ARGUMENT` outside `range`.
    static func limit(_ value: Int?, name: String = "limit", default defaultValue: Int,
                      range: ClosedRange<Int>) throws(HealthError) -> Int {
        guard let value else { return defaultValue }
        guard range.contains(value) else {
            throw HealthError(.invalidArgument, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(value)",
                              argument: name)
        }
        return value
    }

    /// Cleans a list argument: trimmed, empty entries dropped, nil when nothing is left.
    static func list(_ values: [String]?) -> [String]? {
        let cleaned = (values ?? []).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return cleaned.isEmpty ? nil : cleaned
    }
}
