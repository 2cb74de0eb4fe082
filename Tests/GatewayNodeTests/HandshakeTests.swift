import Foundation
import GatewayNode
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthService
import HummingbirdWSClient
import Logging
import Synchronization
import Testing

extension GatewayNodeTests {
    @Suite struct Handshake {
        @Test func theNodeConnectsWithClosedParamsAndAV3SignatureAndKeepsItsDeviceToken() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                let gateway = try await TestGateway.start()
                defer { Task { await gateway.stop() } }
                let first = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(await gateway.waitForNode() != nil)
                #expect(await first.log.wait { if case .connected = $0 { true } else { false } })

                let state = gateway.snapshot()
                #expect(state.violations.isEmpty, "\(state.violations)")
                let record = try #require(state.connects.last)
                #expect(record.ok)
                #expect(record.signatureVersion == "v3")
                let params = try #require(record.params)
                #expect(params["minProtocol"]?.intValue == 3)
                #expect(params["maxProtocol"]?.intValue == 4)
                #expect(params["role"]?.stringValue == "node")
                #expect(params["scopes"]?.arrayValue == [])
                #expect(params["caps"]?.arrayValue == [.string("health")])
                #expect(params["commands"]?.arrayValue?.compactMap(\.stringValue)
                        == ["health.query", "health.summary", "health.subscribe", "health.unsubscribe", "health.sleep",
                            "health.coverage"])
                #expect(params["permissions"] == .object(["health": .bool(true)]))
                #expect(params["client"]?["id"]?.stringValue == "node-host")
                #expect(params["client"]?["mode"]?.stringValue == "node")
                #expect(params["client"]?["platform"]?.stringValue == "linux")
                #expect(params["client"]?["displayName"]?.stringValue == "Test node")
                #expect(params["device"]?["id"]?.stringValue == first.deviceId)
                #expect(params["auth"] == nil, "no token configured and none stored yet")
                #expect(first.deviceId.count == 64 && first.deviceId.allSatisfy { $0.isHexDigit && !$0.isUppercase })

                // The identity and the issued device token are kept, owner-only.
                for name in [DeviceIdentity.fileName, DeviceAuthStore.fileName] {
                    let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)
                    #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
                }
                let issued = try #require(state.deviceTokens[first.deviceId])
                #expect(first.node.authStore.token(gateway: gateway.url, deviceId: first.deviceId, role: "node") == issued)
                await first.stop()

                // Next time: the same identity, and the device token as auth.token on every connect it makes.
                let before = gateway.snapshot().connects.count
                let second = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(second.deviceId == first.deviceId)
                #expect(await second.log.wait(.seconds(60)) { if case .connected = $0 { true } else { false } })
                let connects = gateway.snapshot().connects.dropFirst(before)
                #expect(connects.contains { $0.ok }, "\(second.log.all)")
                for again in connects {
                    #expect(again.deviceId == first.deviceId)
                    #expect(again.params?["auth"] == .object(["token": .string(issued)]))
                }
                await second.stop()
            }
        }

        @Test func aBadSignatureADeviceIdMismatchAStaleNonceOrAnUnknownKeyIsRefused() async throws {
            let gateway = try await TestGateway.start()
            defer { Task { await gateway.stop() } }
            let identity = DeviceIdentity.generate()

            let valid = try await rawConnect(gateway, identity: identity) { _, _ in }
            #expect(valid.ok, "\(String(describing: valid.error))")

            let badSignature = try await rawConnect(gateway, identity: identity) { params, _ in
                var device = params["device"]!.objectValue!
                device["signature"] = .string(try! identity.sign("something else"))
                params["device"] = .object(device)
            }
            #expect(!badSignature.ok)
            #expect(badSignature.error?.detailCode == "DEVICE_AUTH_SIGNATURE_INVALID")

            let other = DeviceIdentity.generate()
            let wrongId = try await rawConnect(gateway, identity: identity) { params, _ in
                var device = params["device"]!.objectValue!
                device["id"] = .string(other.deviceId)
                params["device"] = .object(device)
            }
            #expect(wrongId.error?.detailCode == "DEVICE_AUTH_DEVICE_ID_MISMATCH")

            let wrongKey = try await rawConnect(gateway, identity: identity) { params, _ in
                var device = params["device"]!.objectValue!
                device["publicKey"] = .string(other.publicKeyBase64URL)
                params["device"] = .object(device)
            }
            #expect(wrongKey.error?.detailCode == "DEVICE_AUTH_DEVICE_ID_MISMATCH")

            let staleNonce = try await rawConnect(gateway, identity: identity) { params, _ in
                var device = params["device"]!.objectValue!
                device["nonce"] = .string("an-old-nonce")
                params["device"] = .object(device)
            }
            #expect(staleNonce.error?.detailCode == "DEVICE_AUTH_NONCE_MISMATCH")

            let unknownKey = try await rawConnect(gateway, identity: identity) { params, _ in
                params["health"] = .bool(true)
            }
            #expect(unknownKey.error?.code == "INVALID_REQUEST")
            #expect(unknownKey.error?.message.contains("unknown key 'health'") == true)

            let nullValue = try await rawConnect(gateway, identity: identity) { params, _ in
                var client = params["client"]!.objectValue!
                client["deviceFamily"] = .null
                params["client"] = .object(client)
            }
            #expect(nullValue.error?.code == "INVALID_REQUEST", "optional keys are omitted, never null")
            #expect(gateway.snapshot().sessions.count <= 1)
        }

        @Test func aGatewayThatVerifiesOnlyV2GetsAV2Signature() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.verifyV3 = false
                try await withConnectedNode(config, service: service, directory: dir) { gateway, node in
                    let connects = gateway.snapshot().connects
                    #expect(connects.first?.detailCode == "DEVICE_AUTH_SIGNATURE_INVALID")
                    #expect(connects.last?.ok == true)
                    #expect(connects.last?.signatureVersion == "v2")
                    #expect(node.log.contains { if case .connected = $0 { true } else { false } })
                }
            }
        }

        @Test func aWrongOrMissingTokenIsReportedAsAnAuthFailure() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.token = "the-gateway-token"
                let gateway = try await TestGateway.start(config)
                defer { Task { await gateway.stop() } }

                let wrong = try startNode(testConfiguration(gateway, token: "not-it"), service: service, directory: dir)
                #expect(await wrong.log.wait { if case .authFailed(let code, _) = $0 { code == "AUTH_TOKEN_MISMATCH" } else { false } })
                await wrong.stop()
                #expect(gateway.snapshot().sessions.isEmpty)

                let missing = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(await missing.log.wait { if case .authFailed(let code, _) = $0 { code == "AUTH_TOKEN_MISSING" } else { false } })
                await missing.stop()

                let right = try startNode(testConfiguration(gateway, token: "the-gateway-token"), service: service,
                                          directory: dir)
                #expect(await gateway.waitForNode() != nil)
                // The node keeps the device token when it handles hello-ok, just before it reports `connected`.
                #expect(await right.log.wait { if case .connected = $0 { true } else { false } })
                #expect(gateway.snapshot().connects.last?.params?["auth"]?["token"]?.stringValue == "the-gateway-token")
                await right.stop()

                // Later runs without --token use the device token the gateway issued.
                let later = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(await later.log.wait { if case .connected = $0 { true } else { false } })
                await later.stop()
            }
        }

        @Test func anUnapprovedNodeWaitsForPairingThenConnects() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.requirePairing = true
                let gateway = try await TestGateway.start(config)
                defer { Task { await gateway.stop() } }
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(await node.log.wait { if case .pairingRequired(let id, let request) = $0 { id == node.deviceId && request != nil } else { false } })
                #expect(gateway.snapshot().sessions.isEmpty)
                #expect(gateway.snapshot().pairingRequests.values.contains(node.deviceId))
                gateway.approve(node.deviceId)
                #expect(await gateway.waitForNode() != nil)
                #expect(await node.log.wait { if case .connected = $0 { true } else { false } })
                await node.stop()
            }
        }

        @Test func retryAfterMsFromAStartingGatewayIsHonoured() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.unavailableConnects = 1
                config.retryAfterMs = 700
                let gateway = try await TestGateway.start(config)
                defer { Task { await gateway.stop() } }
                let started = ContinuousClock.now
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                #expect(await gateway.waitForNode() != nil)
                let elapsed = ContinuousClock.now - started
                #expect(elapsed >= .milliseconds(700), "reconnected after \(elapsed), before retryAfterMs")
                #expect(elapsed < .seconds(10))
                #expect(gateway.snapshot().connects.first?.code == "UNAVAILABLE")
                await node.stop()
            }
        }

        @Test func tickSilenceMakesTheNodeReconnect() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                var config = TestGateway.Config()
                config.tickIntervalMs = 1_000
                try await withConnectedNode(config, service: service, directory: dir) { gateway, node in
                    // Ticks flow: the connection stays up past 2 × tickIntervalMs.
                    try await Task.sleep(for: .milliseconds(3_000))
                    #expect(gateway.snapshot().socketsOpened == 1)
                    gateway.update { $0.ticksPaused = true }
                    #expect(await node.log.wait(.seconds(10)) {
                        if case .disconnected(let reason, _) = $0 { reason.contains("tick") } else { false }
                    })
                    gateway.update { $0.ticksPaused = false }
                    #expect(await gateway.wait { $0.socketsOpened >= 2 && !$0.sessions.isEmpty })
                    #expect(await waitFor { node.log.connectedCount >= 2 })
                }
            }
        }

        @Test func backoffGrowsWhileTheGatewayIsAway() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                let gateway = try await TestGateway.start()
                gateway.update { $0.refuseConnections = true }
                defer { Task { await gateway.stop() } }
                let node = try startNode(testConfiguration(gateway), service: service, directory: dir)
                func delays() -> [Int] {
                    node.log.all.compactMap { status -> Int? in
                        if case .disconnected(_, let ms) = status { ms } else { nil }
                    }
                }
                // Enough attempts to reach the cap: on a loaded machine each attempt takes longer, so wait for them.
                _ = await waitFor(.seconds(20)) { delays().count >= 5 }
                let delays = delays()
                // 50 ms doubling to the 400 ms cap, ±20 % jitter.
                #expect(delays.count >= 5)
                #expect(delays.first.map { (40...60).contains($0) } == true, "\(delays)")
                #expect(delays.allSatisfy { $0 <= 400 }, "\(delays)")
                #expect(delays.suffix(2).allSatisfy { $0 >= 320 }, "\(delays)")
                gateway.update { $0.refuseConnections = false }
                #expect(await gateway.waitForNode() != nil)
                await node.stop()
            }
        }
    }
}

/// Connects with a hand-made `connect` (valid, then changed by `mutate`) and returns the gateway's answer.
func rawConnect(_ gateway: TestGateway, identity: DeviceIdentity,
                mutate: @escaping @Sendable (inout [String: JSONValue], ConnectChallenge) throws -> Void) async throws -> ResponseFrame {
    let answer = LockedValue<ResponseFrame?>(nil)
    var logger = Logger(label: "raw-client")
    logger.logLevel = .critical
    try await WebSocketClient.connect(url: gateway.url, configuration: .init(closeTimeout: .milliseconds(200)),
                                      logger: logger) { inbound, outbound, _ in
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        guard case .text(let first) = try await messages.next(),
              case .event(let event) = try GatewayFrame.decode(first), event.event == "connect.challenge",
              let challenge = try event.payload?.decode(ConnectChallenge.self) else { return }
        let client = ClientInfo(id: "node-host", version: "1.0", platform: "linux", mode: "node")
        let payload = DeviceAuthPayload.v3(deviceId: identity.deviceId, clientId: client.id, clientMode: client.mode,
                                           role: "node", scopes: [], signedAtMs: challenge.ts, token: nil,
                                           nonce: challenge.nonce, platform: client.platform, deviceFamily: nil)
        let params = ConnectParams(client: client, caps: ["health"], commands: ["health.query"],
                                   permissions: ["health": true],
                                   device: try identity.proof(payload: payload, signedAt: challenge.ts, nonce: challenge.nonce),
                                   auth: nil)
        var object = try JSONValue.encode(params).objectValue ?? [:]
        try mutate(&object, challenge)
        let frame: JSONValue = .object(["type": .string("req"), "id": .string("c1"), "method": .string("connect"),
                                        "params": .object(object)])
        try await outbound.write(.text(frame.jsonText))
        while let message = try await messages.next() {
            guard case .text(let text) = message, case .response(let response) = try GatewayFrame.decode(text),
                  response.id == "c1" else { continue }
            answer.withLock { $0 = response }
            return
        }
    }
    return try #require(answer.withLock { $0 })
}

@Suite(.serialized) struct GatewayNodeTests {}
