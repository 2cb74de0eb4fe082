import Crypto
import Foundation
import HealthAPI
import HealthModel
import GatewayNode
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// A gateway on 127.0.0.1 (random port) that speaks the gateway side of the OpenClaw protocol, strictly:
/// `connect.challenge`, closed-schema validation of every frame the node sends (unknown keys → `INVALID_REQUEST`),
/// v2 and v3 device signatures, device id = sha256(publicKey), token auth, pairing, `hello-ok` with a device token,
/// ticks, `node.invoke.request` / `node.invoke.result` (late results acknowledged), `node.event`, and a command
/// policy like upstream's `node-command-policy.ts`.
public final class TestGateway: Sendable {
    public struct Config: Sendable {
        /// The shared token (`gateway.auth.token`); nil accepts any auth.
        public var token: String?
        /// The node ends a session after 2 × this without a frame; a second leaves room for a loaded machine.
        public var tickIntervalMs = 1_000
        public var maxPayload = 26_214_400
        /// Which signature versions this gateway verifies (an old gateway verifies only v2).
        public var verifyV2 = true
        public var verifyV3 = true
        /// Unknown devices are refused with NOT_PAIRED / PAIRING_REQUIRED until ``TestGateway/approve(_:)``.
        public var requirePairing = false
        public var issueDeviceToken = true
        /// `gateway.nodes.allowCommands` / `denyCommands`.
        public var allowCommands: [String] = CommandPolicy.healthCommands + ["health.sleep", "health.coverage"]
        public var denyCommands: [String] = []
        /// The first N connects are refused with retryable UNAVAILABLE and `retryAfterMs`.
        public var unavailableConnects = 0
        public var retryAfterMs = 0
        public var maxSkewMs: Int64 = 120_000
        /// Frames sent on every connection before `connect.challenge` (a misbehaving or hostile gateway).
        public var preChallengeFrames: [String] = []
        /// Whether every `node.invoke.result` is kept in ``State/results``; a long run (the soak) turns it off so the
        /// gateway does not hold every payload it was sent.
        public var retainResults = true
        /// When set, the gateway pings every connection this often and closes one whose pong does not come back.
        public var autoPing: Duration?
        /// Called for every `node.event` the gateway accepts, in the order of arrival, before the node's next frame
        /// is read (so before the result of an invoke the node answered after the event).
        public var onEvent: (@Sendable (EventRecord) -> Void)?
        /// Called when a node's session (after `hello-ok`) ends, with how it ended.
        public var onDisconnect: (@Sendable (DisconnectRecord) -> Void)?
        /// The logger of the HTTP/WebSocket server; nil logs nothing below `critical`.
        public var logger: Logger?
        /// The port on 127.0.0.1; 0 picks a free one (``TestGateway/port`` tells which).
        public var port = 0

        public init(token: String? = nil) { self.token = token }
    }

    public enum InvokeOutcome: Sendable, Equatable {
        case ok(payloadJSON: String?)
        case error(code: String, message: String)
        /// The gateway's own wait ended first.
        case timeout
        /// The command policy refused it: `INVALID_REQUEST "node command not allowed"` with a reason.
        case refused(reason: String)
        case noNode
    }

    public struct ConnectRecord: Sendable {
        public var deviceId: String?
        public var ok: Bool
        public var code: String?
        public var detailCode: String?
        public var signatureVersion: String?
        public var params: JSONValue?
    }

    public struct EventRecord: Sendable {
        public var nodeId: String
        public var event: String
        public var payloadJSON: String?
        public var at: ContinuousClock.Instant
        public var wallClock: Date
    }

    /// How a node's session (after `hello-ok`) ended.
    public struct DisconnectRecord: Sendable {
        public var connId: String
        public var nodeId: String
        /// The status code of the node's close frame; nil when the node sent none (or one without a code).
        public var closeCode: Int?
        /// Whether the node sent a close frame at all.
        public var closeFrameReceived: Bool
        /// Why it ended, for a report: "the node closed the connection (1000)", "closed by the gateway",
        /// "connection lost without a close frame".
        public var reason: String
        public var wallClock: Date
    }

    public struct Session: Sendable {
        public var connId: String
        public var nodeId: String
        public var platform: String
        public var deviceFamily: String?
        public var commands: [String]?
        public var send: @Sendable (String) -> Void
        public var close: @Sendable () -> Void
    }

    public struct State: Sendable {
        public var config: Config
        public var sessions: [String: Session] = [:]
        public var approved: Set<String> = []
        public var pairingRequests: [String: String] = [:]
        public var deviceTokens: [String: String] = [:]
        public var pending: [String: CheckedContinuation<InvokeOutcome, Never>] = [:]
        public var lateResults: [JSONValue] = []
        public var results: [JSONValue] = []
        public var events: [EventRecord] = []
        public var violations: [String] = []
        public var connects: [ConnectRecord] = []
        /// Sessions that ended, in order.
        public var disconnects: [DisconnectRecord] = []
        /// `tick` events sent, over all connections.
        public var ticksSent = 0
        public var socketsOpened = 0
        public var ticksPaused = false
        public var refuseConnections = false
        public var dropEventsWithoutAck = 0
        public var unavailableServed = 0
    }

    public let state: Mutex<State>
    public let port: Int
    public let serverTask: Task<Void, any Error>
    public var url: String { "ws://127.0.0.1:\(port)" }

    private init(config: Config, port: Int, serverTask: Task<Void, any Error>) {
        self.state = Mutex(State(config: config))
        self.port = port
        self.serverTask = serverTask
    }

    deinit { serverTask.cancel() }

    public static func start(_ config: Config = Config()) async throws -> TestGateway {
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let box = GatewayBox()
        var logger = Logger(label: "test-gateway")
        logger.logLevel = .critical
        if let configured = config.logger { logger = configured }
        let autoPing: AutoPingSetup = config.autoPing.map { .enabled(timePeriod: $0) } ?? .disabled
        let app = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: .init(ws: WebSocketServerConfiguration(
                maxFrameSize: 1 << 26, autoPing: autoPing, closeTimeout: .milliseconds(500)))) { _, channel, _ in
                // The node's close frame never reaches the WebSocket API: a handler before the HTTP/WebSocket
                // decoders reads it off the raw bytes.
                let closeFrame = CloseFrameBox()
                try channel.pipeline.syncOperations.addHandler(CloseFrameSniffer(box: closeFrame), position: .first)
                return .upgrade([:]) { inbound, outbound, _ in
                    guard let gateway = box.gateway else { return }
                    try await gateway.serve(inbound: inbound, outbound: outbound, closeFrame: closeFrame)
                }
            },
            configuration: .init(address: .hostname("127.0.0.1", port: config.port)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger)
        let task = Task {
            do {
                try await app.run()
            } catch {
                portSink.finish()  // never listened (the port is taken): `start` throws
                throw error
            }
        }
        var port = 0
        for await value in ports { port = value }
        guard port != 0 else {
            task.cancel()
            throw StartError(message: "the test gateway could not listen on 127.0.0.1:\(config.port)")
        }
        let gateway = TestGateway(config: config, port: port, serverTask: task)
        box.gateway = gateway
        return gateway
    }

    /// ``start(_:)`` found the gateway not listening (its port taken).
    public struct StartError: Error, Sendable {
        public var message: String
    }

    public func stop() async {
        let sessions = state.withLock { Array($0.sessions.values) }
        for session in sessions { session.close() }
        serverTask.cancel()
        _ = await serverTask.result
    }

    // MARK: Test controls

    public func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }
    public func snapshot() -> State { state.withLock { $0 } }

    /// Approves a device (`openclaw nodes approve`).
    public func approve(_ deviceId: String) { state.withLock { _ = $0.approved.insert(deviceId) } }

    /// Closes every node connection.
    public func dropConnections() {
        let sessions = state.withLock { Array($0.sessions.values) }
        for session in sessions { session.close() }
    }

    /// Polls until `condition` holds or `timeout` passes.
    @discardableResult
    public func wait(_ timeout: Duration = .seconds(20), until condition: (State) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ condition($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return state.withLock { condition($0) }
    }

    /// The connected node (the first one), waiting for it.
    public func waitForNode(_ timeout: Duration = .seconds(20)) async -> Session? {
        await wait(timeout) { !$0.sessions.isEmpty }
        return state.withLock { $0.sessions.values.first }
    }

    public func events(_ name: String = "health.update") -> [EventRecord] {
        state.withLock { $0.events.filter { $0.event == name } }
    }

    /// `node.invoke` as an operator calls it: policy check, `node.invoke.request`, wait for the result.
    public func invoke(_ command: String, params: JSONValue? = nil, paramsJSON: String?? = nil, timeoutMs: Int? = nil,
                gatewayTimeout: Duration? = nil, nodeId: String? = nil, bypassPolicy: Bool = false) async -> InvokeOutcome {
        guard let session = state.withLock({ state in
            nodeId.flatMap { id in state.sessions.values.first { $0.nodeId == id } } ?? state.sessions.values.first
        }) else { return .noNode }
        let (allow, deny) = state.withLock { ($0.config.allowCommands, $0.config.denyCommands) }
        let allowlist = CommandPolicy.allowlist(platform: session.platform, deviceFamily: session.deviceFamily,
                                                allow: allow, deny: deny)
        if !bypassPolicy, let reason = CommandPolicy.check(command, declared: session.commands, allowlist: allowlist) {
            return .refused(reason: reason)
        }
        let id = UUID().uuidString
        var payload: [String: JSONValue] = ["id": .string(id), "nodeId": .string(session.nodeId),
                                            "command": .string(command),
                                            "idempotencyKey": .string(UUID().uuidString)]
        switch paramsJSON {
        case .some(.some(let text)): payload["paramsJSON"] = .string(text)
        case .some(.none): payload["paramsJSON"] = .null
        case .none: if let params { payload["paramsJSON"] = .string(params.jsonText) }
        }
        if let timeoutMs { payload["timeoutMs"] = .int(Int64(timeoutMs)) }
        let wait = gatewayTimeout ?? .milliseconds(timeoutMs ?? 30_000)
        return await withCheckedContinuation { continuation in
            state.withLock { $0.pending[id] = continuation }
            session.send((try? GatewayWire.event("node.invoke.request", payload: .object(payload))) ?? "")
            Task {
                try? await Task.sleep(for: wait)
                let waiting = self.state.withLock { $0.pending.removeValue(forKey: id) }
                waiting?.resume(returning: .timeout)
            }
        }
    }

    // MARK: Serving one connection

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
               closeFrame: CloseFrameBox = CloseFrameBox()) async throws {
        let (texts, textSink) = AsyncStream<String>.makeStream()
        let (closeSignal, closeSink) = AsyncStream<Void>.makeStream()
        let connId = UUID().uuidString.lowercased()
        let refuse = state.withLock { state -> Bool in
            state.socketsOpened += 1
            return state.refuseConnections
        }
        if refuse { return }
        for frame in state.withLock({ $0.config.preChallengeFrames }) { textSink.yield(frame) }
        let nonce = UUID().uuidString
        let ts = Int64(Date().timeIntervalSince1970 * 1000)
        textSink.yield(try GatewayWire.event("connect.challenge",
                                             payload: .object(["nonce": .string(nonce), "ts": .int(ts)])))
        let connection = ServerConnection(connId: connId, nonce: nonce, ts: ts, send: { textSink.yield($0) },
                                          close: { closeSink.yield(); closeSink.finish() })
        let ending = LockedBox<String?>(nil)
        defer {
            let (session, hook) = state.withLock { ($0.sessions.removeValue(forKey: connId), $0.config.onDisconnect) }
            textSink.finish()
            if let session {
                let (received, code) = closeFrame.value
                // The gateway's own close first (the node's close frame then only answers it).
                let reason = ending.withLock { $0 } ?? (received
                    ? "the node closed the connection (\(code.map(String.init) ?? "no status code"))"
                    : "connection lost without a close frame")
                let record = DisconnectRecord(connId: connId, nodeId: session.nodeId, closeCode: code,
                                              closeFrameReceived: received, reason: reason, wallClock: Date())
                state.withLock { $0.disconnects.append(record) }
                hook?(record)
            }
        }
        // The writer drains what was queued (a refusal's response) before the connection closes.
        async let writer: Void = {
            for await text in texts { try await outbound.write(.text(text)) }
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in closeSignal {
                    ending.withLock { $0 = $0 ?? "closed by the gateway" }
                    return
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    let (interval, paused, live) = self.state.withLock {
                        ($0.config.tickIntervalMs, $0.ticksPaused, $0.sessions[connId] != nil)
                    }
                    try await Task.sleep(for: .milliseconds(interval))
                    if live && !paused {
                        textSink.yield(try GatewayWire.event("tick", payload: .object([
                            "ts": .int(Int64(Date().timeIntervalSince1970 * 1000))])))
                        self.state.withLock { $0.ticksSent += 1 }
                    }
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: 1 << 26) {
                    guard case .text(let text) = message else {
                        self.violation("binary frame")
                        ending.withLock { $0 = $0 ?? "closed by the gateway: a binary frame" }
                        return
                    }
                    if !self.handle(text, connection) {
                        ending.withLock { $0 = $0 ?? "closed by the gateway: refused or invalid frame" }
                        return
                    }
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
        textSink.finish()
        try await writer
    }

    struct ServerConnection: Sendable {
        var connId: String
        var nonce: String
        var ts: Int64
        var send: @Sendable (String) -> Void
        var close: @Sendable () -> Void
    }

    func violation(_ text: String) {
        state.withLock { $0.violations.append(text) }
    }

    func respond(_ connection: ServerConnection, id: String, ok: Bool, payload: JSONValue? = nil,
                 error: GatewayErrorShape? = nil) {
        connection.send((try? GatewayWire.encode(ResponseFrame(id: id, ok: ok, payload: payload, error: error))) ?? "")
    }

    /// Handles one frame from the node; false closes the connection.
    func handle(_ text: String, _ connection: ServerConnection) -> Bool {
        let maxPayload = state.withLock { $0.sessions[connection.connId] != nil ? $0.config.maxPayload : 64 * 1024 }
        if text.utf8.count > maxPayload {
            violation("frame of \(text.utf8.count) bytes over maxPayload \(maxPayload)")
            return false
        }
        guard let frame = try? JSONValue(json: text) else {
            violation("not JSON: \(text.prefix(80))")
            return false
        }
        let type = frame["type"]?.stringValue
        let schema: Schema = switch type {
        case "req": Schemas.requestFrame
        case "res": Schemas.responseFrame
        case "event": Schemas.eventFrame
        default: Schemas.requestFrame
        }
        if let problem = schema.validate(frame) {
            violation("frame: \(problem)")
            if let id = frame["id"]?.stringValue {
                respond(connection, id: id, ok: false, error: GatewayErrorShape(code: "INVALID_REQUEST", message: "invalid frame: \(problem)"))
            }
            return false
        }
        guard type == "req", let id = frame["id"]?.stringValue, let method = frame["method"]?.stringValue else {
            return true
        }
        let params = frame["params"] ?? .null
        let session = state.withLock { $0.sessions[connection.connId] }
        guard let session else {
            guard method == "connect" else {
                respond(connection, id: id, ok: false, error: GatewayErrorShape(code: "INVALID_REQUEST", message: "first request must be connect"))
                return false
            }
            return connect(id: id, params: params, connection)
        }
        switch method {
        case "node.invoke.result":
            if let problem = Schemas.invokeResult.validate(params) {
                violation("node.invoke.result: \(problem)")
                respond(connection, id: id, ok: false, error: GatewayErrorShape(code: "INVALID_REQUEST", message: "invalid node.invoke.result params: \(problem)"))
                return true
            }
            let invokeId = params["id"]?.stringValue ?? ""
            let outcome: InvokeOutcome
            if params["ok"]?.boolValue == true {
                outcome = .ok(payloadJSON: params["payloadJSON"]?.stringValue)
            } else {
                outcome = .error(code: params["error"]?["code"]?.stringValue ?? "UNAVAILABLE",
                                 message: params["error"]?["message"]?.stringValue ?? "")
            }
            let waiting = state.withLock { state -> CheckedContinuation<InvokeOutcome, Never>? in
                if state.config.retainResults { state.results.append(params) }
                guard params["nodeId"]?.stringValue == session.nodeId else { return nil }
                if let waiting = state.pending.removeValue(forKey: invokeId) { return waiting }
                state.lateResults.append(params)
                return nil
            }
            waiting?.resume(returning: outcome)
            // Upstream answers ok even for a late result.
            respond(connection, id: id, ok: true, payload: .object(["ok": .bool(true)]))
        case "node.event":
            if let problem = Schemas.nodeEvent.validate(params) {
                violation("node.event: \(problem)")
                respond(connection, id: id, ok: false, error: GatewayErrorShape(code: "INVALID_REQUEST", message: "invalid node.event params: \(problem)"))
                return true
            }
            let record = EventRecord(nodeId: session.nodeId, event: params["event"]?.stringValue ?? "",
                                     payloadJSON: params["payloadJSON"]?.stringValue, at: .now, wallClock: Date())
            let (drop, hook) = state.withLock { state -> (Bool, (@Sendable (EventRecord) -> Void)?) in
                state.events.append(record)
                if state.dropEventsWithoutAck > 0 {
                    state.dropEventsWithoutAck -= 1
                    return (true, state.config.onEvent)
                }
                return (false, state.config.onEvent)
            }
            hook?(record)
            if drop { return false }
            respond(connection, id: id, ok: true, payload: .object(["ok": .bool(true)]))
        default:
            respond(connection, id: id, ok: false, error: GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown method: \(method)"))
        }
        return true
    }

    /// The handshake: schema, protocol, device proof, auth, pairing; then hello-ok.
    func connect(id: String, params: JSONValue, _ connection: ServerConnection) -> Bool {
        func refuse(_ code: String, _ message: String, detail: String? = nil, extra: [String: JSONValue] = [:],
                    retryable: Bool? = nil, retryAfterMs: Int? = nil, version: String? = nil) -> Bool {
            var details = extra
            if let detail { details["code"] = .string(detail) }
            respond(connection, id: id, ok: false, error: GatewayErrorShape(
                code: code, message: message, details: details.isEmpty ? nil : .object(details),
                retryable: retryable, retryAfterMs: retryAfterMs))
            state.withLock {
                $0.connects.append(ConnectRecord(deviceId: params["device"]?["id"]?.stringValue, ok: false, code: code,
                                                 detailCode: detail, signatureVersion: version, params: params))
            }
            return false
        }
        if let problem = Schemas.connectParams.validate(params) {
            violation("connect: \(problem)")
            return refuse("INVALID_REQUEST", "invalid connect params: \(problem)")
        }
        let config = state.withLock { $0.config }
        let unavailable = state.withLock { state -> Bool in
            guard state.unavailableServed < state.config.unavailableConnects else { return false }
            state.unavailableServed += 1
            return true
        }
        if unavailable {
            return refuse("UNAVAILABLE", "gateway starting", extra: ["reason": .string("startup-sidecars")],
                          retryable: true, retryAfterMs: config.retryAfterMs)
        }
        let minProtocol = params["minProtocol"]?.intValue ?? 0, maxProtocol = params["maxProtocol"]?.intValue ?? 0
        guard minProtocol <= 4, maxProtocol >= 3 else {
            return refuse("INVALID_REQUEST", "protocol mismatch", detail: "PROTOCOL_MISMATCH")
        }
        let negotiated = min(maxProtocol, 4)
        guard let device = params["device"] else {
            return refuse("NOT_PAIRED", "device identity required", detail: "DEVICE_IDENTITY_REQUIRED")
        }
        let deviceId = device["id"]?.stringValue ?? ""
        guard let publicKeyRaw = Base64URL.decode(device["publicKey"]?.stringValue ?? ""), publicKeyRaw.count == 32,
              let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKeyRaw) else {
            return refuse("INVALID_REQUEST", "device public key invalid", detail: "DEVICE_AUTH_PUBLIC_KEY_INVALID")
        }
        guard DeviceIdentity.deviceId(publicKey: publicKeyRaw) == deviceId else {
            return refuse("INVALID_REQUEST", "device identity mismatch", detail: "DEVICE_AUTH_DEVICE_ID_MISMATCH")
        }
        guard device["nonce"]?.stringValue == connection.nonce else {
            return refuse("INVALID_REQUEST", "device nonce mismatch", detail: "DEVICE_AUTH_NONCE_MISMATCH")
        }
        let signedAt = device["signedAt"]?.intValue ?? 0
        guard abs(Int64(Date().timeIntervalSince1970 * 1000) - signedAt) <= config.maxSkewMs else {
            return refuse("INVALID_REQUEST", "device signature expired", detail: "DEVICE_AUTH_SIGNATURE_EXPIRED")
        }
        // Auth: the shared token, or this device's token as auth.token or auth.deviceToken.
        let auth = params["auth"]
        let token = auth?["token"]?.stringValue
        let issued = state.withLock { $0.deviceTokens[deviceId] }
        if let required = config.token {
            let viaShared = token == required
            let viaDevice = issued != nil && (token == issued || auth?["deviceToken"]?.stringValue == issued)
            guard viaShared || viaDevice else {
                if token == nil {
                    return refuse("INVALID_REQUEST", "unauthorized: gateway token missing", detail: "AUTH_TOKEN_MISSING")
                }
                return refuse("INVALID_REQUEST", "unauthorized: gateway token mismatch", detail: "AUTH_TOKEN_MISMATCH",
                              extra: ["canRetryWithDeviceToken": .bool(false)])
            }
        }
        // The device proof: v3 (platform and device family signed), else v2.
        let client = params["client"]
        let clientId = client?["id"]?.stringValue ?? "", mode = client?["mode"]?.stringValue ?? ""
        let role = params["role"]?.stringValue ?? "node"
        let scopes = params["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let signature = Base64URL.decode(device["signature"]?.stringValue ?? "") ?? Data()
        var version: String?
        if config.verifyV3 {
            let payload = DeviceAuthPayload.v3(deviceId: deviceId, clientId: clientId, clientMode: mode, role: role,
                                               scopes: scopes, signedAtMs: signedAt, token: token,
                                               nonce: connection.nonce, platform: client?["platform"]?.stringValue,
                                               deviceFamily: client?["deviceFamily"]?.stringValue)
            if publicKey.isValidSignature(signature, for: Data(payload.utf8)) { version = "v3" }
        }
        if version == nil, config.verifyV2 {
            let payload = DeviceAuthPayload.v2(deviceId: deviceId, clientId: clientId, clientMode: mode, role: role,
                                               scopes: scopes, signedAtMs: signedAt, token: token,
                                               nonce: connection.nonce)
            if publicKey.isValidSignature(signature, for: Data(payload.utf8)) { version = "v2" }
        }
        guard let version else {
            return refuse("INVALID_REQUEST", "device signature invalid", detail: "DEVICE_AUTH_SIGNATURE_INVALID")
        }
        if config.requirePairing {
            let (approved, requestId) = state.withLock { state -> (Bool, String) in
                let requestId = state.pairingRequests.first { $0.value == deviceId }?.key ?? UUID().uuidString.lowercased()
                state.pairingRequests[requestId] = deviceId
                return (state.approved.contains(deviceId), requestId)
            }
            if !approved {
                return refuse("NOT_PAIRED", "pairing required", detail: "PAIRING_REQUIRED",
                              extra: ["requestId": .string(requestId), "reason": .string("not-paired")], version: version)
            }
        }
        let deviceToken: String? = config.issueDeviceToken ? state.withLock { state in
            if let token = state.deviceTokens[deviceId] { return token }
            let token = "dt-" + UUID().uuidString.lowercased()
            state.deviceTokens[deviceId] = token
            return token
        } : nil
        var authObject: [String: JSONValue] = ["role": .string(role), "scopes": .array([])]
        if let deviceToken { authObject["deviceToken"] = .string(deviceToken) }
        let hello: JSONValue = .object([
            "type": .string("hello-ok"),
            "protocol": .int(negotiated),
            "server": .object(["version": .string("test-gateway"), "connId": .string(connection.connId)]),
            "features": .object(["methods": .array([.string("node.invoke.result"), .string("node.event")]),
                                 "events": .array([.string("tick"), .string("node.invoke.request")])]),
            "snapshot": .object(["presence": .array([]), "health": .object([:]),
                                 "stateVersion": .object(["presence": .int(0), "health": .int(0)]),
                                 "uptimeMs": .int(0)]),
            "auth": .object(authObject),
            "policy": .object(["maxPayload": .int(Int64(config.maxPayload)), "maxBufferedBytes": .int(52_428_800),
                               "tickIntervalMs": .int(Int64(config.tickIntervalMs))]),
        ])
        let session = Session(connId: connection.connId, nodeId: deviceId,
                              platform: client?["platform"]?.stringValue ?? "",
                              deviceFamily: client?["deviceFamily"]?.stringValue,
                              commands: params["commands"]?.arrayValue?.compactMap(\.stringValue),
                              send: connection.send, close: connection.close)
        state.withLock { state in
            state.sessions[connection.connId] = session
            state.connects.append(ConnectRecord(deviceId: deviceId, ok: true, code: nil, detailCode: nil,
                                                signatureVersion: version, params: params))
        }
        respond(connection, id: id, ok: true, payload: hello)
        return true
    }
}

/// A value behind a lock, shareable with child tasks (a `Mutex` cannot be captured by them).
final class LockedBox<Value: Sendable>: Sendable {
    private let lock: Mutex<Value>
    init(_ value: Value) { lock = Mutex(value) }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&$0) } }
}

/// What a connection's ``CloseFrameSniffer`` saw: whether the node sent a close frame, and its status code.
final class CloseFrameBox: Sendable {
    private let lock = Mutex<(received: Bool, code: Int?)>((false, nil))
    var value: (received: Bool, code: Int?) { lock.withLock { $0 } }
    func record(code: Int?) { lock.withLock { $0 = (true, code) } }
}

/// Reads the WebSocket frames a client sends off the raw bytes (first in the pipeline, added at the upgrade, so it
/// sees only what follows the HTTP request) and records the first close frame's status code. Passes every byte on.
final class CloseFrameSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let box: CloseFrameBox
    /// Bytes of a frame header (or of a close frame) not complete yet.
    private var pending = ByteBuffer()
    /// Payload bytes of the current (non-close) frame still to skip.
    private var skip = 0
    private var done = false

    init(box: CloseFrameBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !done {
            var bytes = unwrapInboundIn(data)
            scan(&bytes)
        }
        context.fireChannelRead(data)
    }

    private func scan(_ bytes: inout ByteBuffer) {
        let skipped = min(skip, bytes.readableBytes)
        bytes.moveReaderIndex(forwardBy: skipped)
        skip -= skipped
        pending.writeBuffer(&bytes)
        while skip == 0, !done, pending.readableBytes >= 2,
              let first = pending.getInteger(at: pending.readerIndex, as: UInt8.self),
              let second = pending.getInteger(at: pending.readerIndex + 1, as: UInt8.self) {
            let opcode = first & 0x0F, masked = second & 0x80 != 0, short = Int(second & 0x7F)
            let lengthBytes = short == 126 ? 2 : short == 127 ? 8 : 0
            let header = 2 + lengthBytes + (masked ? 4 : 0)
            guard pending.readableBytes >= header else { break }
            var length = short
            if lengthBytes == 2 {
                length = Int(pending.getInteger(at: pending.readerIndex + 2, as: UInt16.self) ?? 0)
            } else if lengthBytes == 8 {
                length = Int(clamping: pending.getInteger(at: pending.readerIndex + 2, as: UInt64.self) ?? 0)
            }
            if opcode == 0x8 {
                // A close frame's payload is at most 125 bytes (RFC 6455 §5.5); a longer one has no code to read.
                guard length <= 125 else {
                    box.record(code: nil)
                    done = true
                    pending = ByteBuffer()
                    return
                }
                guard pending.readableBytes >= header + length else { break }
                var code: Int?
                if length >= 2, let high = pending.getInteger(at: pending.readerIndex + header, as: UInt8.self),
                   let low = pending.getInteger(at: pending.readerIndex + header + 1, as: UInt8.self) {
                    var mask: (UInt8, UInt8) = (0, 0)
                    if masked, let m0 = pending.getInteger(at: pending.readerIndex + header - 4, as: UInt8.self),
                       let m1 = pending.getInteger(at: pending.readerIndex + header - 3, as: UInt8.self) {
                        mask = (m0, m1)
                    }
                    code = Int(high ^ mask.0) << 8 | Int(low ^ mask.1)
                }
                box.record(code: code)
                done = true
                pending = ByteBuffer()
                return
            }
            pending.moveReaderIndex(forwardBy: header)
            let available = min(length, pending.readableBytes)
            pending.moveReaderIndex(forwardBy: available)
            skip = length - available
        }
        pending.discardReadBytes()
    }
}

final class GatewayBox: Sendable {
    private let lock = Mutex<TestGateway?>(nil)
    var gateway: TestGateway? {
        get { lock.withLock { $0 } }
        set { lock.withLock { $0 = newValue } }
    }
}

// MARK: - Command policy

/// Like upstream's `node-command-policy.ts`: per-platform defaults, dangerous commands left out unless allowed,
/// `allowCommands` / `denyCommands` (deny wins), and the node must declare the command.
public enum CommandPolicy {
    public static let healthCommands = ["health.query", "health.summary", "health.subscribe", "health.unsubscribe"]
    public static let canvas = ["canvas.present", "canvas.hide", "canvas.navigate", "canvas.eval", "canvas.snapshot"]
    public static let camera = ["camera.list", "camera.snap", "camera.clip"]
    public static let location = ["location.get"]
    public static let system = ["system.run", "system.which", "system.notify", "browser.proxy"]
    /// Excluded from the defaults unless explicitly allowed.
    public static let dangerous: Set<String> = ["camera.snap", "camera.clip", "screen.record", "sms.send", "system.run",
                                         "browser.proxy", "health.summary"]
    public static let platformDefaults: [String: [String]] = [
        "ios": canvas + camera + location + ["device.info", "motion.activity", "motion.pedometer"] + healthCommands,
        "android": canvas + camera + location + ["device.info", "sms.send"],
        "macos": canvas + camera + location + ["system.notify"],
        "linux": ["system.notify", "system.which"],
        "windows": ["system.notify", "system.which"],
        "watchos": ["device.info", "device.status", "system.notify"],
        "unknown": canvas + camera + location + ["system.notify"],
    ]

    public static func normalizePlatform(_ platform: String?, _ deviceFamily: String?) -> String {
        let raw = (platform ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        if raw.hasPrefix("ios") || raw.hasPrefix("ipados") { return "ios" }
        if raw.hasPrefix("android") { return "android" }
        if raw.hasPrefix("mac") || raw.hasPrefix("darwin") { return "macos" }
        if raw.hasPrefix("win") { return "windows" }
        if raw.hasPrefix("linux") { return "linux" }
        if raw.hasPrefix("watchos") { return "watchos" }
        let family = (deviceFamily ?? "").lowercased()
        if family.contains("iphone") || family.contains("ipad") { return "ios" }
        if family.contains("android") { return "android" }
        if family.contains("mac") { return "macos" }
        if family.contains("linux") { return "linux" }
        return "unknown"
    }

    public static func allowlist(platform: String?, deviceFamily: String?, allow: [String], deny: [String]) -> Set<String> {
        let base = (platformDefaults[normalizePlatform(platform, deviceFamily)] ?? platformDefaults["unknown"]!)
            .filter { !dangerous.contains($0) }
        var result = Set(base).union(allow.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        for blocked in deny { result.remove(blocked.trimmingCharacters(in: .whitespaces)) }
        return result
    }

    /// nil when allowed, else the reason.
    public static func check(_ command: String, declared: [String]?, allowlist: Set<String>) -> String? {
        let command = command.trimmingCharacters(in: .whitespaces)
        if command.isEmpty { return "command required" }
        if !allowlist.contains(command) { return "command not allowlisted" }
        guard let declared, !declared.isEmpty else { return "node did not declare commands" }
        if !declared.contains(command) { return "command not declared by node" }
        return nil
    }
}

// MARK: - Closed schemas

/// A small JSON-schema validator for the gateway's TypeBox schemas: objects are closed, optionals may be absent
/// but never `null`.
public indirect enum Schema: Sendable {
    case string
    case nonEmptyString
    case integer(minimum: Int64?)
    case boolean
    case unknown
    case literal(String)
    case oneOf([String])
    case array(Schema)
    case record(Schema)
    case object([String: Schema], required: Set<String>)

    /// nil when valid, else what is wrong and where.
    public func validate(_ value: JSONValue, at path: String = "$") -> String? {
        switch self {
        case .unknown:
            return nil
        case .string:
            return value.stringValue == nil ? "\(path) must be a string" : nil
        case .nonEmptyString:
            guard let text = value.stringValue, !text.isEmpty else { return "\(path) must be a non-empty string" }
            return nil
        case .integer(let minimum):
            guard let number = value.intValue else { return "\(path) must be an integer" }
            if let minimum, number < minimum { return "\(path) must be ≥ \(minimum)" }
            return nil
        case .boolean:
            return value.boolValue == nil ? "\(path) must be a boolean" : nil
        case .literal(let expected):
            return value.stringValue == expected ? nil : "\(path) must be \"\(expected)\""
        case .oneOf(let allowed):
            guard let text = value.stringValue, allowed.contains(text) else {
                return "\(path) must be one of \(allowed.joined(separator: ", "))"
            }
            return nil
        case .array(let element):
            guard let items = value.arrayValue else { return "\(path) must be an array" }
            for (index, item) in items.enumerated() {
                if let problem = element.validate(item, at: "\(path)[\(index)]") { return problem }
            }
            return nil
        case .record(let element):
            guard let object = value.objectValue else { return "\(path) must be an object" }
            for (key, item) in object.sorted(by: { $0.key < $1.key }) {
                if key.isEmpty { return "\(path) has an empty key" }
                if let problem = element.validate(item, at: "\(path).\(key)") { return problem }
            }
            return nil
        case .object(let properties, let required):
            guard let object = value.objectValue else { return "\(path) must be an object" }
            for key in object.keys.sorted() where properties[key] == nil {
                return "\(path) has unknown key '\(key)'"
            }
            for key in required.sorted() where object[key] == nil {
                return "\(path) lacks '\(key)'"
            }
            for (key, item) in object.sorted(by: { $0.key < $1.key }) {
                if let problem = properties[key]?.validate(item, at: "\(path).\(key)") { return problem }
            }
            return nil
        }
    }
}

/// The gateway's schemas for what a node sends.
public enum Schemas {
    public static let clientIds = ["webchat-ui", "openclaw-control-ui", "webchat", "cli", "gateway-client", "openclaw-macos",
                            "openclaw-linux", "openclaw-ios", "openclaw-watchos", "openclaw-android", "node-host",
                            "test", "fingerprint", "openclaw-probe"]
    public static let clientModes = ["node", "cli", "ui", "backend", "worker", "probe", "test", "webchat"]

    public static let errorShape = Schema.object([
        "code": .nonEmptyString, "message": .nonEmptyString, "details": .unknown, "retryable": .boolean,
        "retryAfterMs": .integer(minimum: 0),
    ], required: ["code", "message"])

    public static let requestFrame = Schema.object([
        "type": .literal("req"), "id": .nonEmptyString, "method": .nonEmptyString, "params": .unknown,
    ], required: ["type", "id", "method"])

    public static let responseFrame = Schema.object([
        "type": .literal("res"), "id": .nonEmptyString, "ok": .boolean, "payload": .unknown, "error": errorShape,
    ], required: ["type", "id", "ok"])

    public static let eventFrame = Schema.object([
        "type": .literal("event"), "event": .nonEmptyString, "payload": .unknown, "seq": .integer(minimum: 0),
        "stateVersion": .unknown,
    ], required: ["type", "event"])

    public static let connectParams = Schema.object([
        "minProtocol": .integer(minimum: 1),
        "maxProtocol": .integer(minimum: 1),
        "client": .object([
            "id": .oneOf(clientIds), "displayName": .nonEmptyString, "version": .nonEmptyString,
            "platform": .nonEmptyString, "deviceFamily": .nonEmptyString, "modelIdentifier": .nonEmptyString,
            "mode": .oneOf(clientModes), "instanceId": .nonEmptyString,
        ], required: ["id", "version", "platform", "mode"]),
        "caps": .array(.nonEmptyString),
        "commands": .array(.nonEmptyString),
        "permissions": .record(.boolean),
        "pathEnv": .string,
        "role": .nonEmptyString,
        "scopes": .array(.nonEmptyString),
        "device": .object([
            "id": .nonEmptyString, "publicKey": .nonEmptyString, "signature": .nonEmptyString,
            "signedAt": .integer(minimum: 0), "nonce": .nonEmptyString,
        ], required: ["id", "publicKey", "signature", "signedAt", "nonce"]),
        "auth": .object([
            "token": .string, "deviceToken": .string, "bootstrapToken": .string, "password": .string,
        ], required: []),
        "locale": .string,
        "userAgent": .string,
    ], required: ["minProtocol", "maxProtocol", "client"])

    public static let invokeResult = Schema.object([
        "id": .nonEmptyString, "nodeId": .nonEmptyString, "ok": .boolean, "payload": .unknown,
        "payloadJSON": .string,
        "error": .object(["code": .nonEmptyString, "message": .nonEmptyString], required: []),
    ], required: ["id", "nodeId", "ok"])

    public static let nodeEvent = Schema.object([
        "event": .nonEmptyString, "payload": .unknown, "payloadJSON": .string,
    ], required: ["event"])

    // The plan's payloads (extension fields allowed, as the plan's Swift decoders ignore them).
    public static let sample = Schema.object([
        "dateISO": .nonEmptyString, "endDateISO": .string, "value": .unknown, "unit": .string, "category": .string,
        "source": .string,
    ], required: ["dateISO"])

    public static let updatePayload = Schema.object([
        "type": .nonEmptyString, "latestSamples": .array(sample),
    ], required: ["type", "latestSamples"])
}
