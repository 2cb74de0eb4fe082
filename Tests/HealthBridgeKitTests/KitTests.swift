import HealthAPI
import PairedAPIClient
import Foundation
import GRDB
import HealthBridgeKit
import HealthModel
import Logging
import Testing

/// HealthBridgeKit against a real `healthbridge serve` process. One server per test; the tests run one at a time
/// (the fault test needs the cores).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct KitTests {
    @Test func pairsAuthorizesReadsAndWritesLikeHealthKit() async throws {
        let server = try await ServerProcess()
        do {
            let directory = server.home.appendingPathComponent("app")
            let credentials = directory.appendingPathComponent("healthbridge.json")
            let manager = try HealthBridgeManager(appId: "org.example.diet", credentialsFile: credentials)
            #expect(!manager.isAvailable)
            // An app id is never self-asserted: a device code (or one for another app) does not pair this app.
            let deviceCard = try JSONDecoder().decode(PairingPayload.self, from: Data(try await server.pairingPayload().utf8))
            await #expect {
                try await manager.pair(host: deviceCard.host, port: deviceCard.port, code: deviceCard.code,
                                       fingerprint: deviceCard.fingerprint, clientName: "diet")
            } throws: { error in
                guard case HealthBridgeError.notAuthorized(let failure) = error else { return false }
                return failure.code == .notAuthorized && failure.status == 403
            }
            await #expect(throws: HealthBridgeError.self) {
                try await manager.pair(qrPayload: try await server.pairingPayload(app: "org.example.other"), clientName: "diet")
            }
            #expect(!manager.isAvailable)
            try await manager.pair(qrPayload: try await server.pairingPayload(app: "org.example.diet"), clientName: "diet")
            #expect(manager.isAvailable)
            let mode = try FileManager.default.attributesOfItem(atPath: credentials.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // A later launch reuses the credentials.
            let relaunched = try HealthBridgeManager(appId: "org.example.diet", credentialsFile: credentials)
            #expect(relaunched.server == manager.server)

            // The owner has a weight; the app may not read it yet, and cannot tell (HealthKit's rule).
            let owner = try await Binaries.healthbridge(["log", "weight", "81.5", "--at", "2h"], home: server.home)
            #expect(owner.status == 0, "\(owner.stderr)")
            #expect(try await manager.fetchLatestWeight() == nil)
            #expect(try await manager.authorizationStatus(for: .dietaryEnergyConsumed) == .notDetermined)
            await #expect {
                try await manager.writeWater(250)
            } throws: { error in
                guard case HealthBridgeError.notAuthorized(let failure) = error else { return false }
                return failure.code == .notAuthorized && !failure.isTransient
            }

            // Onboarding subset, then the owner approves; writes become authorized.
            let filed = try await manager.requestOnboardingAuthorization()
            #expect(filed.request?.status == .pending)
            try await server.approvePending()
            #expect(try await manager.authorizationStatus(for: .dietaryEnergyConsumed) == .sharingAuthorized)
            #expect(try await manager.authorizationStatus(for: .dietaryWater) == .notDetermined)
            try await manager.requestFullAuthorization()
            try await server.approvePending()
            #expect(try await manager.authorizationStatuses(for: HealthBridgePermissions.writeTypes).values
                .allSatisfy { $0 == .sharingAuthorized })

            // Reads.
            let latest = try #require(try await manager.fetchLatestWeight())
            #expect(latest.weight == 81.5)
            #expect(abs(latest.date.timeIntervalSinceNow + 7_200) < 120)
            #expect(try await manager.fetchWeightHistory(days: 30).map(\.weight) == [81.5])
            #expect(try await manager.fetchTodayActiveEnergy() >= 0)
            #expect(try await manager.fetchTodayWorkouts().allSatisfy { !$0.displayName.isEmpty })

            // Writes, idempotent: the same meal twice is stored once.
            let meal = HealthBridgeMeal(id: "meal-1", name: "Porridge", calories: 320, protein: 11, carbs: 54, fat: 6,
                                     fiber: 4, loggedAt: Date().addingTimeInterval(-600))
            let first = try await manager.writeNutrition(from: meal)
            #expect(first.inserted == 6)   // five nutrients and the food correlation
            let again = try await manager.writeNutrition(from: meal)
            #expect(again.inserted == 0 && again.unchanged == 6)
            try await manager.writeWeight(80.9, date: Date().addingTimeInterval(-60), syncId: "w-1")
            let retry = try await manager.writeWeight(80.9, date: Date().addingTimeInterval(-60), syncId: "w-1")
            #expect(retry.unchanged == 1)
            #expect(try await manager.fetchLatestWeight()?.weight == 80.9)
            try await manager.writeWater(300)
            let deleted = try await manager.deleteNutrition(logId: "meal-1")
            #expect(deleted.deleted == 6)
            #expect(try await manager.deleteNutrition(logId: "meal-1").deleted == 0)

            // An invalid write is refused for good, with the server's code.
            await #expect {
                try await manager.writeWeight(-5)
            } throws: { error in
                guard case HealthBridgeError.saveFailed(let failure) = error else { return false }
                return failure.code == .invalidArgument && !failure.isTransient
            }

            // Generic typed calls.
            struct Today: Decodable, Sendable { var date: String }
            #expect(try await manager.get("health/today", as: Today.self).date.count == 10)
            let stats = try await manager.statistics(StatisticsQuery(type: .dietaryWater, start: "today", interval: "total"))
            #expect(stats.totalSum == 300)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func observerSeesAWeightWrittenElsewhereWithinASecond() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, _) = try await server.pairedApp()
            try await manager.writeWeight(70, date: Date().addingTimeInterval(-3_600), syncId: "before")
            let first = try await manager.changes(types: [.bodyMass])
            let stream = manager.observe([.bodyMass], from: first.anchor)
            let arrival = Task { () -> (Double?, ContinuousClock.Instant) in
                for try await batch in stream {
                    if let value = batch.added.first?.sample?.value { return (value, .now) }
                }
                return (nil, .now)
            }
            try await Task.sleep(for: .milliseconds(300))   // the long-poll is waiting
            let owner = try await Binaries.healthbridge(["log", "weight", "69.4"], home: server.home)
            let written = ContinuousClock.now
            #expect(owner.status == 0, "\(owner.stderr)")
            let (value, at) = try await arrival.value
            #expect(value == 69.4)
            #expect(at - written < .seconds(1), "the observer took \(at - written)")

            // Resuming from a saved anchor after a restart of the server: nothing lost, nothing repeated.
            let saved = try await manager.changes(types: [.bodyMass], anchor: first.anchor).anchor
            await server.kill9()
            let owner2 = try await Binaries.healthbridge(["log", "weight", "69.1"], home: server.home)
            #expect(owner2.status == 0)
            try await server.start()
            var resumed: [Double] = []
            for try await batch in manager.observe([.bodyMass], from: saved) {
                resumed += batch.added.compactMap { $0.sample?.value }
                break
            }
            #expect(resumed == [69.1])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func syncEngineQueuesWhileTheServerIsDownAndStopsOnPermanentFailures() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, directory) = try await server.pairedApp()
            let db = try DatabaseQueue(path: directory.appendingPathComponent("app.sqlite").path)
            let policy = RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
            var engine = try SyncEngine(manager: manager, database: db, policy: policy)
            // Written at once.
            #expect(try await engine.logWater(250, date: Date().addingTimeInterval(-5)).status == .synced)
            // Queued while the server is down.
            await server.kill9()
            let meal = HealthBridgeMeal(id: "meal-q", name: "Soup", calories: 200, protein: 5, carbs: 20, fat: 8,
                                     loggedAt: Date().addingTimeInterval(-30))
            let queued = try await engine.logFood(meal)
            #expect(queued.status == .pending)
            #expect(queued.lastError != nil)
            try await engine.logWeight(77.7, date: Date().addingTimeInterval(-20), syncId: "weight-q")
            try await engine.deleteFood(logId: "gone")
            // An app restart: a new engine on the same file resumes the outbox.
            engine = try SyncEngine(manager: manager, database: db, policy: policy)
            #expect(try engine.counts()[.pending] == 3)
            try await server.start()
            try await Task.sleep(for: .milliseconds(250))
            let report = await engine.flush()
            #expect(report.synced == 3 && report.pending == 0)
            #expect(try await manager.fetchLatestWeight()?.weight == 77.7)
            // Permanent failures keep a clear status and are not retried.
            let invalid = try await engine.logWeight(-1)
            #expect(invalid.status == .invalid && invalid.lastCode == HealthError.Code.invalidArgument.rawValue)
            let denied = try await engine.logFood(HealthBridgeMeal(id: "meal-d", calories: 1, protein: 0, carbs: 0, fat: 0))
            #expect(denied.status == .synced)
            let revoke = try await Binaries.healthbridge(["grants", "app:org.example.test", "--deny", "dietaryWater"],
                                                         home: server.home)
            #expect(revoke.status == 0, "\(revoke.stderr)")
            let refused = try await engine.logWater(100)
            #expect(refused.status == .denied && refused.lastCode == HealthError.Code.notAuthorized.rawValue)
            #expect(await engine.flush().pending == 0)
            #expect(try engine.outbox(status: .denied).count == 1)
            // TDEE = basal + active, both merged on the server.
            let budget = try await engine.refreshEnergy()
            #expect(budget.tdee == budget.basal + budget.active)
            #expect(engine.lastEnergy?.tdee == budget.tdee)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
