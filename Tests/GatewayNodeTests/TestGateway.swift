import Crypto
import Foundation
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
final class TestGateway: Sendable {
    struct Config: Sendable {
        /// The shared token (`gateway.auth.token`); nil accepts any auth.
        var token: String?
        /// The node ends a session after 2 × this without a frame; a second leaves room for a loaded machine.
        var tickIntervalMs = 1_000
        var maxPayload = 26_214_400
        /// Which signature versions this gateway verifies (an old gateway verifies only v2).
        var verifyV2 = true
        var verifyV3 = true
        /// Unknown devices are refused with NOT_PAIRED / PAIRING_REQUIRED until ``TestGateway/approve(_:)``.
        var requirePairing = false
        var issueDeviceToken = true
        /// `gateway.nodes.allowCommands` / `denyCommands`.
        var allowCommands: [String] = CommandPolicy.healthCommands + ["health.sleep"]
        var denyCommands: [String] = []
        /// The first N connects are refused with retryable UNAVAILABLE and `retryAfterMs`.
        var unavailableConnects = 0
        var retryAfterMs = 0
        var maxSkewMs: Int64 = 120_000
        /// Frames sent on every connection before `connect.challenge` (a misbehaving or hostile gateway).
        var preChallengeFrames: [String] = []
    }

    enum InvokeOutcome: Sendable, Equatable {
        case ok(payloadJSON: String?)
        case error(code: String, message: String)
        /// The gateway's own wait ended first.
        case timeout
        /// The command policy refused it: `INVALID_REQUEST "node command not allowed"` with a reason.
        case refused(reason: String)
        case noNode
    }

    struct ConnectRecord: Sendable {
        var deviceId: String?
        var ok: Bool
        var code: String?
        var detailCode: String?
        var signatureVersion: String?
        var params: JSONValue?
    }

    struct EventRecord: Sendable {
        var nodeId: String
        var event: String
        var payloadJSON: String?
        var at: ContinuousClock.Instant
        var wallClock: Date
    }

    struct Session: Sendable {
        var connId: String
        var nodeId: String
        var platform: String
        var deviceFamily: String?
        var commands: [String]?
        var send: @Sendable (String) -> Void
        var close: @Sendable () -> Void
    }

    struct State: Sendable {
        var config: Config
        var sessions: [String: Session] = [:]
        var approved: Set<String> = []
        var pairingRequests: [String: String] = [:]
        var deviceTokens: [String: String] = [:]
        var pending: [String: CheckedContinuation<InvokeOutcome, Never>] = [:]
        var lateResults: [JSONValue] = []
        var results: [JSONValue] = []
        var events: [EventRecord] = []
        var violations: [String] = []
        var connects: [ConnectRecord] = []
        var socketsOpened = 0
        var ticksPaused = false
        var refuseConnections = false
        var dropEventsWithoutAck = 0
        var unavailableServed = 0
    }

    let state: Mutex<State>
    let port: Int
    let serverTask: Task<Void, any Error>
    var url: String { "ws://127.0.0.1:\(port)" }

    private init(config: Config, port: Int, serverTask: Task<Void, any Error>) {
        self.state = Mutex(State(config: config))
        self.port = port
        self.serverTask = serverTask
    }

    deinit { serverTask.cancel() }

    static func start(_ config: Config = Config()) async throws -> TestGateway {
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let box = GatewayBox()
        var logger = Logger(label: "test-gateway")
        logger.logLevel = .critical
        let app = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: .init(ws: WebSocketServerConfiguration(
                maxFrameSize: 1 << 26, autoPing: .disabled, closeTimeout: .milliseconds(500)))) { _, _, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    guard let gateway = box.gateway else { return }
                    try await gateway.serve(inbound: inbound, outbound: outbound)
                }
            },
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger)
        let task = Task { try await app.run() }
        var port = 0
        for await value in ports { port = value }
        let gateway = TestGateway(config: config, port: port, serverTask: task)
        box.gateway = gateway
        return gateway
    }

    func stop() async {
        let sessions = state.withLock { Array($0.sessions.values) }
        for session in sessions { session.close() }
        serverTask.cancel()
        _ = await serverTask.result
    }

    // MARK: Test controls

    func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }
    func snapshot() -> State { state.withLock { $0 } }

    /// Approves a device (`openclaw nodes approve`).
    func approve(_ deviceId: String) { state.withLock { _ = $0.approved.insert(deviceId) } }

    /// Closes every node connection.
    func dropConnections() {
        let sessions = state.withLock { Array($0.sessions.values) }
        for session in sessions { session.close() }
    }

    /// Polls until `condition` holds or `timeout` passes.
    @discardableResult
    func wait(_ timeout: Duration = .seconds(20), until condition: (State) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ condition($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return state.withLock { condition($0) }
    }

    /// The connected node (the first one), waiting for it.
    func waitForNode(_ timeout: Duration = .seconds(20)) async -> Session? {
        await wait(timeout) { !$0.sessions.isEmpty }
        return state.withLock { $0.sessions.values.first }
    }

    func events(_ name: String = "health.update") -> [EventRecord] {
        state.withLock { $0.events.filter { $0.event == name } }
    }

    /// `node.invoke` as an operator calls it: policy check, `node.invoke.request`, wait for the result.
    func invoke(_ command: String, params: JSONValue? = nil, paramsJSON: String?? = nil, timeoutMs: Int? = nil,
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

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
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
        defer {
            state.withLock { _ = $0.sessions.removeValue(forKey: connId) }
            textSink.finish()
        }
        // The writer drains what was queued (a refusal's response) before the connection closes.
        async let writer: Void = {
            for await text in texts { try await outbound.write(.text(text)) }
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in closeSignal { return }
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
                    }
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: 1 << 26) {
                    guard case .text(let text) = message else {
                        self.violation("binary frame")
                        return
                    }
                    if !self.handle(text, connection) { return }
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
                state.results.append(params)
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
            let drop = state.withLock { state -> Bool in
                state.events.append(EventRecord(nodeId: session.nodeId, event: params["event"]?.stringValue ?? "",
                                                payloadJSON: params["payloadJSON"]?.stringValue, at: .now,
                                                wallClock: Date()))
                if state.dropEventsWithoutAck > 0 {
                    state.dropEventsWithoutAck -= 1
                    return true
                }
                return false
            }
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
enum CommandPolicy {
    static let healthCommands = ["health.query", "health.summary", "health.subscribe", "health.unsubscribe"]
    static let canvas = ["canvas.present", "canvas.hide", "canvas.navigate", "canvas.eval", "canvas.snapshot"]
    static let camera = ["camera.list", "camera.snap", "camera.clip"]
    static let location = ["location.get"]
    static let system = ["system.run", "system.which", "system.notify", "browser.proxy"]
    /// Excluded from the defaults unless explicitly allowed.
    static let dangerous: Set<String> = ["camera.snap", "camera.clip", "screen.record", "sms.send", "system.run",
                                         "browser.proxy", "health.summary"]
    static let platformDefaults: [String: [String]] = [
        "ios": canvas + camera + location + ["device.info", "motion.activity", "motion.pedometer"] + healthCommands,
        "android": canvas + camera + location + ["device.info", "sms.send"],
        "macos": canvas + camera + location + ["system.notify"],
        "linux": ["system.notify", "system.which"],
        "windows": ["system.notify", "system.which"],
        "watchos": ["device.info", "device.status", "system.notify"],
        "unknown": canvas + camera + location + ["system.notify"],
    ]

    static func normalizePlatform(_ platform: String?, _ deviceFamily: String?) -> String {
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

    static func allowlist(platform: String?, deviceFamily: String?, allow: [String], deny: [String]) -> Set<String> {
        let base = (platformDefaults[normalizePlatform(platform, deviceFamily)] ?? platformDefaults["unknown"]!)
            .filter { !dangerous.contains($0) }
        var result = Set(base).union(allow.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        for blocked in deny { result.remove(blocked.trimmingCharacters(in: .whitespaces)) }
        return result
    }

    /// nil when allowed, else the reason.
    static func check(_ command: String, declared: [String]?, allowlist: Set<String>) -> String? {
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
indirect enum Schema: Sendable {
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
    func validate(_ value: JSONValue, at path: String = "$") -> String? {
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
enum Schemas {
    static let clientIds = ["webchat-ui", "openclaw-control-ui", "webchat", "cli", "gateway-client", "openclaw-macos",
                            "openclaw-linux", "openclaw-ios", "openclaw-watchos", "openclaw-android", "node-host",
                            "test", "fingerprint", "openclaw-probe"]
    static let clientModes = ["node", "cli", "ui", "backend", "worker", "probe", "test", "webchat"]

    static let errorShape = Schema.object([
        "code": .nonEmptyString, "message": .nonEmptyString, "details": .unknown, "retryable": .boolean,
        "retryAfterMs": .integer(minimum: 0),
    ], required: ["code", "message"])

    static let requestFrame = Schema.object([
        "type": .literal("req"), "id": .nonEmptyString, "method": .nonEmptyString, "params": .unknown,
    ], required: ["type", "id", "method"])

    static let responseFrame = Schema.object([
        "type": .literal("res"), "id": .nonEmptyString, "ok": .boolean, "payload": .unknown, "error": errorShape,
    ], required: ["type", "id", "ok"])

    static let eventFrame = Schema.object([
        "type": .literal("event"), "event": .nonEmptyString, "payload": .unknown, "seq": .integer(minimum: 0),
        "stateVersion": .unknown,
    ], required: ["type", "event"])

    static let connectParams = Schema.object([
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

    static let invokeResult = Schema.object([
        "id": .nonEmptyString, "nodeId": .nonEmptyString, "ok": .boolean, "payload": .unknown,
        "payloadJSON": .string,
        "error": .object(["code": .nonEmptyString, "message": .nonEmptyString], required: []),
    ], required: ["id", "nodeId", "ok"])

    static let nodeEvent = Schema.object([
        "event": .nonEmptyString, "payload": .unknown, "payloadJSON": .string,
    ], required: ["event"])

    // The plan's payloads (extension fields allowed, as the plan's Swift decoders ignore them).
    static let sample = Schema.object([
        "dateISO": .nonEmptyString, "endDateISO": .string, "value": .unknown, "unit": .string, "category": .string,
        "source": .string,
    ], required: ["dateISO"])

    static let updatePayload = Schema.object([
        "type": .nonEmptyString, "latestSamples": .array(sample),
    ], required: ["type", "latestSamples"])
}
