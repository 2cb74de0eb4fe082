import Foundation
import HealthModel
import HealthStore
import Synchronization

/// A store written against the narrow ``HealthStore`` protocol only — no SQLite, no ``BulkImportStore``, no interned
/// tables: arrays under a lock, searched linearly. What a PostgreSQL or HealthKit store has to provide, and no more;
/// ``StoreSeamTests`` runs the service's read use cases on it beside the SQLite store.
///
/// Source numbers (``SourceSummary/id``) are given in the order sources are first saved; cursors are offsets.
final class MemoryHealthStore: HealthStore {
    struct Stored { var seq: Int64; var sample: HealthSample }
    struct StoredWorkout { var seq: Int64; var workout: HealthWorkout }

    struct State {
        var anchor: Int64 = 0
        var samples: [Stored] = []
        var workouts: [StoredWorkout] = []
        var correlations: [HealthCorrelation] = []
        var documents: [HealthDocument] = []
        var routes: [UUID: [RoutePoint]] = [:]
        var tombstones: [Tombstone] = []
        var sources: [String: (number: Int64, source: HealthSource)] = [:]
        /// Type → source keys in the user's order.
        var userOrder: [String: [String]] = [:]
        var settings: [String: String] = [:]
        var observers: [UUID: AsyncStream<ChangeNotification>.Continuation] = [:]

        mutating func number(_ source: HealthSource) -> Int64 {
            if let known = sources[source.key] { return known.number }
            let number = Int64(sources.count + 1)
            sources[source.key] = (number, source)
            return number
        }

        mutating func next() -> Int64 { anchor += 1; return anchor }
    }

    let state = Mutex(State())

    // MARK: Writing

    func save(_ samples: [HealthSample]) async throws -> SaveResult {
        var result = SaveResult(), types = Set<String>()
        let anchor = state.withLock { state -> Int64 in
            for sample in samples {
                if state.samples.contains(where: { $0.sample.uuid == sample.uuid }) { result.ignored += 1; continue }
                if let id = sample.syncIdentifier,
                   let index = state.samples.firstIndex(where: {
                       $0.sample.syncIdentifier == id && $0.sample.source.key == sample.source.key
                   }) {
                    let old = state.samples[index].sample
                    guard (sample.syncVersion ?? 0) > (old.syncVersion ?? 0) else { result.ignored += 1; continue }
                    state.samples.remove(at: index)
                    state.tombstones.append(Tombstone(uuid: old.uuid, type: old.type, syncIdentifier: id,
                                                      syncVersion: old.syncVersion, deletedAt: Date(),
                                                      anchor: state.next()))
                    result.replaced += 1
                } else {
                    result.inserted += 1
                }
                _ = state.number(sample.source)
                state.samples.append(Stored(seq: state.next(), sample: sample))
                types.insert(sample.type)
            }
            return state.anchor
        }
        notify(types, anchor)
        return result
    }

    func save(workouts: [HealthWorkout]) async throws -> SaveResult {
        var result = SaveResult()
        let anchor = state.withLock { state -> Int64 in
            for workout in workouts {
                if state.workouts.contains(where: { $0.workout.uuid == workout.uuid }) { result.ignored += 1; continue }
                _ = state.number(workout.source)
                state.workouts.append(StoredWorkout(seq: state.next(), workout: workout))
                result.inserted += 1
            }
            return state.anchor
        }
        if result.inserted > 0 { notify(["workout"], anchor) }
        return result
    }

    func save(correlations: [HealthCorrelation]) async throws -> SaveResult {
        var result = SaveResult()
        state.withLock { state in
            for correlation in correlations {
                if state.correlations.contains(where: { $0.uuid == correlation.uuid }) { result.ignored += 1; continue }
                state.correlations.append(correlation)
                result.inserted += 1
            }
        }
        return result
    }

    func save(documents: [HealthDocument]) async throws -> SaveResult {
        var result = SaveResult()
        state.withLock { state in
            for document in documents {
                if state.documents.contains(where: { $0.uuid == document.uuid }) { result.ignored += 1; continue }
                state.documents.append(document)
                result.inserted += 1
            }
        }
        return result
    }

    func saveRoute(_ route: UUID, points: [RoutePoint]) async throws {
        state.withLock { $0.routes[route] = points }
    }

    func delete(uuids: [UUID]) async throws -> Int {
        let wanted = Set(uuids)
        var types = Set<String>()
        let (count, anchor) = state.withLock { state -> (Int, Int64) in
            var count = 0
            for stored in state.samples where wanted.contains(stored.sample.uuid) {
                state.tombstones.append(Tombstone(uuid: stored.sample.uuid, type: stored.sample.type,
                                                  syncIdentifier: stored.sample.syncIdentifier,
                                                  syncVersion: stored.sample.syncVersion, deletedAt: Date(),
                                                  anchor: state.next()))
                types.insert(stored.sample.type)
                count += 1
            }
            state.samples.removeAll { wanted.contains($0.sample.uuid) }
            for stored in state.workouts where wanted.contains(stored.workout.uuid) {
                state.tombstones.append(Tombstone(uuid: stored.workout.uuid, type: "workout", syncIdentifier: nil,
                                                  syncVersion: nil, deletedAt: Date(), anchor: state.next()))
                types.insert("workout")
                count += 1
            }
            state.workouts.removeAll { wanted.contains($0.workout.uuid) }
            let correlations = state.correlations.count
            state.correlations.removeAll { wanted.contains($0.uuid) }
            count += correlations - state.correlations.count
            return (count, state.anchor)
        }
        notify(types, anchor)
        return count
    }

    // MARK: Reading

    func samples(_ query: SampleQuery) async throws -> SamplePage {
        if let start = query.start, let end = query.end, end < start {
            throw HealthError(.invalidRange, "the range ends (\(end)) before it starts (\(start))")
        }
        var offset = 0
        if let cursor = query.cursor {
            guard let value = Int(cursor), value >= 0 else {
                throw HealthError(.invalidArgument, "the cursor '\(cursor)' is not one this store issued")
            }
            offset = value
        }
        let wanted = query.sources.map { Set($0.map { $0.lowercased() }) }
        var matching = state.withLock { $0.samples }.filter { stored in
            let sample = stored.sample
            guard sample.type == query.type else { return false }
            switch query.matching {
            case .overlap:
                if let start = query.start, sample.end < start { return false }
                if let end = query.end, sample.start >= end { return false }
            case .strictStartDate:
                if let start = query.start, sample.start < start { return false }
                if let end = query.end, sample.start >= end { return false }
            case .strictEndDate:
                if let start = query.start, sample.end <= start { return false }
                if let end = query.end, sample.end > end { return false }
            }
            if let wanted, !wanted.contains(sample.source.name.lowercased()),
               !wanted.contains(sample.source.key.lowercased()) { return false }
            if let key = query.metadataKey {
                guard let value = sample.metadata[key] else { return false }
                if !query.metadataValues.isEmpty, !query.metadataValues.contains(value) { return false }
            }
            return true
        }
        matching.sort { ($0.sample.start, $0.seq) < ($1.sample.start, $1.seq) }
        if !query.ascending { matching.reverse() }
        let rest = matching.dropFirst(offset)
        guard let limit = query.limit else { return SamplePage(samples: rest.map(\.sample), nextCursor: nil) }
        let page = rest.prefix(max(0, limit))
        return SamplePage(samples: page.map(\.sample),
                          nextCursor: rest.count > page.count ? String(offset + page.count) : nil)
    }

    func sample(_ uuid: UUID) async throws -> HealthSample? {
        state.withLock { $0.samples.first { $0.sample.uuid == uuid }?.sample }
    }

    func sample(syncIdentifier: String, sourceKey: String) async throws -> HealthSample? {
        state.withLock {
            $0.samples.first { $0.sample.syncIdentifier == syncIdentifier && $0.sample.source.key == sourceKey }?.sample
        }
    }

    func workouts(_ query: WorkoutQuery) async throws -> [HealthWorkout] {
        var found = state.withLock { $0.workouts.map(\.workout) }.filter { workout in
            if let types = query.activityTypes, !types.contains(workout.activityType) { return false }
            if let start = query.start, workout.end < start { return false }
            if let end = query.end, workout.start >= end { return false }
            return true
        }
        found.sort { query.ascending ? $0.start < $1.start : $0.start > $1.start }
        return query.limit.map { Array(found.prefix($0)) } ?? found
    }

    func workout(_ uuid: UUID) async throws -> HealthWorkout? {
        state.withLock { $0.workouts.first { $0.workout.uuid == uuid }?.workout }
    }

    func routePoints(_ route: UUID, offset: Int, limit: Int) async throws -> [RoutePoint] {
        let points = state.withLock { $0.routes[route] ?? [] }
        return Array(points.dropFirst(max(0, offset)).prefix(max(0, limit)))
    }

    func correlations(type: String, start: Date?, end: Date?, limit: Int?) async throws -> [HealthCorrelation] {
        let found = state.withLock { $0.correlations }.filter { correlation in
            correlation.type == type && (start.map { correlation.end >= $0 } ?? true)
                && (end.map { correlation.start < $0 } ?? true)
        }.sorted { $0.start < $1.start }
        return limit.map { Array(found.prefix($0)) } ?? found
    }

    func documents(kind: HealthDocument.Kind, start: Date?, end: Date?, limit: Int?) async throws -> [HealthDocument] {
        let found = state.withLock { $0.documents }.filter { document in
            guard document.kind == kind else { return false }
            if let start, let documentEnd = document.end ?? document.start, documentEnd < start { return false }
            if let end, let documentStart = document.start, documentStart >= end { return false }
            return true
        }.sorted { ($0.start ?? .distantPast) < ($1.start ?? .distantPast) }
        return limit.map { Array(found.prefix($0)) } ?? found
    }

    func scan(_ request: ScanRequest, _ body: (ScanRow) throws -> Void) async throws {
        let (stored, numbers) = state.withLock { state in
            (state.samples.filter { $0.sample.type == request.type },
             state.sources.mapValues(\.number))
        }
        let target = try request.unit.map { try HealthUnit.parse($0) }
        let allowed = request.sourceIDs.map(Set.init)
        let rows = stored.filter { $0.sample.end >= request.start && $0.sample.start < request.end }
            .sorted { ($0.sample.start, $0.seq) < ($1.sample.start, $1.seq) }
        for row in rows {
            let number = numbers[row.sample.source.key] ?? 0
            if let allowed, !allowed.contains(number) { continue }
            var value = Double.nan
            switch row.sample.value {
            case .quantity(let quantity, let unit):
                if let target {
                    value = (try? HealthUnit.parse(unit).converter(to: target).convert(quantity)) ?? .nan
                } else {
                    value = quantity
                }
            case .category(let raw): value = Double(raw)
            case .none: break
            }
            try body(ScanRow(start: row.sample.start.timeIntervalSince1970, end: row.sample.end.timeIntervalSince1970,
                             value: value, sourceID: number))
        }
    }

    func typeSummaries() async throws -> [TypeSummary] {
        let (samples, correlations, workouts) = state.withLock { ($0.samples.map(\.sample), $0.correlations, $0.workouts) }
        var summaries: [TypeSummary] = []
        for (type, group) in Dictionary(grouping: samples, by: \.type) {
            let kind = SampleTypeRegistry.registered(type)?.kind ?? SampleTypeRegistry.unregistered(type)?.kind ?? .quantity
            summaries.append(TypeSummary(type: type, kind: kind, count: group.count, first: group.map(\.start).min(),
                                         last: group.map(\.end).max(),
                                         units: Set(group.compactMap(\.value.unit)).sorted()))
        }
        for (type, group) in Dictionary(grouping: correlations, by: \.type) {
            summaries.append(TypeSummary(type: type, kind: .correlation, count: group.count,
                                         first: group.map(\.start).min(), last: group.map(\.end).max(), units: []))
        }
        if !workouts.isEmpty {
            summaries.append(TypeSummary(type: "workout", kind: .workout, count: workouts.count,
                                         first: workouts.map(\.workout.start).min(),
                                         last: workouts.map(\.workout.end).max(), units: []))
        }
        return summaries.sorted { $0.type < $1.type }
    }

    func sources(type: String?) async throws -> [SourceSummary] {
        if let type { return try await priority(type: type, counts: true) }
        let (samples, sources) = state.withLock { ($0.samples, $0.sources) }
        let counts = Dictionary(grouping: samples, by: \.sample.source.key).mapValues(\.count)
        return sources.map { key, entry in
            SourceSummary(id: entry.number, source: entry.source, category: entry.source.category,
                          count: counts[key] ?? 0)
        }.sorted { ($0.category, $0.source.name) < ($1.category, $1.source.name) }
    }

    /// Stored user order first, then HealthBridge's default: category, name, number.
    func priority(type: String, counts: Bool) async throws -> [SourceSummary] {
        let (samples, sources, order) = state.withLock { state in
            (state.samples.filter { $0.sample.type == type }, state.sources, state.userOrder[type] ?? [])
        }
        let perSource = Dictionary(grouping: samples, by: \.sample.source.key).mapValues(\.count)
        let entries = perSource.keys.compactMap { key -> SourceSummary? in
            guard let entry = sources[key] else { return nil }
            return SourceSummary(id: entry.number, source: entry.source, category: entry.source.category,
                                 count: counts ? perSource[key] ?? 0 : 0, userOrdered: order.contains(key))
        }
        let sorted = entries.sorted { a, b in
            switch (order.firstIndex(of: a.source.key), order.firstIndex(of: b.source.key)) {
            case let (x?, y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return (a.category.rawValue, a.source.name, a.id) < (b.category.rawValue, b.source.name, b.id)
            }
        }
        return sorted.enumerated().map { index, entry in
            var ranked = entry
            ranked.rank = index
            return ranked
        }
    }

    func setPriority(type: String, sources names: [String]) async throws {
        let known = try await priority(type: type, counts: false)
        var keys: [String] = []
        for name in names {
            let lowered = name.lowercased()
            guard let match = known.first(where: {
                $0.source.name.lowercased() == lowered || $0.source.key.lowercased() == lowered
            }) else {
                throw HealthError(.invalidArgument, "no source named \(name) has \(type) samples")
            }
            if !keys.contains(match.source.key) { keys.append(match.source.key) }
        }
        state.withLock { $0.userOrder[type] = keys }
    }

    func resetPriority(type: String) async throws {
        state.withLock { $0.userOrder[type] = nil }
    }

    // MARK: Change feed

    func currentAnchor() async throws -> Int64 { state.withLock { $0.anchor } }

    func changes(since anchor: Int64?, types: [String]?, limit: Int) async throws -> ChangeSet {
        let from = anchor ?? 0
        let wanted = types.map(Set.init)
        return state.withLock { state in
            enum Change { case sample(HealthSample), workout(HealthWorkout), deleted(Tombstone) }
            var changes: [(Int64, Change)] = []
            for stored in state.samples where stored.seq > from && (wanted?.contains(stored.sample.type) ?? true) {
                changes.append((stored.seq, .sample(stored.sample)))
            }
            for stored in state.workouts where stored.seq > from && (wanted?.contains("workout") ?? true) {
                changes.append((stored.seq, .workout(stored.workout)))
            }
            for tombstone in state.tombstones where tombstone.anchor > from && (wanted?.contains(tombstone.type) ?? true) {
                changes.append((tombstone.anchor, .deleted(tombstone)))
            }
            changes.sort { $0.0 < $1.0 }
            let page = changes.prefix(max(1, limit))
            var set = ChangeSet(added: [], addedWorkouts: [], deleted: [],
                                anchor: page.count < changes.count ? page.last?.0 ?? from : state.anchor,
                                hasMore: page.count < changes.count)
            for (_, change) in page {
                switch change {
                case .sample(let sample): set.added.append(sample)
                case .workout(let workout): set.addedWorkouts.append(workout)
                case .deleted(let tombstone): set.deleted.append(tombstone)
                }
            }
            return set
        }
    }

    func changeNotifications() -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream<ChangeNotification>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        state.withLock { $0.observers[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.observers[id] = nil } }
        return stream
    }

    func notify(_ types: Set<String>, _ anchor: Int64) {
        guard !types.isEmpty else { return }
        for observer in state.withLock({ Array($0.observers.values) }) {
            observer.yield(ChangeNotification(types: types, anchor: anchor))
        }
    }

    // MARK: Settings

    func setting(_ key: String) async throws -> String? { state.withLock { $0.settings[key] } }

    func settings(prefix: String) async throws -> [String: String] {
        state.withLock { $0.settings.filter { $0.key.hasPrefix(prefix) } }
    }

    func updateSetting(_ key: String, _ transform: @escaping @Sendable (String?) throws -> String?) async throws
        -> String?
    {
        try state.withLock { state in
            let new = try transform(state.settings[key])
            state.settings[key] = new
            return new
        }
    }
}
