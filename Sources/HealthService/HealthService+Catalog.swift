import Foundation
import HealthAPI
import HealthModel
import HealthStore

extension HealthService {
    /// The types present in the store that this principal may read, with counts, spans, units and statistics.
    ///
    /// ```swift
    /// let types = try await service.types()
    /// types.types.first?.statistics   // ["sum"]
    /// ```
    /// With `includingGranted`, the types granted by name are listed too when they have no data yet (what a paired
    /// device is told it may read).
    public func types(includingGranted: Bool = false) async throws -> TypesResult {
        let grants = try await grants(for: principal)
        var summaries = try await store.typeSummaries().filter { grants.read.permitsRead($0.type) }   // food via its nutrients
        if includingGranted, !grants.read.all {
            let present = Set(summaries.map(\.type))
            for name in grants.read.types.sorted() where !present.contains(name) {
                guard let type = SampleTypeRegistry.registered(name) else { continue }
                summaries.append(TypeSummary(type: type.identifier, kind: type.kind, count: 0, first: nil, last: nil,
                                             units: []))
            }
            summaries.sort { $0.type < $1.type }
        }
        let records = summaries.map { summary -> TypeRecord in
            let type = SampleTypeRegistry.registered(summary.type)
                ?? SampleTypeRegistry.unregistered(summary.type)
                ?? SampleType(identifier: summary.type, kind: summary.kind, displayName: summary.type, isRegistered: false)
            return TypeRecord(type: type.identifier, kind: summary.kind.rawValue, displayName: type.displayName,
                              count: summary.count, first: summary.first.map(iso), last: summary.last.map(iso),
                              unit: type.kind == .quantity ? (type.canonicalUnit ?? summary.units.first).map(Self.wireUnit) : nil,
                              recordedUnits: summary.units, aggregation: type.aggregation?.rawValue,
                              statistics: Self.statisticNames(for: type))
        }
        return TypesResult(timeZone: homeTimeZone.identifier, now: iso(clock()), count: records.count, types: records)
    }

    /// The identifiers ``types(includingGranted:)`` lists, without counts or spans: the present types this principal
    /// may read (``HealthStore/presentTypes()``, an index probe per type) and, with `includingGranted`, the types
    /// granted by name without data yet. Its cost does not grow with the store: the paired API's `status` asks it on
    /// every request.
    ///
    /// ```swift
    /// let shared = try await session.service.typeNames(includingGranted: true)   // ["heartRate", "stepCount"]
    /// ```
    public func typeNames(includingGranted: Bool = false) async throws -> [String] {
        let grants = try await grants(for: principal)
        var names = Set(try await store.presentTypes().filter { grants.read.permitsRead($0) })
        if includingGranted, !grants.read.all {
            for name in grants.read.types where !names.contains(name) {
                guard let type = SampleTypeRegistry.registered(name) else { continue }
                names.insert(type.identifier)
            }
        }
        return Set(names.map { SampleTypeRegistry.registered($0)?.identifier ?? SampleTypeRegistry.unregistered($0)?.identifier ?? $0 })
            .sorted()
    }

    /// Every source with its sample count; with a type, that type's sources in the order its statistics merge by.
    /// A principal that may not read every type sees the sources of the types it may read, with those types'
    /// counts: a source known only for a denied type is not listed (denial looks like no data).
    public func sources(_ request: SourcesRequest) async throws -> SourcesResult {
        guard let name = DateRange.nonEmpty(request.type) else {
            let grant = try await readGrant()   // paused sharing refuses paired devices and apps first
            let summaries = grant.all && grant.except.isEmpty
                ? try await store.sources(type: nil) : try await readableSources(grant)
            let sorted = summaries.sorted { $0.count > $1.count }
            return SourcesResult(count: sorted.count, sources: sorted.map { Self.sourceRecord($0, rank: nil) })
        }
        let type = try await resolveType(name)
        guard try await authorizeRead([type.identifier]) else {
            return SourcesResult(type: type.identifier, priorityOrder: [], userOrdered: false, count: 0, sources: [])
        }
        let summaries = try await store.priority(type: type.identifier, counts: true)
        return SourcesResult(type: type.identifier, priorityOrder: summaries.map(\.source.name),
                             userOrdered: summaries.contains { $0.userOrdered }, count: summaries.count,
                             sources: summaries.enumerated().map { Self.sourceRecord($1, rank: $0 + 1) })
    }

    /// A type's priority order; with `set` or `reset`, changes it first (the owner only).
    ///
    /// ```swift
    /// try await service.priority(PriorityRequest(type: "stepCount", set: ["Alex’s iPhone"]))
    /// ```
    public func priority(_ request: PriorityRequest) async throws -> SourcesResult {
        let type = try await resolveType(request.type)
        let names = Self.list(request.set)
        if request.set != nil || request.reset == true {
            guard principal.kind == .owner else {
                throw HealthError(.notAuthorized, "only the owner may change the priority order")
            }
            if names != nil, request.reset == true {
                throw HealthError(.invalidArgument, "set a new order or reset it, not both")
            }
            if let names {
                try await checkSources(names, type: type)
                try await store.setPriority(type: type.identifier, sources: names)
            } else if request.reset == true {
                try await store.resetPriority(type: type.identifier)
            } else {
                throw HealthError(.invalidArgument, "set needs at least one source name, highest priority first")
            }
        }
        return try await sources(SourcesRequest(type: type.identifier))
    }

    /// The sources of the types `grant` allows to read that have samples, each with its count over those types.
    func readableSources(_ grant: TypeGrant) async throws -> [SourceSummary] {
        var merged: [String: SourceSummary] = [:], order: [String] = []
        for summary in try await store.typeSummaries() where grant.allows(summary.type) {
            for source in try await store.priority(type: summary.type, counts: true) where source.count > 0 {
                if var known = merged[source.source.key] {
                    known.count += source.count
                    merged[source.source.key] = known
                } else {
                    merged[source.source.key] = source
                    order.append(source.source.key)
                }
            }
        }
        return order.compactMap { merged[$0] }
    }

    static func sourceRecord(_ summary: SourceSummary, rank: Int?) -> SourceRecord {
        let device = summary.source.device.map { [$0.model, $0.hardware].compactMap { $0 }.joined(separator: " ") }
        return SourceRecord(name: summary.source.name, category: summary.source.category.label,
                            bundleId: summary.source.bundleIdentifier, device: device?.isEmpty == false ? device : nil,
                            count: summary.count, rank: rank)
    }
}
