import Foundation
import HealthAPI
import struct HealthAPI.SleepRequest
import GatewayNode
import HealthBridgeTesting
import HealthModel
import HealthService
import HealthStore
import Synchronization
import Testing

extension GatewayNodeTests {
    @Suite struct Invokes {
        @Test func everyCommandWithValidParams() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeDemoService(dir, days: 30)
                try await withConnectedNode(service: service, directory: dir) { gateway, node in
                    let now = Date()
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = parisZone
                    let midnight = calendar.startOfDay(for: now)

                    // health.query: defaults are today 00:00 → now in the home zone, 100 newest first.
                    let today = try payload(await gateway.invoke("health.query", params: .object(["type": .string("stepCount")])),
                                            as: OpenClawHealthQueryPayload.self)
                    #expect(today.type == "stepCount")
                    #expect(ISO8601.date(today.startISO) == midnight)
                    #expect(today.startISO.hasSuffix("+01:00") || today.startISO.hasSuffix("+02:00"))
                    #expect(today.samples.count <= 100)
                    let starts = today.samples.compactMap { ISO8601.date($0.dateISO) }
                    #expect(starts == starts.sorted(by: >), "newest first")
                    #expect(starts.allSatisfy { $0 >= midnight })

                    // Explicit range, ascending, the largest limit; identical to the service's own payload. Three days
                    // hold 700 or more heart rates at any time of day (two held 480 to 520, depending on the hour).
                    let from = ISO8601.string(now.addingTimeInterval(-4 * 86_400))
                    let to = ISO8601.string(now.addingTimeInterval(-86_400))
                    let params: JSONValue = .object(["type": .string("heartRate"), "startISO": .string(from),
                                                     "endISO": .string(to), "limit": .int(500), "ascending": .bool(true)])
                    let outcome = await gateway.invoke("health.query", params: params)
                    let rates = try payload(outcome, as: OpenClawHealthQueryPayload.self)
                    #expect(rates.samples.count == 500)
                    #expect(rates.samples.first?.unit == "bpm")
                    let ascending = rates.samples.compactMap { ISO8601.date($0.dateISO) }
                    #expect(ascending == ascending.sorted())
                    let direct = try await service.query(OpenClawHealthQueryParams(
                        type: "heartRate", startISO: from, endISO: to, limit: 500, ascending: true))
                    #expect(outcome == .ok(payloadJSON: String(decoding: try JSONEncoder.wire.encode(direct), as: UTF8.self)))

                    let one = try payload(await gateway.invoke("health.query", params: .object([
                        "type": .string("heartRate"), "startISO": .string(from), "limit": .int(1)])),
                                          as: OpenClawHealthQueryPayload.self)
                    #expect(one.samples.count == 1)

                    let sleep = try payload(await gateway.invoke("health.query", params: .object([
                        "type": .string("sleepAnalysis"), "startISO": .string("7d")])), as: OpenClawHealthQueryPayload.self)
                    #expect(!sleep.samples.isEmpty)
                    #expect(sleep.samples.allSatisfy { $0.category != nil && $0.value == nil })
                    #expect(Set(sleep.samples.compactMap(\.category)).isSubset(of: ["inBed", "asleep", "awake", "core", "deep", "rem"]))

                    // health.summary, the plan's form: merged statistics per day / hour / week.
                    let week = ISO8601.string(calendar.date(byAdding: .day, value: -6, to: midnight)!, timeZone: parisZone)
                    let daily = try payload(await gateway.invoke("health.summary", params: .object([
                        "type": .string("stepCount"), "startISO": .string(week), "interval": .string("day")])),
                                            as: OpenClawHealthSummaryPayload.self)
                    #expect(daily.interval == "day")
                    #expect(daily.statistics.count == 7)
                    #expect(daily.statistics.allSatisfy { $0.unit == "count" && $0.average == nil })
                    #expect(daily.statistics.dropLast().allSatisfy { ($0.sum ?? 0) > 1_000 })
                    #expect(daily.merged == true)
                    let directSummary = try await service.summary(OpenClawHealthSummaryParams(
                        type: "stepCount", startISO: week, endISO: ISO8601.string(midnight), interval: "day"))
                    let nodeSummary = try payload(await gateway.invoke("health.summary", params: .object([
                        "type": .string("stepCount"), "startISO": .string(week), "endISO": .string(ISO8601.string(midnight))])),
                                                  as: OpenClawHealthSummaryPayload.self)
                    #expect(nodeSummary == directSummary, "interval defaults to day; merged statistics, as the service")

                    let hourly = try payload(await gateway.invoke("health.summary", params: .object([
                        "type": .string("heartRate"), "startISO": .string(from), "endISO": .string(to),
                        "interval": .string("hour")])), as: OpenClawHealthSummaryPayload.self)
                    #expect(hourly.interval == "hour")
                    #expect((72...73).contains(hourly.statistics.count), "three days of hours")
                    #expect(hourly.statistics.contains { $0.average != nil && $0.min != nil && $0.max != nil && $0.unit == "bpm" })

                    let weekly = try payload(await gateway.invoke("health.summary", params: .object([
                        "type": .string("stepCount"), "startISO": .string("3w"), "interval": .string("week")])),
                                             as: OpenClawHealthSummaryPayload.self)
                    #expect(weekly.interval == "week")
                    #expect((3...5).contains(weekly.statistics.count))

                    // Upstream OpenClaw's health.summary {"period":"today"}, told apart by its params.
                    for params: JSONValue? in [.object(["period": .string("today")]), nil] {
                        let upstream = try payload(await gateway.invoke("health.summary", params: params),
                                                   as: OpenClawUpstreamSummaryPayload.self)
                        #expect(upstream.period == "today")
                        #expect(upstream.timeZoneIdentifier == "Europe/Paris")
                        #expect(ISO8601.date(upstream.startISO) == midnight)
                    }
                    let upstreamJSON = try #require({ if case .ok(let json) = $0 { json } else { nil } }(
                        await gateway.invoke("health.summary", params: .object(["period": .string("today")]))))
                    let keys = Set(try JSONValue(json: upstreamJSON).objectValue?.keys.map { $0 } ?? [])
                    #expect(keys.isSubset(of: ["period", "startISO", "endISO", "timeZoneIdentifier", "stepCount",
                                               "sleepDurationMinutes", "restingHeartRateBpm", "workoutCount",
                                               "workoutDurationMinutes"]))

                    // health.sleep (an extension): the service's nights, in the node's wire form.
                    let nights = try payload(await gateway.invoke("health.sleep", params: .object(["startISO": .string("7d")])),
                                             as: OpenClawHealthSleepPayload.self)
                    let serviceNights = try await service.sleep(SleepRequest(start: "7d")).nights
                    #expect(!nights.nights.isEmpty)
                    #expect(nights.nights.map(\.date) == serviceNights.map(\.date))
                    #expect(nights.nights.map(\.asleepMinutes) == serviceNights.map(\.asleepMinutes))
                    #expect(nights.timeZone == "Europe/Paris")

                    // health.subscribe / health.unsubscribe: ok, no payload.
                    #expect(await gateway.invoke("health.subscribe", params: .object(["types": .array([.string("heartRate"), .string("HKQuantityTypeIdentifierStepCount")])]))
                            == .ok(payloadJSON: nil))
                    #expect(await node.node.subscriptions.subscribedTypes == ["heartRate", "stepCount"])
                    #expect(await gateway.invoke("health.unsubscribe", params: .object(["types": .array([.string("stepCount")])]))
                            == .ok(payloadJSON: nil))
                    #expect(await node.node.subscriptions.subscribedTypes == ["heartRate"])

                    let state = gateway.snapshot()
                    #expect(state.violations.isEmpty, "\(state.violations)")
                    #expect(state.results.allSatisfy { $0["id"] != nil && $0["nodeId"]?.stringValue == node.deviceId })
                }
            }
        }

        @Test func invalidParamsGetCodedErrors() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeDemoService(dir, days: 3)
                try await withConnectedNode(service: service, directory: dir) { gateway, _ in
                    func expectError(_ command: String, _ params: JSONValue?, paramsJSON: String?? = nil, _ code: String,
                                     containing text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async {
                        let outcome = await gateway.invoke(command, params: params, paramsJSON: paramsJSON)
                        #expect(outcome.errorCode == code, "\(command) \(params?.jsonText ?? "-"): \(outcome)",
                                sourceLocation: sourceLocation)
                        #expect(outcome.errorMessage?.hasPrefix(code + ": ") == true, "\(outcome)", sourceLocation: sourceLocation)
                        if let text {
                            #expect(outcome.errorMessage?.contains(text) == true, "\(outcome)", sourceLocation: sourceLocation)
                        }
                    }
                    await expectError("health.query", .object(["type": .string("stepcont")]), "HEALTH_INVALID_TYPE", containing: "stepCount")
                    await expectError("health.query", .object(["type": .string("workout")]), "HEALTH_INVALID_TYPE")
                    await expectError("health.query", .object([:]), "HEALTH_INVALID_ARGUMENT", containing: "'type'")
                    await expectError("health.query", nil, paramsJSON: .some(nil), "HEALTH_INVALID_ARGUMENT", containing: "'type'")
                    await expectError("health.query", nil, paramsJSON: "not json", "HEALTH_INVALID_ARGUMENT", containing: "not valid JSON")
                    await expectError("health.query", nil, paramsJSON: "[1]", "HEALTH_INVALID_ARGUMENT", containing: "JSON object")
                    await expectError("health.query", .object(["type": .string("stepCount"), "limit": .string("ten")]),
                                      "HEALTH_INVALID_ARGUMENT", containing: "'limit'")
                    await expectError("health.query", .object(["type": .int(3)]), "HEALTH_INVALID_ARGUMENT", containing: "a string")
                    await expectError("health.query", .object(["type": .string("stepCount"), "start": .string("7d")]),
                                      "HEALTH_INVALID_ARGUMENT", containing: "unknown parameter 'start'")
                    await expectError("health.query", .object(["type": .string("stepCount"), "startISO": .string("last tuesday")]),
                                      "HEALTH_INVALID_RANGE")
                    await expectError("health.query", .object(["type": .string("stepCount"), "startISO": .string("2024-05-02"),
                                                               "endISO": .string("2024-05-01")]), "HEALTH_INVALID_RANGE")
                    await expectError("health.summary", .object(["type": .string("sleepAnalysis")]), "HEALTH_NO_SUMMARY")
                    await expectError("health.summary", .object(["type": .string("nope")]), "HEALTH_INVALID_TYPE")
                    await expectError("health.summary", .object(["type": .string("stepCount"), "interval": .string("month")]),
                                      "HEALTH_INVALID_ARGUMENT", containing: "hour, day or week")
                    await expectError("health.summary", .object(["interval": .string("day")]), "HEALTH_INVALID_ARGUMENT")
                    await expectError("health.summary", .object(["period": .string("week")]), "HEALTH_INVALID_ARGUMENT",
                                      containing: "today")
                    await expectError("health.summary", .object(["period": .string("today"), "type": .string("stepCount")]),
                                      "HEALTH_INVALID_ARGUMENT", containing: "not both")
                    await expectError("health.subscribe", .object(["types": .array([])]), "HEALTH_INVALID_ARGUMENT")
                    await expectError("health.query", .object(["type": .string("heartRate"), "limit": .int(0)]),
                                      "HEALTH_INVALID_ARGUMENT", containing: "1 to 500")
                    await expectError("health.query", .object(["type": .string("heartRate"), "limit": .int(5_000)]),
                                      "HEALTH_INVALID_ARGUMENT", containing: "1 to 500")
                    await expectError("health.sleep", .object(["startISO": .string("2024-05-02"), "endISO": .string("2024-05-01")]),
                                      "HEALTH_INVALID_RANGE")
                    await expectError("health.sleep", .object(["start": .string("7d")]), "HEALTH_INVALID_ARGUMENT",
                                      containing: "unknown parameter")
                    await expectError("health.subscribe", .object(["types": .string("heartRate")]), "HEALTH_INVALID_ARGUMENT",
                                      containing: "an array")
                    await expectError("health.subscribe", .object(["types": .array([.string("hartRate")])]), "HEALTH_INVALID_TYPE")
                    await expectError("health.subscribe", .object(["types": .array([.string("workout")])]), "HEALTH_INVALID_TYPE")
                    await expectError("health.unsubscribe", .object([:]), "HEALTH_INVALID_ARGUMENT")

                    let unknown = await gateway.invoke("health.export", params: .object([:]), bypassPolicy: true)
                    #expect(unknown == .error(code: "INVALID_REQUEST", message: "INVALID_REQUEST: unknown command"))
                    // Error results carry only {code, message}: the gateway's closed schema accepted every one.
                    #expect(gateway.snapshot().violations.isEmpty, "\(gateway.snapshot().violations)")
                }
            }
        }

        @Test func aCommandPastItsTimeoutIsAnsweredWithAnError() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir, configure: { configuration in
                    configuration.beforeCommand = { command in
                        if command == "health.query" { try? await Task.sleep(for: .seconds(2)) }
                    }
                }) { gateway, _ in
                    let started = ContinuousClock.now
                    let outcome = await gateway.invoke("health.query", params: .object(["type": .string("stepCount")]),
                                                       timeoutMs: 150, gatewayTimeout: .seconds(3))
                    let elapsed = ContinuousClock.now - started
                    #expect(outcome.errorCode == "UNAVAILABLE")
                    #expect(outcome.errorMessage == "UNAVAILABLE: health.query timed out after 150 ms")
                    #expect(elapsed < .milliseconds(1_800), "answered after \(elapsed), not when the 2 s handler ended")
                    // Other commands are unaffected.
                    #expect(await gateway.invoke("health.summary", params: .object(["type": .string("stepCount")]),
                                                 timeoutMs: 2_000).errorCode == nil)
                }
            }
        }

        @Test func aLateResultIsAcknowledgedAndTheConnectionCarriesOn() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await withConnectedNode(service: service, directory: dir, configure: { configuration in
                    configuration.beforeCommand = { command in
                        if command == "health.query" { try? await Task.sleep(for: .milliseconds(400)) }
                    }
                }) { gateway, node in
                    // The gateway gives up after 100 ms; the node answers at ~400 ms, within its own 5 s.
                    let outcome = await gateway.invoke("health.query", params: .object(["type": .string("stepCount")]),
                                                       timeoutMs: 5_000, gatewayTimeout: .milliseconds(100))
                    #expect(outcome == .timeout)
                    #expect(await gateway.wait { $0.lateResults.count == 1 })
                    #expect(gateway.snapshot().lateResults.first?["ok"]?.boolValue == true)
                    #expect(await gateway.invoke("health.summary", params: .object(["type": .string("stepCount")])).errorCode == nil)
                    #expect(gateway.snapshot().socketsOpened == 1)
                    #expect(node.log.connectedCount == 1)
                }
            }
        }

        @Test func invokesRunConcurrentlyButBounded() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                let running = LockedValue((now: 0, peak: 0))
                try await withConnectedNode(service: service, directory: dir, configure: { configuration in
                    configuration.maxConcurrentInvokes = 2
                    configuration.beforeCommand = { _ in
                        running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                        try? await Task.sleep(for: .milliseconds(200))
                        running.withLock { $0.now -= 1 }
                    }
                }) { gateway, _ in
                    let started = ContinuousClock.now
                    let outcomes = await withTaskGroup(of: TestGateway.InvokeOutcome.self) { group in
                        for _ in 0..<6 {
                            group.addTask {
                                await gateway.invoke("health.query", params: .object(["type": .string("stepCount")]),
                                                     timeoutMs: 5_000)
                            }
                        }
                        return await group.reduce(into: []) { $0.append($1) }
                    }
                    let elapsed = ContinuousClock.now - started
                    #expect(outcomes.count == 6)
                    #expect(outcomes.allSatisfy { $0.errorCode == nil }, "\(outcomes)")
                    #expect(running.value.peak == 2)
                    #expect(elapsed >= .milliseconds(600))
                    #expect(elapsed < .seconds(10))
                }
            }
        }

        @Test func theGatewayCommandPolicyRefusesWhatIsNotAllowed() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                let query: JSONValue = .object(["type": .string("stepCount")])

                // A Linux node: the health commands are not in the platform defaults; deny wins over allow.
                var config = TestGateway.Config()
                config.denyCommands = ["health.query"]
                try await withConnectedNode(config, service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.query", params: query) == .refused(reason: "command not allowlisted"))
                    #expect(await gateway.invoke("health.subscribe", params: .object(["types": .array([.string("heartRate")])]))
                            == .ok(payloadJSON: nil))
                }
                config = TestGateway.Config()
                config.allowCommands = []
                try await withConnectedNode(config, service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.query", params: query) == .refused(reason: "command not allowlisted"))
                }
                config.allowCommands = ["health.query", "health.export"]
                try await withConnectedNode(config, service: service, directory: dir) { gateway, _ in
                    #expect(await gateway.invoke("health.query", params: query).errorCode == nil)
                    #expect(await gateway.invoke("health.export") == .refused(reason: "command not declared by node"))
                }
                // An iOS node: health.* are iOS defaults, but health.summary is dangerous until allowed.
                config.allowCommands = []
                try await withConnectedNode(config, service: service, directory: dir, configure: {
                    $0.platform = "iOS 18.4"
                    $0.deviceFamily = "iPhone"
                }) { gateway, _ in
                    #expect(await gateway.invoke("health.query", params: query).errorCode == nil)
                    #expect(await gateway.invoke("health.summary", params: query) == .refused(reason: "command not allowlisted"))
                    #expect(gateway.snapshot().connects.last?.signatureVersion == "v3")
                }
                config.allowCommands = ["health.summary"]
                try await withConnectedNode(config, service: service, directory: dir, configure: {
                    $0.platform = "iOS 18.4"
                    $0.deviceFamily = "iPhone"
                }) { gateway, _ in
                    #expect(await gateway.invoke("health.summary", params: query).errorCode == nil)
                }
            }
        }

        @Test func aResultOverMaxPayloadBecomesAnError() async throws {
            try await withTemporaryDirectory { dir in
                // Four days and a three-day range: at least two whole days of heart rate, whatever the time of day
                // (two days gave a few samples in the first minutes after midnight).
                let service = try await makeDemoService(dir, days: 4)
                var config = TestGateway.Config()
                config.maxPayload = 4_096
                try await withConnectedNode(config, service: service, directory: dir) { gateway, _ in
                    let big = await gateway.invoke("health.query", params: .object([
                        "type": .string("heartRate"), "startISO": .string("3d"), "limit": .int(500)]))
                    #expect(big.errorCode == "UNAVAILABLE")
                    #expect(big.errorMessage?.contains("maxPayload (4096 bytes)") == true, "\(big)")
                    let small = await gateway.invoke("health.query", params: .object([
                        "type": .string("heartRate"), "startISO": .string("2d"), "limit": .int(3)]))
                    #expect(small.errorCode == nil, "\(small)")
                    #expect(gateway.snapshot().violations.isEmpty, "\(gateway.snapshot().violations)")
                }
            }
        }
    }
}
