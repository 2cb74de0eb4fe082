import Foundation
import HealthAPI
import HealthModel

// Saving and deleting (HealthKit's `save(_:withCompletion:)`, `delete(_:withCompletion:)`): a save is kept in the
// app's container before it is sent and re-sent, idempotently, until the server has answered — through a server
// restart, and at the app's next launch if the app was killed before the answer came.
extension HKHealthStore {
    /// How long a save keeps retrying a server that does not answer before it reports
    /// `errorDatabaseInaccessible` (it is still re-sent at the next launch, stored once).
    static let saveDeadline: Duration = .seconds(30)

    /// Saves one object.
    ///
    /// ```swift
    /// store.save(sample) { success, error in … }
    /// ```
    public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        save([object], withCompletion: completion)
    }

    /// Saves objects in one transaction: all or none.
    public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await save(objects)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Saves one object.
    ///
    /// ```swift
    /// try await store.save(HKQuantitySample(type: HKQuantityType(.dietaryWater), quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250), start: Date(), end: Date()))
    /// ```
    public func save(_ object: HKObject) async throws { try await save([object]) }

    /// Saves objects in one transaction: all or none.
    public func save(_ objects: [HKObject]) async throws {
        let connection = try connection()
        guard !objects.isEmpty else { throw HKError(.errorInvalidArgument, "nothing to save") }
        let pending = try PendingSave(objects)
        await connection.recoverPendingSaves()
        try await connection.deliver(pending, deadline: Self.saveDeadline, persist: true)
    }

    /// Deletes one object the app wrote.
    public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        delete([object], withCompletion: completion)
    }

    /// Deletes objects the app wrote, in one transaction. Objects already gone are no error.
    public func delete(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await delete(objects)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Deletes one object the app wrote.
    public func delete(_ object: HKObject) async throws { try await delete([object]) }

    /// Deletes objects the app wrote, in one transaction.
    ///
    /// ```swift
    /// try await store.delete(samples)
    /// ```
    public func delete(_ objects: [HKObject]) async throws {
        let connection = try connection()
        guard !objects.isEmpty else { return }
        await connection.recoverPendingSaves()
        var uuids: [String] = []
        for object in objects {
            if let stored = object.serverUUID {
                uuids.append(stored.uuidString)
            } else {
                // Made here and never acknowledged: the server knows it by the log id the save gave it.
                _ = try await connection.post("health/delete", DeleteRequest(logId: HKMetadata.kitLogPrefix + object.uuid.uuidString),
                                              as: DeleteResult.self)
            }
        }
        for chunk in stride(from: 0, to: uuids.count, by: 1_000) {
            _ = try await connection.post("health/delete", DeleteRequest(uuids: Array(uuids[chunk..<min(chunk + 1_000, uuids.count)])),
                                          as: DeleteResult.self)
        }
    }

    /// Deletes the app's objects of a type that match a predicate; the handler gets how many were deleted.
    ///
    /// ```swift
    /// store.deleteObjects(of: HKQuantityType(.dietaryWater), predicate: HKQuery.predicateForObjects(withMetadataKey: "DietAppLogId", allowedValues: ["w-1"])) { ok, count, error in … }
    /// ```
    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate,
                              withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void) {
        let filter = HKPredicateSpec(predicate)
        Task {
            do {
                let connection = try connection()
                guard let type = objectType as? HKSampleType else {
                    throw HKError(.errorInvalidArgument, "\(objectType.identifier) is not a sample type")
                }
                await connection.recoverPendingSaves()
                let samples = try await connection.samples(of: type, filter, limit: nil, ascending: true)
                let uuids = samples.compactMap(\.serverUUID).map(\.uuidString)
                var deleted = 0
                for chunk in stride(from: 0, to: uuids.count, by: 1_000) {
                    deleted += try await connection.post("health/delete",
                                                         DeleteRequest(uuids: Array(uuids[chunk..<min(chunk + 1_000, uuids.count)])),
                                                         as: DeleteResult.self).deleted
                }
                completion(true, deleted, nil)
            } catch {
                completion(false, 0, HKError.from(error))
            }
        }
    }
}

/// A save as it is kept in the container until the server answers: the samples and workouts, ready to send, each
/// with the log id that makes sending it twice store it once.
struct PendingSave: Codable, Sendable {
    var id: UUID
    var samples: [SampleInput]
    var workouts: [WorkoutLog]
    var foods: [FoodLog] = []
    /// The objects of the save, in order, to learn their server UUIDs from the answer (not kept on disk).
    var objects: [ObjectBox] = []

    enum CodingKeys: String, CodingKey { case id, samples, workouts, foods }

    init(_ objects: [HKObject]) throws(HKError) {
        id = UUID()
        samples = []
        workouts = []
        for object in objects {
            switch object {
            case let sample as HKQuantitySample: samples.append(try Self.input(sample))
            case let sample as HKCategorySample: samples.append(try Self.input(sample))
            case let workout as HKWorkout: workouts.append(Self.log(workout))
            case let meal as HKCorrelation: foods.append(try meal.foodLog())
            default:
                throw HKError(.errorInvalidArgument,
                              "\(type(of: object)) cannot be saved here: save quantity and category samples, workouts and meals")
            }
            self.objects.append(ObjectBox(object: object))
        }
        guard samples.count <= 1_000 else { throw HKError(.errorInvalidArgument, "at most 1,000 samples per save") }
    }

    static func identifiers(_ object: HKObject) -> (logId: String, syncId: String?, syncVersion: Int?, metadata: [String: String]?) {
        var metadata = object.metadataValues.mapValues(\.wire)
        let syncId = metadata.removeValue(forKey: MetadataKey.syncIdentifier)
        let version = metadata.removeValue(forKey: MetadataKey.syncVersion).flatMap { Int($0) }
        return (HKMetadata.kitLogPrefix + object.uuid.uuidString, syncId, syncId == nil ? nil : (version ?? 1),
                metadata.isEmpty ? nil : metadata)
    }

    static func input(_ sample: HKQuantitySample) throws(HKError) -> SampleInput {
        guard sample.quantity.unit.isValid else {
            throw HKError(.errorInvalidArgument, "'\(sample.quantity.unit.unitString)' is not a unit")
        }
        guard sample.quantityType.is(compatibleWith: sample.quantity.unit) || sample.quantityType.registered == nil else {
            throw HKError(.errorInvalidArgument,
                          "\(sample.quantity.unit.unitString) is not a unit of \(sample.quantityType.identifier)")
        }
        let ids = identifiers(sample)
        return SampleInput(type: sample.sampleType.serverName, value: sample.quantity.value,
                           unit: sample.quantity.unit.healthUnit.description, start: ISO8601.string(sample.startDate),
                           end: ISO8601.string(sample.endDate), metadata: ids.metadata, logId: ids.logId,
                           syncId: ids.syncId, syncVersion: ids.syncVersion, userEntered: false)
    }

    static func input(_ sample: HKCategorySample) throws(HKError) -> SampleInput {
        let type = sample.sampleType.registered
        let value = type.flatMap { type in
            type.categoryValue(raw: sample.value)
                ?? (sample.value == 0 ? SampleTypeRegistry.categoryValue(for: type, exportValue: "0") : nil)
        }
        guard let value else {
            throw HKError(.errorInvalidArgument, "\(sample.value) is not a value of \(sample.sampleType.identifier)")
        }
        let ids = identifiers(sample)
        return SampleInput(type: sample.sampleType.serverName, category: value.name, start: ISO8601.string(sample.startDate),
                           end: ISO8601.string(sample.endDate), metadata: ids.metadata, logId: ids.logId,
                           syncId: ids.syncId, syncVersion: ids.syncVersion, userEntered: false)
    }

    static func log(_ workout: HKWorkout) -> WorkoutLog {
        WorkoutLog(activity: workout.workoutActivityType.serverName, start: ISO8601.string(workout.startDate),
                   end: ISO8601.string(workout.endDate),
                   energy: workout.totalEnergyBurned.map { $0.doubleValue(for: .kilocalorie()) },
                   distance: workout.totalDistance.map { "\($0.doubleValue(for: .meter()))m" },
                   logId: HKMetadata.kitLogPrefix + workout.uuid.uuidString)
    }
}

/// An object of a save in progress, to record its server UUID.
///
/// Sendable: HKObject is Sendable (see its comment); the box only holds it.
struct ObjectBox: Sendable {
    let object: HKObject
}

extension HealthKitConnection {
    /// Sends a save until the server answers. `persist`: keep it in the container first (a save of the app);
    /// otherwise it is a save of an earlier launch, already kept.
    func deliver(_ save: PendingSave, deadline: Duration, persist: Bool) async throws(HKError) {
        let file = pendingDirectory.appendingPathComponent("\(save.id.uuidString).json")
        if persist {
            inFlight.withLock { _ = $0.insert(save.id) }
            write(save, "pending-saves/\(save.id.uuidString).json")
        }
        defer { inFlight.withLock { _ = $0.remove(save.id) } }
        let started = ContinuousClock.now
        var delay = 0.2
        while true {
            do {
                try await send(save)
                try? FileManager.default.removeItem(at: file)
                return
            } catch {
                let transient = error.code == .errorDatabaseInaccessible
                guard transient, ContinuousClock.now - started < deadline, !Task.isCancelled else {
                    // Refused: nothing was stored, forget it. Unanswered: it stays, and is re-sent at the next launch.
                    if !transient { try? FileManager.default.removeItem(at: file) }
                    throw error
                }
                logger.debug("save not answered; retrying", metadata: ["delay": "\(delay)"])
                try? await Task.sleep(for: .milliseconds(Int(delay * 1_000 * Double.random(in: 0.5...1))))
                delay = min(delay * 2, 2)
            }
        }
    }

    private func send(_ save: PendingSave) async throws(HKError) {
        struct Body: Encodable, Sendable { var samples: [SampleInput] }
        var written: [WriteResult.WrittenObject] = []
        if !save.samples.isEmpty {
            written += try await post("health/samples", Body(samples: save.samples), as: WriteResult.self).objects
        }
        for workout in save.workouts {
            written += try await post("log/workout", workout, as: WriteResult.self).objects
        }
        var meals: [WriteResult.WrittenObject] = []
        for food in save.foods {
            // A meal answers its nutrients, then the correlation.
            if let correlation = try await post("log/food", food, as: WriteResult.self).objects.last { meals.append(correlation) }
        }
        // The answers list the objects in the order asked: samples, workouts, meals.
        let samples = save.objects.filter { !($0.object is HKWorkout) && !($0.object is HKCorrelation) }
        let ordered = samples + save.objects.filter { $0.object is HKWorkout }
        for (box, object) in zip(ordered, written) {
            if let uuid = UUID(uuidString: object.uuid) { box.object.stored.withLock { $0 = uuid } }
        }
        for (box, object) in zip(save.objects.filter { $0.object is HKCorrelation }, meals) {
            if let uuid = UUID(uuidString: object.uuid) { box.object.stored.withLock { $0 = uuid } }
        }
    }

    /// Re-sends the saves an earlier launch left unanswered, once per process; queries and saves wait for it, so
    /// they see what the app saved before it was killed.
    func recoverPendingSaves() async {
        let task = recovery.withLock { task -> Task<Void, Never> in
            if let task { return task }
            let started = Task { await self.resendLeftSaves() }
            task = started
            return started
        }
        await task.value
    }

    private func resendLeftSaves() async {
        let own = inFlight.withLock { $0 }
        guard let files = try? FileManager.default.contentsOfDirectory(at: pendingDirectory, includingPropertiesForKeys: nil) else {
            return
        }
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where file.pathExtension == "json" {
            guard let data = try? Data(contentsOf: file), let save = try? JSONDecoder().decode(PendingSave.self, from: data) else {
                logger.error("HealthKitBridge: unreadable pending save set aside", metadata: ["file": "\(file.lastPathComponent)"])
                try? FileManager.default.moveItem(at: file, to: file.appendingPathExtension("unreadable"))
                continue
            }
            guard !own.contains(save.id) else { continue }
            do {
                try await deliver(save, deadline: .seconds(5), persist: false)
            } catch {
                logger.warning("HealthKitBridge: a save of an earlier launch is still unanswered", metadata: ["code": "\(error.code)"])
            }
        }
    }
}
