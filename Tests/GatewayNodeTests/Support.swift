import Foundation
import GatewayNode
import HealthAPI
import HealthBridgeTesting
import HealthDemo
import HealthModel
@testable import HealthService
import HealthStore
import Logging
import Synchronization
import Testing

let parisZone = TimeZone.parisZone

/// A fresh data home (0700) under the system temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    try await TemporaryHome.with("gatewaynode") { try await body($0.url) }
}

/// A file store in `directory` and its service in the Paris zone.
func makeService(_ directory: URL, name: String = "health.sqlite") async throws -> HealthService {
    let store = try SQLiteHealthStore(location: .file(directory.appendingPathComponent(name)))
    return HealthService(store: store, homeTimeZone: parisZone)
}

/// A store with 30 days of demo data (iPhone + Apple Watch) up to now.
func makeDemoService(_ directory: URL, days: Int = 30) async throws -> HealthService {
    let service = try await makeService(directory)
    try await DemoWorld(days: days, seed: 7, zone: parisZone).populate(service.store)
    return service
}

/// Records what the node reports.
final class StatusLog: Sendable {
    let entries = Mutex<[GatewayNodeStatus]>([])
    func append(_ status: GatewayNodeStatus) { entries.withLock { $0.append(status) } }
    var all: [GatewayNodeStatus] { entries.withLock { $0 } }

    func contains(_ predicate: (GatewayNodeStatus) -> Bool) -> Bool { entries.withLock { $0.contains(where: predicate) } }

    var connectedCount: Int {
        entries.withLock { $0.filter { if case .connected = $0 { true } else { false } }.count }
    }

    @discardableResult
    /// Waits for a status; generous by default because the whole suite runs in parallel on two cores.
    func wait(_ timeout: Duration = .seconds(15), until predicate: (GatewayNodeStatus) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if contains(predicate) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return contains(predicate)
    }
}

/// A running node; `stop()` cancels it and waits for it to end.
struct RunningNode: Sendable {
    let node: GatewayNode
    let task: Task<Void, any Error>
    let log: StatusLog

    var deviceId: String { node.deviceId }

    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Test timers: short backoff and close; handshake and request timeouts long enough that a node never gives up on a
/// healthy gateway while the whole suite holds both cores (no test here waits for one of them to expire).
func testConfiguration(_ gateway: TestGateway, token: String? = nil) -> GatewayNodeConfiguration {
    var configuration = GatewayNodeConfiguration(gatewayURL: gateway.url, token: token, displayName: "Test node")
    configuration.backoffInitial = .milliseconds(50)
    configuration.backoffMaximum = .milliseconds(400)
    configuration.challengeTimeout = .seconds(15)
    configuration.helloTimeout = .seconds(15)
    configuration.requestTimeout = .seconds(15)
    configuration.pingInterval = .seconds(2)
    configuration.closeTimeout = .milliseconds(200)
    return configuration
}

func startNode(_ configuration: GatewayNodeConfiguration, service: HealthService, directory: URL,
               configure: (inout GatewayNodeConfiguration) -> Void = { _ in }) throws -> RunningNode {
    var configuration = configuration
    configure(&configuration)
    let log = StatusLog()
    let previous = configuration.onStatus
    configuration.onStatus = { status in
        log.append(status)
        previous?(status)
    }
    var logger = Logger(label: "test-node")
    logger.logLevel = ProcessInfo.processInfo.environment["NODE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
    let node = try GatewayNode(configuration: configuration, service: service, directory: directory, logger: logger)
    let task = Task { try await node.run() }
    return RunningNode(node: node, task: task, log: log)
}

/// A gateway, a node connected to it, and cleanup.
func withConnectedNode<T>(_ gatewayConfig: TestGateway.Config = .init(), service: HealthService, directory: URL,
                          configure: (inout GatewayNodeConfiguration) -> Void = { _ in },
                          _ body: (TestGateway, RunningNode) async throws -> T) async throws -> T {
    let gateway = try await TestGateway.start(gatewayConfig)
    let node = try startNode(testConfiguration(gateway, token: gatewayConfig.token), service: service,
                             directory: directory, configure: configure)
    do {
        let session = await gateway.waitForNode()
        try #require(session != nil, "the node did not connect: \(node.log.all)")
        try #require(await node.log.wait { if case .connected = $0 { true } else { false } })
        let result = try await body(gateway, node)
        await node.stop()
        await gateway.stop()
        return result
    } catch {
        await node.stop()
        await gateway.stop()
        throw error
    }
}

/// A heart-rate sample at `date`.
func heartRate(_ bpm: Double, at date: Date, source: HealthSource = DemoGenerator.watch) -> HealthSample {
    HealthSample(type: "heartRate", start: date, end: date, value: .quantity(bpm, unit: "count/min"), source: source)
}

func steps(_ count: Double, at date: Date, minutes: Double = 1, source: HealthSource = DemoGenerator.iPhone) -> HealthSample {
    HealthSample(type: "stepCount", start: date, end: date.addingTimeInterval(minutes * 60),
                 value: .quantity(count, unit: "count"), source: source)
}

/// Decodes a `health.update` payload, checking it against the plan's shape.
func updatePayload(_ record: TestGateway.EventRecord) throws -> OpenClawHealthUpdatePayload {
    let json = try #require(record.payloadJSON)
    let value = try JSONValue(json: json)
    if let problem = Schemas.updatePayload.validate(value) { Issue.record("health.update payload: \(problem)") }
    return try JSONDecoder().decode(OpenClawHealthUpdatePayload.self, from: Data(json.utf8))
}

/// Decodes a successful invoke's payload.
func payload<T: Decodable>(_ outcome: TestGateway.InvokeOutcome, as type: T.Type) throws -> T {
    guard case .ok(let json) = outcome, let json else {
        Issue.record("expected a payload, got \(outcome)")
        throw CancellationError()
    }
    return try JSONDecoder().decode(T.self, from: Data(json.utf8))
}

extension TestGateway.InvokeOutcome {
    var errorCode: String? { if case .error(let code, _) = self { code } else { nil } }
    var errorMessage: String? { if case .error(_, let message) = self { message } else { nil } }
}

/// A lock-protected value closures can share.
final class LockedValue<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}
