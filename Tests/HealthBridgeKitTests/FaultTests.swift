import Foundation
import GRDB
import HealthBridgeKit
import Testing

extension KitTests {
    /// 1,000 queued writes flushed while the server is SIGKILLed at random moments and a proxy drops connections at
    /// random (half of the drops after the server got the request: applied, answer lost). After the last restart
    /// every entry is in the store exactly once: checked by sync id and by count.
    @Test func thousandQueuedWritesSurviveKillsAndDroppedConnections() async throws {
        let server = try await ServerProcess()
        let proxy = try FlakyProxy(upstreamPort: server.port)
        do {
            let (manager, directory) = try await server.pairedApp(proxyPort: proxy.port)
            let db = try DatabaseQueue(path: directory.appendingPathComponent("app.sqlite").path)
            let engine = try SyncEngine(manager: manager, database: db,
                                        policy: RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(300),
                                                            batchSize: 50))
            let ids = (0..<1_000).map { "fault-\($0)" }
            let base = Date().addingTimeInterval(-3_600)
            try await db.write { db in
                for (index, id) in ids.enumerated() {
                    try engine.enqueue(.water(milliliters: Double(100 + index % 400),
                                              date: HealthBridgeDates.wholeSecond(base.addingTimeInterval(-Double(index)))),
                                       syncId: id, in: db)
                }
            }
            proxy.dropRate = 0.3
            let started = ContinuousClock.now
            let runner = Task { await engine.run() }
            var kills = 0
            let deadline = ContinuousClock.now + .seconds(90)
            while try (engine.counts()[.pending] ?? 0) > 0, ContinuousClock.now < deadline {
                if kills < 4 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 150...700)))
                    await server.kill9()
                    kills += 1
                    try await Task.sleep(for: .milliseconds(Int.random(in: 100...400)))
                    try await server.start()
                } else {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            runner.cancel()
            let elapsed = ContinuousClock.now - started
            proxy.dropRate = 0
            let counts = try engine.counts()
            #expect(counts[.synced] == 1_000, "outbox: \(counts)")
            #expect(kills >= 1)

            // Every entry on the server exactly once, by sync id and by count.
            var syncIds: [String] = []
            var anchor: String?
            repeat {
                let batch = try await manager.changes(types: [.dietaryWater], anchor: anchor, limit: 5_000)
                syncIds += batch.added.compactMap { $0.sample?.syncId }.filter { $0.hasPrefix("fault-") }
                anchor = batch.anchor
                if !batch.hasMore { break }
            } while true
            #expect(syncIds.count == 1_000, "stored \(syncIds.count) water samples")
            #expect(Set(syncIds) == Set(ids))
            let attempts = try engine.outbox().reduce(0) { $0 + $1.attempts }
            let figures = proxy.figures
            let totals = engine.totals
            print("fault test: 1000 writes, \(kills) SIGKILLs, \(figures.connections) connections, \(figures.lostAnswers) answers cut after the request reached the server, \(figures.refused) connections cut before it, \(attempts) attempts; \(totals.alreadyStored) entries found already stored on retry; \(syncIds.count) stored, \(Set(syncIds).count) distinct; \(elapsed)")
        } catch {
            proxy.stop()
            await server.stop()
            throw error
        }
        proxy.stop()
        await server.stop()
    }
}
