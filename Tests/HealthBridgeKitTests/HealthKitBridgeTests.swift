import Foundation
import HealthBridgeKit
@testable import HealthKitBridge
import Synchronization
import Testing

/// HealthKit's API over a real `healthbridge serve`: saves, the five queries, deletes, authorization, observers that
/// resume at the next launch, and saves that survive a killed server and a killed app.
extension KitTests {
    /// The callback forms, awaited.
    static func run(_ store: HKHealthStore, sampleType: HKSampleType, predicate: NSPredicate?, limit: Int = HKObjectQueryNoLimit,
                    sort: [NSSortDescriptor]? = nil) async throws -> [HKSample] {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(HKSampleQuery(sampleType: sampleType, predicate: predicate, limit: limit, sortDescriptors: sort) { _, samples, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
            })
        }
    }

    static func statistics(_ store: HKHealthStore, _ type: HKQuantityType, _ predicate: NSPredicate?,
                           _ options: HKStatisticsOptions) async throws -> HKStatistics? {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(HKStatisticsQuery(quantityType: type, quantitySamplePredicate: predicate, options: options) { _, statistics, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: statistics) }
            })
        }
    }

    @Test func healthKitSavesQueriesAndDeletesWithAppMetadata() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, _) = try await server.pairedApp(appId: "org.example.hk")
            let store = HKHealthStore(manager: manager)
            let now = Date()
            let water = HKQuantitySample(type: HKQuantityType(.dietaryWater), quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250),
                                         start: now, end: now, metadata: ["DietAppLogId": "w-1"])
            let weights = [71.9, 72.4].enumerated().map { index, kg in
                HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: kg),
                                 start: now - Double(3_600 * (2 - index)), end: now - Double(3_600 * (2 - index)),
                                 metadata: ["Source": "DietApp"])
            }
            try await store.save([water] + weights)
            #expect(water.serverUUID != nil)
            // Sending the same objects again stores nothing more (a save whose answer was lost is re-sent).
            try await store.save([water] + weights)

            // The app's own metadata key, as a predicate.
            let byLogId = HKQuery.predicateForObjects(withMetadataKey: "DietAppLogId", allowedValues: ["w-1"])
            let found = try await Self.run(store, sampleType: HKQuantityType(.dietaryWater), predicate: byLogId)
            #expect(found.count == 1)
            let sample = try #require(found.first as? HKQuantitySample)
            #expect(sample.quantity.doubleValue(for: .literUnit(with: .milli)) == 250)
            #expect(sample.metadata?["DietAppLogId"] as? String == "w-1")
            #expect(sample.metadata?.keys.contains(where: { $0.hasPrefix("HealthBridge") }) != true)
            #expect(try await Self.run(store, sampleType: HKQuantityType(.dietaryWater),
                                       predicate: HKQuery.predicateForObjects(withMetadataKey: "DietAppLogId", allowedValues: ["w-2"])).isEmpty)

            // The latest weight, HealthKit's way: newest first, limit 1; in pounds too.
            let latest = try await Self.run(store, sampleType: HKQuantityType(.bodyMass), predicate: nil, limit: 1,
                                            sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
            let newest = try #require(latest.first as? HKQuantitySample)
            #expect(newest.quantity.doubleValue(for: .gramUnit(with: .kilo)) == 72.4)
            #expect(abs(newest.quantity.doubleValue(for: .pound()) - 159.61) < 0.01)
            #expect(newest.metadata?["Source"] as? String == "DietApp")
            let history = try await Self.run(store, sampleType: HKQuantityType(.bodyMass),
                                             predicate: HKQuery.predicateForSamples(withStart: now - 86_400, end: now, options: .strictStartDate),
                                             sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)])
            #expect(history.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .gramUnit(with: .kilo)) } == [71.9, 72.4])

            // Delete what was found by the app's metadata: gone, and only that.
            try await store.delete(found)
            #expect(try await Self.run(store, sampleType: HKQuantityType(.dietaryWater), predicate: byLogId).isEmpty)
            // Deleting an object made here by its own reference works too.
            try await store.delete(weights[0])
            #expect(try await Self.run(store, sampleType: HKQuantityType(.bodyMass), predicate: nil).count == 1)

            // A unit that is not the type's is refused before anything is sent, with HealthKit's code.
            await #expect { try await store.save(HKQuantitySample(type: HKQuantityType(.bodyMass),
                                                                  quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 1),
                                                                  start: now, end: now)) } throws: { error in
                (error as? HKError)?.code == .errorInvalidArgument
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func healthKitStatisticsMatchTheServersMergedNumbers() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, _) = try await server.pairedApp(appId: "org.example.hkstats")
            let store = HKHealthStore(manager: manager)
            try await store.requestAuthorization(toShare: [HKQuantityType(.activeEnergyBurned), HKWorkoutType.workoutType()],
                                                 read: [HKQuantityType(.activeEnergyBurned), HKWorkoutType.workoutType()])
            try? await server.approvePending()
            // Three samples of today, all already over, even just after midnight (a future sample is refused).
            if Date().timeIntervalSince(Calendar.current.startOfDay(for: Date())) < 8 { try await Task.sleep(for: .seconds(8)) }
            let start = Calendar.current.startOfDay(for: Date())
            let step = min(600, Date().timeIntervalSince(start) / 4)
            let samples = [120.0, 80.5, 45.25].enumerated().map { index, kcal in
                HKQuantitySample(type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: kcal),
                                 start: start + step * Double(index), end: start + step * (Double(index) + 0.5))
            }
            try await store.save(samples)
            let today = HKQuery.predicateForSamples(withStart: start, end: Date(), options: .strictStartDate)
            let statistics = try #require(try await Self.statistics(store, HKQuantityType(.activeEnergyBurned), today, .cumulativeSum))
            #expect(statistics.sumQuantity()?.doubleValue(for: .kilocalorie()) == 245.75)
            #expect(abs((statistics.sumQuantity()?.doubleValue(for: .jouleUnit(with: .kilo)) ?? 0) - 1_028.218) < 0.01)
            // The CLI's number for the same range is the same number.
            let cli = try await Binaries.healthbridge(["summary", "--type", "activeEnergyBurned", "--from", "today", "--to", "now",
                                                       "--interval", "total", "--json"], home: server.home)
            #expect(cli.stdout.contains("245.75"), "\(cli.stdout) \(cli.stderr)")
            // No sample in the range: HealthKit's errorNoData.
            await #expect { _ = try await Self.statistics(store, HKQuantityType(.activeEnergyBurned),
                                                          HKQuery.predicateForSamples(withStart: start - 86_400 * 400, end: start - 86_400 * 399),
                                                          .cumulativeSum) } throws: { error in
                (error as? HKError)?.code == .errorNoData
            }
            // Days, as HKStatisticsCollectionQuery gives them.
            let collection: HKStatisticsCollection = try await withCheckedThrowingContinuation { continuation in
                let query = HKStatisticsCollectionQuery(quantityType: HKQuantityType(.activeEnergyBurned),
                                                        quantitySamplePredicate: HKQuery.predicateForSamples(withStart: start - 86_400 * 2, end: Date()),
                                                        options: .cumulativeSum, anchorDate: start, intervalComponents: DateComponents(day: 1))
                query.initialResultsHandler = { _, collection, error in
                    if let collection { continuation.resume(returning: collection) } else { continuation.resume(throwing: error ?? HKError(.errorNoData, "")) }
                }
                store.execute(query)
            }
            #expect(collection.statistics(for: start + 60)?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 245.75)
            var days = 0
            collection.enumerateStatistics(from: start - 86_400 * 2, to: Date()) { _, _ in days += 1 }
            #expect(days == 3)

            // A workout saved and read back as HKWorkout, with its activity type, duration and totals.
            // After the samples, over before now: half an hour, or what there is of today just after midnight.
            let length = min(1_800, ((Date().timeIntervalSince(start) - 3 * step) * 0.8).rounded(.down))
            let run = HKWorkout(activityType: .running, start: start + 3 * step, end: start + 3 * step + length, duration: length,
                                totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 300),
                                totalDistance: HKQuantity(unit: .mile(), doubleValue: 3.1), metadata: nil)
            try await store.save(run)
            let workouts = try await Self.run(store, sampleType: HKWorkoutType.workoutType(), predicate: today,
                                              sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
            let read = try #require(workouts.first as? HKWorkout)
            #expect(workouts.count == 1)
            #expect(read.workoutActivityType == .running && read.duration == length)
            #expect(read.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 300)
            #expect(abs((read.totalDistance?.doubleValue(for: .mile()) ?? 0) - 3.1) < 0.001)
            #expect(try await Self.run(store, sampleType: HKWorkoutType.workoutType(),
                                       predicate: HKQuery.predicateForWorkouts(with: .yoga)).isEmpty)

            // A collection query with an update handler keeps running: a new sample gives today's new sum.
            let updated = Mutex<Double?>(nil)
            let live = HKStatisticsCollectionQuery(quantityType: HKQuantityType(.activeEnergyBurned), quantitySamplePredicate: nil,
                                                   options: .cumulativeSum, anchorDate: start, intervalComponents: DateComponents(day: 1))
            live.initialResultsHandler = { _, _, _ in }
            live.statisticsUpdateHandler = { _, _, collection, _ in
                updated.withLock { $0 = collection?.statistics(for: start + 60)?.sumQuantity()?.doubleValue(for: .kilocalorie()) }
            }
            store.execute(live)
            try await Task.sleep(for: .milliseconds(500))
            try await store.save(HKQuantitySample(type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 4.25),
                                                  start: start + 2.6 * step, end: start + 2.8 * step))
            let waited = ContinuousClock.now
            while updated.withLock({ $0 }) != 250, ContinuousClock.now - waited < .seconds(10) { try await Task.sleep(for: .milliseconds(50)) }
            store.stop(live)
            #expect(updated.withLock { $0 } == 250)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func healthKitObserversResumeAtTheNextLaunchAndAnchoredQueriesFollowChanges() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, _) = try await server.pairedApp(appId: "org.example.hkobserve")
            let calls = Mutex(0)
            func launch() -> (HKHealthStore, HKObserverQuery) {
                let store = HKHealthStore(manager: manager)
                let query = HKObserverQuery(sampleType: HKQuantityType(.bodyMass), predicate: nil) { _, completion, error in
                    if error == nil { calls.withLock { $0 += 1 } }
                    completion()
                }
                store.execute(query)
                return (store, query)
            }
            func waitForCalls(_ count: Int, seconds: Double = 10) async throws {
                let deadline = ContinuousClock.now + .seconds(seconds)
                while calls.withLock({ $0 }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            }
            // First launch ever: told once.
            var (store, query) = launch()
            try await waitForCalls(1)
            #expect(calls.withLock { $0 } == 1)
            // A weight while the app runs: told within a second or so.
            let logged = try await Binaries.healthbridge(["log", "weight", "72.0"], home: server.home)
            #expect(logged.status == 0)
            try await waitForCalls(2)
            #expect(calls.withLock { $0 } == 2)
            store.stop(query)
            try await Task.sleep(for: .milliseconds(300))
            // The app is closed; a weight is logged; the next launch is told, once.
            _ = try await Binaries.healthbridge(["log", "weight", "71.8"], home: server.home)
            (store, query) = launch()
            try await waitForCalls(3)
            #expect(calls.withLock { $0 } == 3)
            store.stop(query)
            try await Task.sleep(for: .milliseconds(300))
            // Nothing changed since: a launch is not told again.
            (store, query) = launch()
            try await Task.sleep(for: .seconds(2))
            #expect(calls.withLock { $0 } == 3)
            store.stop(query)

            // Anchored: everything from the start, then only what changes after the kept anchor.
            let (added, anchor) = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<([HKSample], HKQueryAnchor?), any Error>) in
                store.execute(HKAnchoredObjectQuery(type: HKQuantityType(.bodyMass), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, added, _, anchor, error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: (added ?? [], anchor)) }
                })
            }
            #expect(added.count == 2)
            let kept = try JSONEncoder().encode(try #require(anchor))
            let resumed = try JSONDecoder().decode(HKQueryAnchor.self, from: kept)
            let updates = Mutex<[(added: Int, deleted: Int)]>([])
            let anchored = HKAnchoredObjectQuery(type: HKQuantityType(.bodyMass), predicate: nil, anchor: resumed, limit: HKObjectQueryNoLimit) { _, added, deleted, _, _ in
                updates.withLock { $0.append((added?.count ?? 0, deleted?.count ?? 0)) }
            }
            anchored.updateHandler = { _, added, deleted, _, _ in updates.withLock { $0.append((added?.count ?? 0, deleted?.count ?? 0)) } }
            store.execute(anchored)
            let first = Date()
            while updates.withLock({ $0.count }) < 1, Date().timeIntervalSince(first) < 10 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(updates.withLock { $0.first?.added } == 0)
            let weight = HKQuantitySample(type: HKQuantityType(.bodyMass), quantity: HKQuantity(unit: .pound(), doubleValue: 160),
                                          start: Date(), end: Date())
            try await store.save(weight)
            try await store.delete(weight)
            let second = Date()
            while updates.withLock({ $0.reduce(0) { $0 + $1.added + $1.deleted } }) < 2, Date().timeIntervalSince(second) < 10 {
                try await Task.sleep(for: .milliseconds(50))
            }
            store.stop(anchored)
            #expect(updates.withLock { $0.reduce(0) { $0 + $1.added } } == 1)
            #expect(updates.withLock { $0.reduce(0) { $0 + $1.deleted } } == 1)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func healthKitAuthorizationAndSavesThatOutliveTheServerAndTheApp() async throws {
        let server = try await ServerProcess()
        do {
            let directory = server.home.appendingPathComponent("hkapp")
            let manager = try HealthBridgeManager(appId: "org.example.hkauth", credentialsFile: directory.appendingPathComponent("healthbridge.json"),
                                                  timeout: .seconds(10))
            try await manager.pair(qrPayload: try await server.pairingPayload(app: "org.example.hkauth"), clientName: "hk")
            let store = HKHealthStore(manager: manager)
            let water = HKQuantityType(.dietaryWater)
            #expect(store.authorizationStatus(for: water) == .notDetermined)
            // A correlation is never asked for: a meal is authorized through its nutrients.
            await #expect { try await store.requestAuthorization(toShare: [HKCorrelationType(.food)], read: nil) } throws: { error in
                (error as? HKError)?.code == .errorInvalidArgument
            }
            let macros: Set<HKSampleType> = [HKQuantityType(.dietaryEnergyConsumed), HKQuantityType(.dietaryProtein),
                                             HKQuantityType(.dietaryCarbohydrates), HKQuantityType(.dietaryFatTotal)]
            try await store.requestAuthorization(toShare: macros.union([water]), read: Set(macros.map { $0 as HKObjectType }).union([water]))
            #expect(store.authorizationStatus(for: water) == .notDetermined)
            // Before approval a save is refused with HealthKit's code, and nothing is left to re-send.
            await #expect { try await store.save(HKQuantitySample(type: water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 100),
                                                                  start: Date(), end: Date())) } throws: { error in
                (error as? HKError)?.code == .errorAuthorizationDenied
            }
            try await server.approvePending()
            try await store.requestAuthorization(toShare: [water], read: [water])
            #expect(store.authorizationStatus(for: water) == .sharingAuthorized)
            // The status is answered at once by a new launch, from the container.
            #expect(HKHealthStore(manager: manager).authorizationStatus(for: water) == .sharingAuthorized)

            // A meal as a food correlation, with the nutrient grants only.
            let now = Date()
            let meal = HKCorrelation(type: HKCorrelationType(.food), start: now, end: now, objects: [
                HKQuantitySample(type: HKQuantityType(.dietaryEnergyConsumed), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 320), start: now, end: now),
                HKQuantitySample(type: HKQuantityType(.dietaryProtein), quantity: HKQuantity(unit: .gram(), doubleValue: 11), start: now, end: now),
                HKQuantitySample(type: HKQuantityType(.dietaryCarbohydrates), quantity: HKQuantity(unit: .gram(), doubleValue: 54), start: now, end: now),
                HKQuantitySample(type: HKQuantityType(.dietaryFatTotal), quantity: HKQuantity(unit: .gramUnit(with: .milli), doubleValue: 6000), start: now, end: now),
            ], metadata: [HKMetadataKeyFoodType: "Porridge"])
            try await store.save(meal)
            #expect(meal.serverUUID != nil)
            let fat = try await Self.run(store, sampleType: HKQuantityType(.dietaryFatTotal), predicate: nil)
            #expect(fat.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .gram()) } == [6])
            #expect(fat.first?.metadata?[HKMetadataKeyFoodType] as? String == "Porridge")

            // The server is killed during a save: the save waits for it and lands once.
            await server.kill9()
            let during = HKQuantitySample(type: water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 330),
                                          start: now, end: now, metadata: ["DietAppLogId": "during-outage"])
            async let saved: Void = store.save(during)
            try await Task.sleep(for: .seconds(1))
            try await server.start()
            try await saved
            // The app was killed after keeping a save and before its answer: the next launch re-sends it before
            // its first query answers.
            let left = try PendingSave([HKQuantitySample(type: water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 440),
                                                         start: now, end: now, metadata: ["DietAppLogId": "left-behind"])])
            let connection = try store.connection()
            connection.write(left, "pending-saves/\(left.id.uuidString).json")
            let relaunched = HKHealthStore(manager: manager)
            let waters = try await Self.run(relaunched, sampleType: water, predicate: nil)
            let amounts = waters.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .literUnit(with: .milli)) }.sorted()
            #expect(amounts == [330, 440])
            let pending = try FileManager.default.contentsOfDirectory(atPath: connection.pendingDirectory.path)
            #expect(pending.isEmpty, "\(pending)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
