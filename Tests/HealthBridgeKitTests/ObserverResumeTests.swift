import Foundation
import HealthBridgeKit
import Synchronization
import Testing

extension KitTests {
    /// The seed's observers (HealthBridgeManager.setupObserverQueries) start without downloading history and resume
    /// at the next launch: a weight logged while the app was closed is posted once when it starts again.
    @Test func managerObserversResumeFromTheKeptAnchor() async throws {
        let server = try await ServerProcess()
        do {
            let (manager, directory) = try await server.pairedApp(appId: "org.example.resume")
            let posts = Mutex(0)
            let token = NotificationCenter.default.addObserver(forName: .healthBridgeWeightUpdated, object: nil, queue: nil) { _ in
                posts.withLock { $0 += 1 }
            }
            defer { NotificationCenter.default.removeObserver(token) }
            func waitFor(_ count: Int, seconds: Double) async throws {
                let deadline = ContinuousClock.now + .seconds(seconds)
                while posts.withLock({ $0 }) < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            }
            // History exists before the first launch: it is not posted (the first launch starts now).
            _ = try await Binaries.healthbridge(["log", "weight", "70.0"], home: server.home)
            manager.setupObserverQueries()
            try await Task.sleep(for: .seconds(1))
            #expect(posts.withLock { $0 } == 0)
            // While it runs: posted.
            _ = try await Binaries.healthbridge(["log", "weight", "70.5"], home: server.home)
            try await waitFor(1, seconds: 10)
            #expect(posts.withLock { $0 } == 1)
            manager.stopObserverQueries()
            try await Task.sleep(for: .milliseconds(300))
            // Closed: two weights logged. The next launch (a new manager on the same files) posts once.
            _ = try await Binaries.healthbridge(["log", "weight", "71.0"], home: server.home)
            _ = try await Binaries.healthbridge(["log", "weight", "71.5"], home: server.home)
            let relaunched = try HealthBridgeManager(appId: "org.example.resume",
                                                     credentialsFile: directory.appendingPathComponent("healthbridge.json"))
            relaunched.setupObserverQueries()
            try await waitFor(2, seconds: 10)
            try await Task.sleep(for: .milliseconds(500))
            #expect(posts.withLock { $0 } == 2)
            relaunched.stopObserverQueries()
            let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("observer-anchors.json").path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
