import Foundation
import HealthAPI
import struct HealthAPI.GrantsUpdate
import GatewayNode
import HealthBridgeTesting
import HealthDemo
import HealthModel
@testable import HealthService
import HealthStore
import Testing

extension GatewayNodeTests {
    @Suite struct Subscriptions {
        static let subscribeHeartRate: JSONValue = .object(["types": .array([.string("heartRate")])])

        @Test func newSamplesOfASubscribedTypeArePushedWithinOneSecondNewestFirst() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.subscribe", params: Self.subscribeHeartRate) == .ok(payloadJSON: nil))
                    let now = Date().addingTimeInterval(-60)
                    let samples = (0..<7).map { heartRate(60 + Double($0), at: now.addingTimeInterval(Double($0) * 5)) }
                    try await service.store.save([steps(100, at: now)])  // not subscribed
                    try await service.store.save(samples.shuffled())
                    let committed = ContinuousClock.now
                    #expect(await gateway.wait(.seconds(2)) { !$0.events.isEmpty })
                    let event = try #require(gateway.events().first)
                    #expect(event.at - committed < .seconds(1), "after \(event.at - committed)")
                    let update = try updatePayload(event)
                    #expect(update.type == "heartRate")
                    #expect(update.latestSamples.map(\.value) == [66, 65, 64, 63, 62])
                    #expect(update.latestSamples.allSatisfy { $0.unit == "bpm" && $0.source == DemoGenerator.watch.name })
                    #expect(update.latestSamples.first?.dateISO == ISO8601.string(samples[6].start, timeZone: parisZone))
                    try await Task.sleep(for: .milliseconds(400))
                    #expect(gateway.events().count == 1, "one event, none for stepCount")
                    #expect(gateway.snapshot().violations.isEmpty)
                }
            }
        }

        @Test func samplesStoredByAnotherProcessArePushed() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.subscribe", params: Self.subscribeHeartRate) == .ok(payloadJSON: nil))
                    // A second store on the same file stands in for `healthbridge import` in another process.
                    let importer = try SQLiteHealthStore(location: .file(dir.appendingPathComponent("health.sqlite")))
                    try await importer.save([heartRate(71, at: Date().addingTimeInterval(-30))])
                    let committed = ContinuousClock.now
                    #expect(await gateway.wait(.seconds(2)) { !$0.events.isEmpty })
                    let event = try #require(gateway.events().first)
                    #expect(event.at - committed < .seconds(1), "after \(event.at - committed)")
                    #expect(try updatePayload(event).latestSamples.map(\.value) == [71])
                }
            }
        }

        @Test func unsubscribeStopsEvents() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.subscribe", params: .object(["types": .array([.string("heartRate"), .string("stepCount")])]))
                            == .ok(payloadJSON: nil))
                    try await service.store.save([heartRate(70, at: Date().addingTimeInterval(-20))])
                    #expect(await gateway.wait(.seconds(2)) { $0.events.count == 1 })
                    #expect(await gateway.invoke("health.unsubscribe", params: Self.subscribeHeartRate) == .ok(payloadJSON: nil))
                    try await service.store.save([heartRate(72, at: Date().addingTimeInterval(-10))])
                    try await Task.sleep(for: .milliseconds(1_200))
                    #expect(gateway.events().count == 1, "no event after unsubscribe")
                    // stepCount is still subscribed.
                    try await service.store.save([steps(30, at: Date().addingTimeInterval(-120))])
                    #expect(await gateway.wait(.seconds(2)) { $0.events.count == 2 })
                    #expect(try updatePayload(gateway.events().last!).type == "stepCount")
                }
            }
        }

        @Test func aTypeTheGatewayMayNotReadIsNeverPushed() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await service.updateGrants(GrantsUpdate(principal: Principal.gateway().id, deny: ["heartRate"]))
                try await withConnectedNode(service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.subscribe", params: .object(["types": .array([.string("heartRate"), .string("stepCount")])]))
                            == .ok(payloadJSON: nil))
                    try await service.store.save([heartRate(70, at: Date().addingTimeInterval(-20))])
                    try await service.store.save([steps(30, at: Date().addingTimeInterval(-120))])
                    #expect(await gateway.wait(.seconds(2)) { !$0.events.isEmpty })
                    try await Task.sleep(for: .milliseconds(600))
                    #expect(try gateway.events().map { try updatePayload($0).type } == ["stepCount"],
                            "the service's change feed leaves heartRate out: no event, as if nothing was recorded")
                }
            }
        }

        @Test func samplesStoredWhileDisconnectedAreDeliveredAfterReconnect() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir) { gateway, node in
                    #expect(await gateway.invoke("health.subscribe", params: Self.subscribeHeartRate) == .ok(payloadJSON: nil))
                    gateway.update { $0.refuseConnections = true }
                    gateway.dropConnections()
                    #expect(await node.log.wait { if case .disconnected = $0 { true } else { false } })
                    let base = Date().addingTimeInterval(-300)
                    try await service.store.save([heartRate(80, at: base), heartRate(81, at: base.addingTimeInterval(10))])
                    try await service.store.save([heartRate(82, at: base.addingTimeInterval(20))])
                    try await Task.sleep(for: .milliseconds(500))
                    #expect(gateway.events().isEmpty)
                    gateway.update { $0.refuseConnections = false }
                    #expect(await gateway.wait(.seconds(5)) { !$0.events.isEmpty })
                    let update = try updatePayload(try #require(gateway.events().first))
                    #expect(update.latestSamples.map(\.value) == [82, 81, 80])
                    #expect(node.log.connectedCount >= 2)
                }
            }
        }

        @Test func anUnacknowledgedEventIsSentAgainFromTheLastAcknowledgedAnchor() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir) { gateway, node in
                    #expect(await gateway.invoke("health.subscribe", params: Self.subscribeHeartRate) == .ok(payloadJSON: nil))
                    let before = try #require(await node.node.subscriptions.acknowledgedAnchor("heartRate"))
                    gateway.update { $0.dropEventsWithoutAck = 1 }
                    try await service.store.save([heartRate(90, at: Date().addingTimeInterval(-15))])
                    // Sent, not acknowledged, the connection dropped: sent again after the reconnect.
                    #expect(await gateway.wait(.seconds(5)) { $0.events.count >= 2 })
                    let events = gateway.events()
                    #expect(try updatePayload(events[0]) == updatePayload(events[1]))
                    #expect(gateway.snapshot().socketsOpened >= 2)
                    let current = try await service.store.currentAnchor()
                    #expect(await waitFor { await node.node.subscriptions.acknowledgedAnchor("heartRate") == current })
                    #expect(current > before)
                }
            }
        }

        @Test func subscriptionsSurviveARestartAndMissedSamplesAreDelivered() async throws {
            try await withTemporaryDirectory { dir in
                let url = dir.appendingPathComponent("health.sqlite")
                let gateway = try await TestGateway.start()
                defer { Task { await gateway.stop() } }
                // Every store instance stays open to the end: opening one while another instance of the same file
                // is being closed can fail with SQLITE_BUSY (a store issue, reported separately).
                let firstService = try await makeService(dir)
                do {
                    let node = try startNode(testConfiguration(gateway), service: firstService, directory: dir)
                    #expect(await gateway.waitForNode() != nil)
                    #expect(await gateway.invoke("health.subscribe", params: Self.subscribeHeartRate) == .ok(payloadJSON: nil))
                    await node.stop()
                }
                #expect(await gateway.wait { $0.sessions.isEmpty })
                // Stored while no node runs.
                let writer = try SQLiteHealthStore(location: .file(url))
                try await writer.save([heartRate(64, at: Date().addingTimeInterval(-40))])

                let service = try await makeService(dir)  // a new process: new store, new node
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(await gateway.wait(.seconds(5)) { !$0.events.isEmpty })
                #expect(try updatePayload(try #require(gateway.events().first)).latestSamples.map(\.value) == [64])
                #expect(await node.node.subscriptions.subscribedTypes == ["heartRate"])
                await node.stop()
                _ = (firstService, writer)
            }
        }

        /// A large import by another process while the node runs: a bounded number of events (at most one per type
        /// per window), and the last one carries the newest samples. 200,000 samples by default — a debug build takes
        /// about 17 s for 1,000,000 here; `GATEWAYNODE_IMPORT_SAMPLES=1000000` runs the full million, and so does
        /// the release benchmark (`GatewayNodeBenchmark`).
        @Test func aLargeImportProducesABoundedNumberOfEvents() async throws {
            let total = ProcessInfo.processInfo.environment["GATEWAYNODE_IMPORT_SAMPLES"].flatMap(Int.init) ?? 200_000
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir) { gateway, node in
                    #expect(await gateway.invoke("health.subscribe", params: .object([
                        "types": .array([.string("heartRate"), .string("stepCount")])])) == .ok(payloadJSON: nil))
                    let importer = try SQLiteHealthStore(location: .file(dir.appendingPathComponent("health.sqlite")))
                    let batch = 20_000
                    let start = Date().addingTimeInterval(-Double(total) * 10 - 3_600)
                    let started = ContinuousClock.now
                    var index = 0
                    while index < total {
                        let count = min(batch, total - index)
                        let samples = (index..<(index + count)).map { i -> HealthSample in
                            let date = start.addingTimeInterval(Double(i) * 10)
                            return i % 2 == 0 ? heartRate(Double(50 + i % 50), at: date)
                                : steps(Double(i % 100), at: date, minutes: 0.1)
                        }
                        try await importer.save(samples)
                        index += count
                    }
                    let imported = ContinuousClock.now - started
                    // Wait for the node to catch up: the newest heart rate and step samples are announced.
                    let lastHeart = ISO8601.string(start.addingTimeInterval(Double(total - 2) * 10), timeZone: parisZone)
                    let lastSteps = ISO8601.string(start.addingTimeInterval(Double(total - 1) * 10), timeZone: parisZone)
                    let caughtUp = await gateway.wait(.seconds(60)) { state in
                        let firsts = state.events.compactMap { try? JSONValue(json: $0.payloadJSON ?? "")["latestSamples"]?.arrayValue?.first?["dateISO"]?.stringValue }
                        return firsts.contains(lastHeart) && firsts.contains(lastSteps)
                    }
                    #expect(caughtUp)
                    let settled = ContinuousClock.now - started
                    try await Task.sleep(for: .milliseconds(600))
                    let events = gateway.events()
                    let perType = Dictionary(grouping: events, by: { (try? updatePayload($0).type) ?? "?" }).mapValues(\.count)
                    // At most one event per type per 250 ms window (plus the first), over the whole import.
                    let windows = Int(settled / .milliseconds(250)) + 2
                    #expect(perType.keys.sorted() == ["heartRate", "stepCount"])
                    #expect(perType.values.allSatisfy { $0 <= windows }, "\(perType) for \(windows) windows")
                    #expect(events.count < 1_000)
                    let last = try updatePayload(try #require(events.last(where: { (try? updatePayload($0).type) == "heartRate" })))
                    #expect(last.latestSamples.count == 5)
                    #expect(last.latestSamples.first?.dateISO == lastHeart)
                    let current = try await service.store.currentAnchor()
                    #expect(await waitFor { await node.node.subscriptions.acknowledgedAnchor("heartRate") == current })
                    print("[GatewayNode] \(total) samples imported in \(imported), node caught up after \(settled): \(perType) events")
                }
            }
        }
    }
}

/// Polls an async condition for up to `timeout`.
func waitFor(_ timeout: Duration = .seconds(20), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
