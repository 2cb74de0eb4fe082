import Foundation
import HealthModel
import HealthService
import HealthSupport
import HummingbirdWSClient
import Logging
import ServiceLifecycle
import Synchronization

/// How the node connects and behaves. The defaults are upstream's; tests shorten the timers.
public struct GatewayNodeConfiguration: Sendable {
    /// `ws://HOST:PORT` or `wss://HOST:PORT` (the gateway's default port is 18789).
    public var gatewayURL: String
    /// The gateway's shared token (`gateway.auth.token`), when it requires one.
    public var token: String?
    /// The gateway's password, when it uses password auth instead.
    public var password: String?
    public var displayName: String?
    /// Declares and answers `health.write` and `health.delete` (the owner's choice; the gateway must allow them too).
    public var allowWrites = false
    /// `client.id`, a closed enum on the gateway: `node-host` (a headless node) or `openclaw-linux`.
    public var clientId = "node-host"
    public var clientMode = "node"
    /// `client.platform`: the gateway's command policy picks its per-platform defaults from it.
    public var platform = "linux"
    public var deviceFamily: String?
    public var modelIdentifier: String?
    public var version = HealthBridgeVersion.current
    public var instanceId: String?
    public var locale: String?
    /// The device signature: v3 (platform and device family signed too), falling back to v2 when the gateway only
    /// verifies v2.
    public var signature = SignaturePolicy.v3WithV2Fallback
    public var maxConcurrentInvokes = 4
    /// For invokes without `timeoutMs` (the gateway's own default).
    public var defaultInvokeTimeout: Duration = .seconds(30)
    /// `health.update` events are coalesced per type over this window.
    public var coalesceWindow: Duration = .milliseconds(250)
    /// Reconnect backoff: from `initial`, doubling to `maximum`, each delay scaled by a random factor in
    /// `1 ± jitter`.
    public var backoffInitial: Duration = .milliseconds(500)
    public var backoffMaximum: Duration = .seconds(30)
    public var backoffJitter = 0.2
    /// How long to wait for `connect.challenge` after the socket opens.
    public var challengeTimeout: Duration = .seconds(6)
    /// How long to wait for the `connect` response.
    public var helloTimeout: Duration = .seconds(30)
    /// How long to wait for the gateway's `res` to a request of this node.
    public var requestTimeout: Duration = .seconds(15)
    /// WebSocket ping period (a missing pong closes the connection).
    public var pingInterval: Duration = .seconds(15)
    /// How long to wait for the gateway's close frame when closing.
    public var closeTimeout: Duration = .seconds(1)
    /// Called on every state change (connected, pairing required, auth failed, disconnected).
    public var onStatus: (@Sendable (GatewayNodeStatus) -> Void)?
    /// Test hook: runs before every command.
    public var beforeCommand: (@Sendable (String) async -> Void)?

    public enum SignaturePolicy: String, Sendable {
        case v3WithV2Fallback, v3Only, v2Only
    }

    public init(gatewayURL: String, token: String? = nil, displayName: String? = nil) {
        self.gatewayURL = gatewayURL
        self.token = token.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        self.displayName = displayName
    }

    /// The display name sent when none is configured: `HealthBridge (hostname)`.
    public static var defaultDisplayName: String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "linux"
        return "HealthBridge (\(host))"
    }
}

/// What the node is doing, for logs, the CLI and tests.
public enum GatewayNodeStatus: Sendable, Hashable, CustomStringConvertible {
    case connecting(attempt: Int)
    case connected(connId: String, deviceId: String, protocolVersion: Int)
    /// The gateway has not approved this device yet (`NOT_PAIRED` / `PAIRING_REQUIRED`).
    case pairingRequired(deviceId: String, requestId: String?)
    /// The gateway refused the credentials (`AUTH_*`).
    case authFailed(code: String, message: String)
    /// The gateway refused the connect for another reason.
    case rejected(code: String, message: String)
    case disconnected(reason: String, retryInMs: Int)

    public var description: String {
        switch self {
        case .connecting(let attempt): "connecting (attempt \(attempt))"
        case .connected(let connId, let deviceId, let version): "connected as \(deviceId) (conn \(connId), protocol \(version))"
        case .pairingRequired(let deviceId, let requestId): "pairing required for \(deviceId)\(requestId.map { " (request \($0))" } ?? "")"
        case .authFailed(let code, let message): "authentication failed: \(code): \(message)"
        case .rejected(let code, let message): "rejected: \(code): \(message)"
        case .disconnected(let reason, let ms): "disconnected (\(reason)); retrying in \(ms) ms"
        }
    }
}

/// Errors that end a gateway session.
public enum GatewayNodeError: Error, Sendable, CustomStringConvertible {
    case connectRejected(GatewayErrorShape)
    case challengeTimeout
    case helloTimeout
    case tickTimeout(silenceMs: Int)
    case payloadTooLarge(bytes: Int, limit: Int)
    case closed
    case requestTimeout(method: String)
    case protocolError(String)
    case shutdown(reason: String)

    public var description: String {
        switch self {
        case .connectRejected(let error): "the gateway refused the connection: \(error)"
        case .challengeTimeout: "no connect.challenge from the gateway"
        case .helloTimeout: "no answer to connect"
        case .tickTimeout(let ms): "no tick from the gateway for \(ms) ms"
        case .payloadTooLarge(let bytes, let limit): "a frame of \(bytes) bytes exceeds the gateway's maxPayload (\(limit))"
        case .closed: "the connection is closed"
        case .requestTimeout(let method): "no response to \(method)"
        case .protocolError(let text): "protocol error: \(text)"
        case .shutdown(let reason): "the gateway is shutting down (\(reason))"
        }
    }
}

/// An OpenClaw node serving the health commands to a gateway: it connects, proves its device identity, answers
/// invokes, pushes `health.update` events, and reconnects until cancelled.
///
/// ```swift
/// let node = try GatewayNode(configuration: GatewayNodeConfiguration(gatewayURL: "ws://127.0.0.1:18789", token: token),
///                            service: service, directory: home.directory, logger: logger)
/// try await node.run()   // until the task is cancelled
/// ```
public final class GatewayNode: Sendable {
    public let configuration: GatewayNodeConfiguration
    public let identity: DeviceIdentity
    public let authStore: DeviceAuthStore
    public let service: HealthService
    public let subscriptions: HealthSubscriptions
    public let invokes: NodeInvokeHandler
    let logger: Logger
    let runState = Mutex(RunState())

    struct RunState {
        var signature: DeviceSignatureVersion = .v3
        var retryWithDeviceToken = false
    }

    /// The node id the gateway knows this node by.
    public var deviceId: String { identity.deviceId }

    /// - Parameters:
    ///   - directory: where the device identity (`openclaw-device.json`) and the gateway-issued device tokens
    ///     (`openclaw-device-auth.json`) are kept, mode 0600: the data directory.
    public init(configuration: GatewayNodeConfiguration, service: HealthService, directory: URL,
                logger: Logger = Logger(label: "healthbridge.node")) throws {
        self.configuration = configuration
        self.service = service
        self.logger = logger
        self.identity = try DeviceIdentity.loadOrCreate(at: directory.appendingPathComponent(DeviceIdentity.fileName))
        self.authStore = DeviceAuthStore(url: directory.appendingPathComponent(DeviceAuthStore.fileName))
        self.subscriptions = HealthSubscriptions(service: service.acting(as: .gateway()),
                                                 window: configuration.coalesceWindow, logger: logger)
        self.invokes = NodeInvokeHandler(service: service, subscriptions: subscriptions,
                                         maxConcurrent: configuration.maxConcurrentInvokes,
                                         defaultTimeout: configuration.defaultInvokeTimeout,
                                         writesEnabled: configuration.allowWrites,
                                         beforeCommand: configuration.beforeCommand)
        if configuration.signature == .v2Only { runState.withLock { $0.signature = .v2 } }
    }

    /// Runs the node in the data directory `home`: what `healthbridge node` and `healthbridge serve` (with a gateway
    /// configured) call. Returns when the calling task is cancelled.
    /// - Parameter allowInsecureGateway: allows `ws://` to a host beyond loopback (``GatewayURLPolicy``); otherwise
    ///   such a URL throws before anything is sent.
    public static func run(gateway url: String, token: String?, home: HealthBridgeHome, service: HealthService,
                           displayName: String? = nil, allowWrites: Bool = false, allowInsecureGateway: Bool = false,
                           logger: Logger) async throws {
        if try GatewayURLPolicy.check(url, allowInsecure: allowInsecureGateway) {
            logger.warning("INSECURE: connecting to \(url) in plain text (\(GatewayURLPolicy.insecureFlag)); the gateway token and health answers are readable on the network")
        }
        var configuration = GatewayNodeConfiguration(gatewayURL: url, token: token,
                                                     displayName: displayName ?? GatewayNodeConfiguration.defaultDisplayName)
        configuration.allowWrites = allowWrites
        let node = try GatewayNode(configuration: configuration, service: service, directory: home.directory,
                                   logger: logger)
        try await node.run()
    }

    /// Connects and reconnects until the calling task is cancelled or its service group shuts down gracefully
    /// (swift-service-lifecycle). A graceful shutdown ends the open session with a WebSocket close frame (the
    /// WebSocket handler's own shutdown handler sends it; a cancelled task could not write it any more), then stops.
    public func run() async throws {
        try await subscriptions.start()
        logger.info("node \(identity.deviceId) connecting to \(configuration.gatewayURL)")
        var failures = 0
        var attempt = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            attempt += 1
            status(.connecting(attempt: attempt))
            let outcome = await connectOnce()
            if Task.isCancelled || Task.isShuttingDownGracefully { break }
            let delay = nextDelay(after: outcome, failures: &failures)
            let ms = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
            status(.disconnected(reason: outcome.reason, retryInMs: ms))
            if outcome.helloReceived {
                logger.warning("gateway connection lost (\(outcome.reason)); reconnecting in \(Self.seconds(ms))")
            } else if outcome.rejected == nil {
                logger.warning("cannot reach the gateway at \(configuration.gatewayURL) (\(outcome.reason)); retrying in \(Self.seconds(ms))")
            } else {
                logger.info("retrying in \(Self.seconds(ms))")
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
            } catch { break }
        }
        await subscriptions.stop()
    }

    static func seconds(_ ms: Int) -> String { String(format: "%.1f s", Double(ms) / 1000) }

    func status(_ status: GatewayNodeStatus) {
        configuration.onStatus?(status)
    }

    // MARK: Backoff and refusals

    func nextDelay(after outcome: SessionOutcome, failures: inout Int) -> Duration {
        if outcome.helloReceived { failures = 0 }
        if let rejected = outcome.rejected, handleRejection(rejected, outcome: outcome) {
            return .milliseconds(20)  // retry at once with what changed (signature version, device token)
        }
        failures += outcome.helloReceived ? 0 : 1
        let base = Double(configuration.backoffInitial.milliseconds) * pow(2, Double(max(0, failures - 1)))
        let capped = min(base, Double(configuration.backoffMaximum.milliseconds))
        let jitter = configuration.backoffJitter
        var delay = capped * Double.random(in: (1 - jitter)...(1 + jitter))
        delay = min(delay, Double(configuration.backoffMaximum.milliseconds))
        if let retryAfter = outcome.retryAfterMs {
            // The gateway says when to come back (starting up, restarting), within reason: at most an hour.
            let asked = Double(GatewaySessionRules.retryDelayMs(retryAfter))
            return .milliseconds(GatewaySessionRules.scaledDelayMs(asked, factor: Double.random(in: 1...(1 + max(0, jitter) / 2))))
        }
        return .milliseconds(GatewaySessionRules.scaledDelayMs(delay, factor: 1))
    }

    /// Logs a refused connect clearly and adjusts what the next attempt sends. Returns true to retry at once.
    func handleRejection(_ error: GatewayErrorShape, outcome: SessionOutcome) -> Bool {
        let detail = error.detailCode ?? ""
        if detail == "DEVICE_AUTH_SIGNATURE_INVALID", outcome.signature == .v3,
           configuration.signature == .v3WithV2Fallback {
            runState.withLock { $0.signature = .v2 }
            logger.notice("the gateway did not accept the v3 device signature; signing with v2")
            return true
        }
        if detail == "AUTH_DEVICE_TOKEN_MISMATCH", outcome.usedStoredToken {
            try? authStore.clear(gateway: configuration.gatewayURL)
            logger.warning("the gateway no longer accepts this node's device token; it was cleared (the node may need approval again)")
            return true
        }
        if detail == "AUTH_TOKEN_MISMATCH", error.details?["canRetryWithDeviceToken"]?.boolValue == true,
           outcome.storedTokenAvailable, !outcome.sentDeviceToken {
            runState.withLock { $0.retryWithDeviceToken = true }
            return true
        }
        if error.code == "NOT_PAIRED" || detail == "PAIRING_REQUIRED" {
            let requestId = error.details?["requestId"]?.stringValue
            status(.pairingRequired(deviceId: identity.deviceId, requestId: requestId))
            logger.error("pairing required: approve this node on the gateway: openclaw nodes approve \(requestId ?? identity.deviceId) (node \(identity.deviceId); \(error.message))")
            return false
        }
        if detail.hasPrefix("AUTH_") || error.code == "UNAUTHORIZED" || detail.hasPrefix("DEVICE_AUTH_")
            || detail == "DEVICE_IDENTITY_REQUIRED" {
            status(.authFailed(code: detail.isEmpty ? error.code : detail, message: error.message))
            let hint = detail.hasPrefix("DEVICE_AUTH_")
                ? "the gateway refused this node's device proof"
                : (configuration.token == nil
                    ? "the gateway needs a token: pass --token (the gateway's gateway.auth.token)"
                    : "check --token against the gateway's gateway.auth.token")
            logger.error("authentication failed: \(detail.isEmpty ? error.code : detail): \(error.message) — \(hint)")
            return false
        }
        status(.rejected(code: error.code, message: error.message))
        logger.error("the gateway refused the connection: \(error)")
        return false
    }

    // MARK: One connection

    /// What one connection attempt came to.
    struct SessionOutcome: Sendable {
        var helloReceived = false
        var rejected: GatewayErrorShape?
        var retryAfterMs: Int?
        var reason = "closed"
        var signature: DeviceSignatureVersion = .v3
        var usedStoredToken = false
        var storedTokenAvailable = false
        var sentDeviceToken = false
    }

    func connectOnce() async -> SessionOutcome {
        let outcome = Locked(SessionOutcome())
        var wsConfiguration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 26, closeTimeout: configuration.closeTimeout,
            autoPing: .enabled(timePeriod: configuration.pingInterval), validateUTF8: true)
        wsConfiguration.ignoreUncleanSSLShutdownErrors = true
        var wsLogger = logger
        wsLogger.logLevel = logger.logLevel == .trace ? .trace : .critical
        do {
            try await WebSocketClient.connect(url: configuration.gatewayURL, configuration: wsConfiguration,
                                              logger: wsLogger) { inbound, outbound, _ in
                try await self.runSession(inbound: inbound, outbound: outbound, outcome: outcome)
            }
        } catch {
            outcome.withLock { state in
                if state.rejected == nil, state.reason == "closed" {
                    state.reason = (error as? GatewayNodeError)?.description ?? Self.describe(error)
                }
            }
        }
        return outcome.withLock { $0 }
    }

    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }

    /// Per-connection state shared by the session's tasks.
    struct SessionState {
        enum Phase {
            case awaitingChallenge, awaitingHello(requestId: String), ready
            var rules: GatewaySessionRules.Phase {
                switch self {
                case .awaitingChallenge: .awaitingChallenge
                case .awaitingHello: .awaitingHello
                case .ready: .ready
                }
            }
        }
        var phase = Phase.awaitingChallenge
        var phaseStarted = ContinuousClock.now
        var lastInbound = ContinuousClock.now
        var tickInterval: Duration = .seconds(30)
        var inboundLimit = GatewayWire.preHandshakeMaxPayload
    }

    func runSession(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
                    outcome: Locked<SessionOutcome>) async throws {
        let (texts, textSink) = AsyncStream<String>.makeStream()
        let (invokeRequests, invokeSink) = AsyncStream<NodeInvokeRequest>.makeStream()
        let connection = GatewayConnection(outbound: textSink, requestTimeout: configuration.requestTimeout)
        let session = Locked(SessionState())
        defer {
            connection.close()
            invokeSink.finish()
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await text in texts { try await outbound.write(.text(text)) }
                }
                group.addTask { try await self.watchdog(session) }
                group.addTask {
                    try await self.readLoop(inbound: inbound, connection: connection, session: session,
                                            invokeSink: invokeSink, outcome: outcome)
                }
                group.addTask {
                    await withDiscardingTaskGroup { invokesGroup in
                        for await request in invokeRequests {
                            invokesGroup.addTask { await self.answer(request, on: connection) }
                        }
                    }
                }
                defer {
                    connection.close()
                    group.cancelAll()
                }
                _ = try await group.next()
            }
        } catch {
            outcome.withLock { state in
                if case .connectRejected(let shape) = error as? GatewayNodeError {
                    state.rejected = shape
                    state.retryAfterMs = shape.retryAfterMs.map(GatewaySessionRules.retryDelayMs)
                    state.reason = "connect refused: \(shape)"
                } else if case .shutdown(let reason) = error as? GatewayNodeError {
                    state.reason = "gateway shutdown: \(reason)"
                } else {
                    state.reason = (error as? GatewayNodeError)?.description ?? Self.describe(error)
                }
            }
            await subscriptions.detach(connection)
            throw error
        }
        await subscriptions.detach(connection)
    }

    /// Ends the session when the gateway goes quiet: no challenge, no hello, or no frame for 2 × tickIntervalMs.
    ///
    /// When the watchdog itself wakes much later than it asked to, this process was not running (a machine under
    /// full load, a laptop waking up): frames may be waiting unread, so it looks again after one more step instead of
    /// blaming the gateway for its own silence.
    func watchdog(_ session: Locked<SessionState>) async throws {
        var expectedWake: ContinuousClock.Instant?
        var skipped = false
        while true {
            let (phase, started, last, tick) = session.withLock { ($0.phase, $0.phaseStarted, $0.lastInbound, $0.tickInterval) }
            let now = ContinuousClock.now
            let step = min(Duration.milliseconds(250), max(Duration.milliseconds(10), tick / 4))
            // One look is skipped at a time, so a process that stays starved still ends a silent session.
            let overslept = !skipped && (expectedWake.map { now - $0 > step + .milliseconds(100) } ?? false)
            skipped = overslept
            if !overslept {
                switch phase {
                case .awaitingChallenge:
                    if now - started > configuration.challengeTimeout { throw GatewayNodeError.challengeTimeout }
                case .awaitingHello:
                    if now - started > configuration.helloTimeout { throw GatewayNodeError.helloTimeout }
                case .ready:
                    if now - last > tick * 2 {
                        throw GatewayNodeError.tickTimeout(silenceMs: Int((now - last).milliseconds))
                    }
                }
            }
            expectedWake = ContinuousClock.now + step
            try await Task.sleep(for: step)
        }
    }

    func readLoop(inbound: WebSocketInboundStream, connection: GatewayConnection, session: Locked<SessionState>,
                  invokeSink: AsyncStream<NodeInvokeRequest>.Continuation, outcome: Locked<SessionOutcome>) async throws {
        var connectContext: ConnectContext?
        for try await message in inbound.messages(maxSize: 1 << 26) {
            guard case .text(let text) = message else { continue }
            let limit = session.withLock { state -> Int in
                state.lastInbound = .now
                return state.inboundLimit
            }
            let size = text.utf8.count
            if size > limit { throw GatewayNodeError.payloadTooLarge(bytes: size, limit: limit) }
            let frame: GatewayFrame
            do { frame = try GatewayFrame.decode(text) } catch {
                logger.warning("ignoring a frame that is not a gateway frame: \(error)")
                continue
            }
            let phase = session.withLock { $0.phase.rules }
            switch frame {
            case .event(let event):
                guard GatewaySessionRules.accepts(event: event.event, in: phase) else {
                    logger.debug("ignoring event \(event.event) while \(phase)")
                    continue
                }
                switch event.event {
                case "connect.challenge":
                    guard let challenge = try? event.payload?.decode(ConnectChallenge.self) else {
                        throw GatewayNodeError.protocolError("connect.challenge without {nonce, ts}")
                    }
                    let context = try makeConnect(challenge)
                    connectContext = context
                    outcome.withLock { state in
                        state.signature = context.signature
                        state.usedStoredToken = context.usedStoredToken
                        state.storedTokenAvailable = context.storedTokenAvailable
                        state.sentDeviceToken = context.params.auth?.deviceToken != nil
                    }
                    try connection.send(try GatewayWire.encode(RequestFrame(id: context.requestId, method: "connect",
                                                                            params: context.params)))
                    session.withLock { $0.phase = .awaitingHello(requestId: context.requestId); $0.phaseStarted = .now }
                case "tick":
                    break
                case "node.invoke.request":
                    guard let request = try? event.payload?.decode(NodeInvokeRequest.self) else {
                        logger.warning("ignoring a node.invoke.request without {id, nodeId, command}")
                        continue
                    }
                    invokeSink.yield(request)
                case "shutdown":
                    let reason = event.payload?["reason"]?.stringValue ?? "shutdown"
                    let restart = event.payload?["restartExpectedMs"]?.intValue
                        .map { GatewaySessionRules.retryDelayMs(Int(clamping: $0)) }
                    outcome.withLock { $0.retryAfterMs = restart }
                    logger.notice("the gateway is shutting down (\(reason))\(restart.map { "; back in about \($0) ms" } ?? "")")
                    throw GatewayNodeError.shutdown(reason: reason)
                default:
                    logger.trace("ignoring event \(event.event)")
                }
            case .response(let response):
                if case .awaitingHello(let requestId) = session.withLock({ $0.phase }), response.id == requestId {
                    guard response.ok else {
                        throw GatewayNodeError.connectRejected(
                            response.error ?? GatewayErrorShape(code: "UNAVAILABLE", message: "connect failed"))
                    }
                    guard let hello = try? response.payload?.decode(HelloOk.self) else {
                        throw GatewayNodeError.protocolError("connect answered without a hello-ok payload")
                    }
                    try await ready(hello, connection: connection, session: session, context: connectContext,
                                    outcome: outcome)
                } else {
                    connection.resolve(response)
                }
            case .request(let id, let method, _):
                guard GatewaySessionRules.acceptsRequests(in: phase) else {
                    logger.debug("ignoring a request (\(method)) before hello-ok")
                    continue
                }
                try? connection.send(try GatewayWire.encode(ResponseFrame(
                    id: id, ok: false,
                    error: GatewayErrorShape(code: "INVALID_REQUEST", message: "INVALID_REQUEST: unsupported method \(method)"))))
            case .cancel(let id):
                logger.debug("gateway cancelled \(id)")
            case .unknown(let type):
                logger.trace("ignoring a frame of type \(type)")
            }
        }
    }

    /// `hello-ok`: keep the policy and the device token, tell the subscriptions.
    func ready(_ hello: HelloOk, connection: GatewayConnection, session: Locked<SessionState>, context: ConnectContext?,
               outcome: Locked<SessionOutcome>) async throws {
        let range = GatewaySessionRules.tickIntervalRangeMs
        let tick = Duration.milliseconds(min(max(hello.policy.tickIntervalMs, range.lowerBound), range.upperBound))
        session.withLock { state in
            state.phase = .ready
            state.phaseStarted = .now
            state.tickInterval = tick
            state.inboundLimit = max(hello.policy.maxPayload, GatewayWire.preHandshakeMaxPayload)
        }
        connection.setMaxPayload(hello.policy.maxPayload)
        outcome.withLock { $0.helloReceived = true }
        runState.withLock { $0.retryWithDeviceToken = false }
        if let token = hello.auth?.deviceToken, !token.isEmpty {
            do {
                try authStore.store(token: token, gateway: configuration.gatewayURL, deviceId: identity.deviceId,
                                    role: hello.auth?.role ?? "node", scopes: hello.auth?.scopes ?? [])
            } catch {
                logger.warning("cannot keep the gateway's device token: \(error)")
            }
        }
        status(.connected(connId: hello.server.connId, deviceId: identity.deviceId, protocolVersion: hello.protocol))
        logger.info("connected to \(configuration.gatewayURL) as node \(identity.deviceId) (protocol \(hello.protocol), \(context?.signature.rawValue ?? "v3") signature, tick \(hello.policy.tickIntervalMs) ms)")
        await subscriptions.attach(connection)
    }

    /// The `connect` request for a challenge.
    struct ConnectContext: Sendable {
        var requestId: String
        var params: ConnectParams
        var signature: DeviceSignatureVersion
        var usedStoredToken: Bool
        var storedTokenAvailable: Bool
    }

    func makeConnect(_ challenge: ConnectChallenge) throws -> ConnectContext {
        let (signature, retryWithDeviceToken) = runState.withLock { ($0.signature, $0.retryWithDeviceToken) }
        let stored = authStore.token(gateway: configuration.gatewayURL, deviceId: identity.deviceId, role: "node")
        var auth: ConnectAuth?
        var usedStoredToken = false
        if let token = configuration.token {
            auth = ConnectAuth(token: token, deviceToken: retryWithDeviceToken ? stored : nil)
        } else if let stored {
            auth = ConnectAuth(token: stored)
            usedStoredToken = true
        } else if let password = configuration.password {
            auth = ConnectAuth(password: password)
        }
        let client = ClientInfo(id: configuration.clientId, displayName: configuration.displayName,
                                version: configuration.version, platform: configuration.platform,
                                deviceFamily: configuration.deviceFamily, modelIdentifier: configuration.modelIdentifier,
                                mode: configuration.clientMode, instanceId: configuration.instanceId)
        let role = "node"
        let scopes: [String] = []
        let payload: String
        switch signature {
        case .v3:
            payload = DeviceAuthPayload.v3(deviceId: identity.deviceId, clientId: client.id, clientMode: client.mode,
                                           role: role, scopes: scopes, signedAtMs: challenge.ts,
                                           token: auth?.signatureToken, nonce: challenge.nonce,
                                           platform: client.platform, deviceFamily: client.deviceFamily)
        case .v2:
            payload = DeviceAuthPayload.v2(deviceId: identity.deviceId, clientId: client.id, clientMode: client.mode,
                                           role: role, scopes: scopes, signedAtMs: challenge.ts,
                                           token: auth?.signatureToken, nonce: challenge.nonce)
        }
        let params = ConnectParams(
            client: client, caps: ["health"], commands: invokes.declaredCommands, permissions: ["health": true],
            role: role, scopes: scopes,
            device: try identity.proof(payload: payload, signedAt: challenge.ts, nonce: challenge.nonce),
            auth: auth, locale: configuration.locale ?? Self.systemLocale,
            userAgent: "healthbridge/\(configuration.version) (\(configuration.platform))")
        return ConnectContext(requestId: UUID().uuidString.lowercased(), params: params, signature: signature,
                              usedStoredToken: usedStoredToken, storedTokenAvailable: stored != nil)
    }

    /// `en-US` from `LANG=en_US.UTF-8`; nil when unset or `C`/`POSIX`.
    static var systemLocale: String? {
        let environment = ProcessInfo.processInfo.environment
        guard let raw = environment["LC_ALL"] ?? environment["LANG"], !raw.isEmpty else { return nil }
        let name = raw.split(separator: ".").first.map(String.init) ?? raw
        if name == "C" || name == "POSIX" { return nil }
        return name.replacingOccurrences(of: "_", with: "-")
    }

    /// Runs an invoke and sends its result; a result larger than the gateway's maxPayload becomes an error.
    func answer(_ request: NodeInvokeRequest, on connection: GatewayConnection) async {
        let result = await invokes.invoke(request)
        do {
            let promise: ResponsePromise
            do {
                promise = try connection.request("node.invoke.result", result)
            } catch GatewayNodeError.payloadTooLarge(let bytes, let limit) {
                logger.warning("\(request.command) result of \(bytes) bytes exceeds the gateway's maxPayload (\(limit))")
                promise = try connection.request("node.invoke.result", NodeInvokeResultParams.failure(
                    request, .unavailable("the result (\(bytes) bytes) exceeds the gateway's maxPayload (\(limit) bytes); narrow the range or lower the limit")))
            }
            let response = try await promise.value()
            if !response.ok {
                logger.warning("the gateway refused the result of \(request.command): \(response.error.map { "\($0)" } ?? "no reason")")
            }
        } catch {
            logger.debug("result of \(request.command) (\(request.id)) not delivered: \(error)")
        }
    }
}

// MARK: - Connection

/// The promise of a `res` to a request this node sent.
public final class ResponsePromise: Sendable {
    struct State {
        var result: Result<ResponseFrame, any Error>?
        var waiters: [CheckedContinuation<ResponseFrame, any Error>] = []
        var timer: Task<Void, Never>?
    }
    let state = Mutex(State())

    init() {}

    func fulfill(_ result: Result<ResponseFrame, any Error>) {
        let (waiters, timer) = state.withLock { state -> ([CheckedContinuation<ResponseFrame, any Error>], Task<Void, Never>?) in
            guard state.result == nil else { return ([], nil) }
            state.result = result
            defer { state.waiters = []; state.timer = nil }
            return (state.waiters, state.timer)
        }
        timer?.cancel()
        for waiter in waiters { waiter.resume(with: result) }
    }

    func setTimer(_ timer: Task<Void, Never>) {
        let done = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.timer = timer
            return false
        }
        if done { timer.cancel() }
    }

    /// The gateway's response.
    public func value() async throws -> ResponseFrame {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<ResponseFrame, any Error>? in
                    if let result = state.result { return result }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fulfill(.failure(CancellationError()))
        }
    }
}

/// One WebSocket session's outbound side: an ordered queue of text frames, and the requests awaiting a `res`.
/// Everything is synchronous, so callers decide the order of frames on the wire.
final class GatewayConnection: HealthUpdateSink {
    struct State {
        var pending: [String: ResponsePromise] = [:]
        var closed = false
        var maxPayload = GatewayWire.preHandshakeMaxPayload
    }
    let outbound: AsyncStream<String>.Continuation
    let requestTimeout: Duration
    let state = Mutex(State())

    init(outbound: AsyncStream<String>.Continuation, requestTimeout: Duration) {
        self.outbound = outbound
        self.requestTimeout = requestTimeout
    }

    func setMaxPayload(_ bytes: Int) {
        state.withLock { $0.maxPayload = max(1, bytes) }
    }

    /// Queues a text frame.
    func send(_ text: String) throws {
        try state.withLock { state in
            if state.closed { throw GatewayNodeError.closed }
            let size = text.utf8.count
            if size > state.maxPayload { throw GatewayNodeError.payloadTooLarge(bytes: size, limit: state.maxPayload) }
            outbound.yield(text)
        }
    }

    /// Queues a request and returns the promise of its response.
    func request<Params: Encodable & Sendable>(_ method: String, _ params: Params) throws -> ResponsePromise {
        let id = UUID().uuidString.lowercased()
        let text = try GatewayWire.encode(RequestFrame(id: id, method: method, params: params))
        let promise = ResponsePromise()
        try state.withLock { state in
            if state.closed { throw GatewayNodeError.closed }
            let size = text.utf8.count
            if size > state.maxPayload { throw GatewayNodeError.payloadTooLarge(bytes: size, limit: state.maxPayload) }
            state.pending[id] = promise
            outbound.yield(text)
        }
        let timeout = requestTimeout
        promise.setTimer(Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if Task.isCancelled { return }
            _ = self?.state.withLock { $0.pending.removeValue(forKey: id) }
            promise.fulfill(.failure(GatewayNodeError.requestTimeout(method: method)))
        })
        return promise
    }

    func resolve(_ response: ResponseFrame) {
        let promise = state.withLock { $0.pending.removeValue(forKey: response.id) }
        promise?.fulfill(.success(response))
    }

    func close() {
        let pending = state.withLock { state -> [ResponsePromise] in
            state.closed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        outbound.finish()
        for promise in pending { promise.fulfill(.failure(GatewayNodeError.closed)) }
    }

    func sendEvent(_ params: NodeEventParams) throws -> ResponsePromise {
        try request("node.event", params)
    }
}

extension Duration {
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

/// A lock-protected value shared by the tasks of one session.
final class Locked<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { value in body(&value) }
    }
}
