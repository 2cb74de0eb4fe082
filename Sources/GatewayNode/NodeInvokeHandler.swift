import Foundation
import HealthAPI
import HealthModel
import HealthService
import Synchronization

/// Runs the node's commands for `node.invoke.request`: the plan's four health commands and `health.sleep`, with the
/// plan's wire types, on ``HealthService`` acting for the gateway (``Principal/gateway(_:)``).
///
/// Errors: what the service refuses keeps its ``HealthError/Code`` (`HEALTH_INVALID_ARGUMENT` for bad params,
/// `HEALTH_INVALID_TYPE`, …); only the protocol's own failures use OpenClaw's codes (`INVALID_REQUEST: unknown
/// command`, `UNAVAILABLE` for a timeout).
///
/// Every invoke runs with its `timeoutMs` (default 30 s, the gateway's own default), at most
/// ``maxConcurrent`` at a time (the others wait their turn, their time running), and ends in
/// `{ok, payloadJSON}` or `{ok:false, error:{code, message}}` with the message prefixed by the code. A command that
/// outlives its timeout is answered `UNAVAILABLE: … timed out` at once; its work is cancelled.
public final class NodeInvokeHandler: Sendable {
    /// The read commands every node declares in `connect`.
    public static let commands: [String] = OpenClawHealthCommand.allCases.filter { !OpenClawHealthCommand.writes.contains($0) }
        .map(\.rawValue)
    /// Every command, `health.write` and `health.delete` included: what a node with writes enabled declares.
    public static let commandsWithWrites: [String] = OpenClawHealthCommand.allCases.map(\.rawValue)

    /// The commands this handler answers.
    public var declaredCommands: [String] { writesEnabled ? Self.commandsWithWrites : Self.commands }
    /// Whether the owner enabled `health.write` and `health.delete` (`--allow-writes`).
    public let writesEnabled: Bool

    public let service: HealthService
    public let subscriptions: HealthSubscriptions
    public let maxConcurrent: Int
    public let defaultTimeout: Duration
    let limiter: InvokeLimiter
    /// Test hook: runs before each command (a delay, a concurrency probe).
    let beforeCommand: (@Sendable (String) async -> Void)?

    public init(service: HealthService, subscriptions: HealthSubscriptions, maxConcurrent: Int = 4,
                defaultTimeout: Duration = .seconds(30), writesEnabled: Bool = false,
                beforeCommand: (@Sendable (String) async -> Void)? = nil) {
        self.writesEnabled = writesEnabled
        self.service = service.acting(as: .gateway())
        self.subscriptions = subscriptions
        self.maxConcurrent = max(1, maxConcurrent)
        self.defaultTimeout = defaultTimeout
        self.limiter = InvokeLimiter(limit: max(1, maxConcurrent))
        self.beforeCommand = beforeCommand
    }

    /// Runs one invoke to its result, within its timeout.
    public func invoke(_ request: NodeInvokeRequest) async -> NodeInvokeResultParams {
        guard declaredCommands.contains(request.command) else {
            return .failure(request, .invalidRequest("unknown command"))
        }
        let range = GatewaySessionRules.invokeTimeoutRangeMs
        let timeout = request.timeoutMs.flatMap { $0 > 0 ? Duration.milliseconds(min($0, range.upperBound)) : nil }
            ?? defaultTimeout
        let outcome = await runWithTimeout(timeout, command: request.command) {
            await self.limiter.acquire()
            do {
                try Task.checkCancellation()
                let payload = try await self.execute(command: request.command, paramsJSON: request.paramsJSON)
                await self.limiter.release()
                return payload
            } catch {
                await self.limiter.release()
                throw error
            }
        }
        switch outcome {
        case .success(let payload): return .success(request, payloadJSON: payload)
        case .failure(let error): return .failure(request, error)
        }
    }

    /// Races `work` against `timeout`: whichever ends first answers; the loser is cancelled.
    func runWithTimeout(_ timeout: Duration, command: String,
                        _ work: @escaping @Sendable () async throws -> String?) async -> Result<String?, NodeInvokeError> {
        let race = Race()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<String?, NodeInvokeError>, Never>) in
                race.arm(continuation)
                let worker = Task {
                    let result: Result<String?, NodeInvokeError>
                    do { result = .success(try await work()) } catch { result = .failure(Self.nodeError(error)) }
                    race.finish(result)
                }
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    if Task.isCancelled { return }
                    let ms = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
                    race.finish(.failure(.unavailable("\(command) timed out after \(ms) ms")))
                }
                race.attach(worker: worker, timer: timer)
            }
        } onCancel: {
            race.finish(.failure(.unavailable("\(command) cancelled: the node is disconnecting")))
        }
    }

    /// Runs a command: decodes its params, calls the service, encodes its payload (nil for no payload).
    public func execute(command: String, paramsJSON: String?) async throws -> String? {
        if let beforeCommand { await beforeCommand(command) }
        switch OpenClawHealthCommand(rawValue: command) {
        case .query:
            let object = try Self.paramsObject(paramsJSON, command: command)
            try Self.checkKeys(object, allowed: ["type", "startISO", "endISO", "limit", "ascending"], command: command)
            let params = try Self.decode(OpenClawHealthQueryParams.self, object, command: command)
            return try Self.encode(try await service.query(params))
        case .summary:
            let object = try Self.paramsObject(paramsJSON, command: command)
            let hasPeriod = object["period"] != nil, hasType = object["type"] != nil
            if hasPeriod && hasType {
                throw NodeInvokeError.invalidArgument("health.summary takes either type (with startISO, endISO, interval) or period (\"today\"), not both")
            }
            if hasPeriod || object.isEmpty {
                // Upstream OpenClaw's own form: {"period":"today"}.
                try Self.checkKeys(object, allowed: ["period"], command: command)
                let params = object.isEmpty ? OpenClawUpstreamSummaryParams(period: "today")
                    : try Self.decode(OpenClawUpstreamSummaryParams.self, object, command: command)
                guard params.period == "today" else {
                    throw NodeInvokeError.invalidArgument("period must be \"today\", got \"\(params.period)\"")
                }
                return try Self.encode(try await service.upstreamSummary(params))
            }
            try Self.checkKeys(object, allowed: ["type", "startISO", "endISO", "interval", "contributions"], command: command)
            let params = try Self.decode(OpenClawHealthSummaryParams.self, object, command: command)
            return try Self.encode(try await service.summary(params))
        case .subscribe, .unsubscribe:
            let object = try Self.paramsObject(paramsJSON, command: command)
            try Self.checkKeys(object, allowed: ["types"], command: command)
            let params = try Self.decode(OpenClawHealthSubscribeParams.self, object, command: command)
            guard !params.types.isEmpty else {
                throw NodeInvokeError.invalidArgument("types must name at least one type, e.g. [\"heartRate\"]")
            }
            if command == OpenClawHealthCommand.subscribe.rawValue {
                try await subscriptions.subscribe(params.types)
            } else {
                try await subscriptions.unsubscribe(params.types)
            }
            return nil
        case .write where writesEnabled:
            var object = try Self.paramsObject(paramsJSON, command: command)
            if object["samples"] == nil { object = ["samples": .array([.object(object)])] }
            try Self.checkKeys(object, allowed: ["samples"], command: command)
            let params = try Self.decode(OpenClawHealthWriteParams.self, object, command: command)
            let result = try await service.save(params.samples.map {
                SampleInput(type: $0.type, value: $0.value, unit: $0.unit, category: $0.category, start: $0.startISO,
                            end: $0.endISO, metadata: $0.metadata, logId: $0.logId, syncId: $0.syncId,
                            syncVersion: $0.syncVersion)
            })
            return try Self.encode(result)
        case .delete where writesEnabled:
            let object = try Self.paramsObject(paramsJSON, command: command)
            try Self.checkKeys(object, allowed: ["logId", "uuid", "syncId"], command: command)
            let params = try Self.decode(OpenClawHealthDeleteParams.self, object, command: command)
            return try Self.encode(try await service.delete(DeleteRequest(uuid: params.uuid, logId: params.logId,
                                                                          syncId: params.syncId)))
        case .write, .delete:
            throw NodeInvokeError.invalidRequest("unknown command")
        case .sleep:
            let object = try Self.paramsObject(paramsJSON, command: command)
            try Self.checkKeys(object, allowed: ["startISO", "endISO"], command: command)
            let params = try Self.decode(OpenClawHealthSleepParams.self, object, command: command)
            return try Self.encode(try await service.sleep(params))
        case .coverage:
            let object = try Self.paramsObject(paramsJSON, command: command)
            try Self.checkKeys(object, allowed: ["type", "startISO", "endISO", "interval"], command: command)
            let params = try Self.decode(OpenClawHealthCoverageParams.self, object, command: command)
            return try Self.encode(try await service.coverage(params))
        case nil:
            throw NodeInvokeError.invalidRequest("unknown command")
        }
    }

    // MARK: Params

    /// The params object: absent, empty or `null` params are `{}`.
    static func paramsObject(_ paramsJSON: String?, command: String) throws -> [String: JSONValue] {
        guard let text = paramsJSON, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [:] }
        let value: JSONValue
        do { value = try JSONValue(json: text) } catch {
            throw NodeInvokeError.invalidArgument("paramsJSON of \(command) is not valid JSON")
        }
        switch value {
        case .null: return [:]
        case .object(let object): return object
        default: throw NodeInvokeError.invalidArgument("params of \(command) must be a JSON object")
        }
    }

    static func checkKeys(_ object: [String: JSONValue], allowed: [String], command: String) throws {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw NodeInvokeError.invalidArgument("unknown parameter '\(unknown)' for \(command) (allowed: \(allowed.joined(separator: ", ")))")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ object: [String: JSONValue], command: String) throws -> T {
        do {
            return try JSONValue.object(object).decode(T.self)
        } catch let error as DecodingError {
            func name(_ path: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
                let keys = (path + (key.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                return keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
            }
            switch error {
            case .keyNotFound(let key, let context):
                throw NodeInvokeError.invalidArgument("\(command) needs the parameter '\(name(context.codingPath, key))'")
            case .typeMismatch(let expected, let context):
                throw NodeInvokeError.invalidArgument("parameter '\(name(context.codingPath))' of \(command) must be \(describe(expected))")
            case .valueNotFound(let expected, let context):
                throw NodeInvokeError.invalidArgument("parameter '\(name(context.codingPath))' of \(command) must be \(describe(expected)), not null")
            case .dataCorrupted(let context):
                throw NodeInvokeError.invalidArgument("parameter '\(name(context.codingPath))' of \(command) is invalid")
            @unknown default:
                throw NodeInvokeError.invalidArgument("invalid params for \(command)")
            }
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "a \(type)"
        }
    }

    static func encode<T: Encodable>(_ payload: T) throws -> String {
        String(decoding: try JSONEncoder.wire.encode(payload), as: UTF8.self)
    }

    /// A ``HealthError/Hint`` in the node's words: its command that does it (the node has none listing types or
    /// workouts); what only the owner can do, the command they run on the server.
    ///
    /// ```swift
    /// NodeInvokeHandler.hint(.sleepNights)   // "health.sleep lists the nights"
    /// ```
    public static func hint(_ hint: HealthError.Hint) -> String? {
        switch hint {
        case .listTypes, .listWorkouts: nil
        case .listSources: "health.coverage lists a type's sources"
        case .sleepNights: "health.sleep lists the nights"
        case .ownerChangesGrants: "the owner runs `healthbridge grants` on the server"
        case .ownerSharesTypes: "the owner shares types with `healthbridge sharing types --enable` or `healthbridge grants`"
        case .ownerAllowsWrite(let principal, let type):
            "the owner runs `healthbridge grants \(principal) --allow-write \(type)` on the server"
        case .ownerResumesSharing: "the owner runs `healthbridge sharing resume` on the server"
        }
    }

    /// Maps any error to `{code, message}`, the service's hint in the node's words.
    static func nodeError(_ error: any Error) -> NodeInvokeError {
        switch error {
        case let error as NodeInvokeError: return error
        case let error as HealthError: return NodeInvokeError(code: error.code.rawValue, error.rendered(hint).message)
        case is CancellationError: return .unavailable("cancelled")
        default: return .unavailable("\(error)")
        }
    }
}

/// A one-shot race between an invoke's work and its timer.
final class Race: Sendable {
    typealias Outcome = Result<String?, NodeInvokeError>
    struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var result: Outcome?
        var worker: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }
    let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<Outcome, Never>) {
        let early = state.withLock { state -> Outcome? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func attach(worker: Task<Void, Never>, timer: Task<Void, Never>) {
        let finished = state.withLock { state -> Bool in
            state.worker = worker; state.timer = timer
            return state.result != nil
        }
        if finished { worker.cancel(); timer.cancel() }
    }

    func finish(_ result: Outcome) {
        let taken = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?, Task<Void, Never>?)? in
            if state.result != nil { return nil }
            state.result = result
            let continuation = state.continuation
            state.continuation = nil
            return (continuation, state.worker, state.timer)
        }
        guard let (continuation, worker, timer) = taken else { return }
        worker?.cancel()
        timer?.cancel()
        continuation?.resume(returning: result)
    }
}

/// At most `limit` commands run at once; the others wait in order.
actor InvokeLimiter {
    let limit: Int
    var running = 0
    var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            running -= 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
