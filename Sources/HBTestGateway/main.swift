// hb-test-gateway: the test gateway of HealthBridgeTesting (TestGateway) as a small executable, for scripts that
// run `healthbridge node` against it (IntegrationTests/soak.py). Not part of the `healthbridge` product.
//
// Usage: hb-test-gateway [--token TOKEN] [--port PORT (0: a free one)] [--tick-ms MS (15000)]
//                        [--ping-seconds S (15; 0: no pings)] [--no-pairing (every device is accepted)]
// To watch a node by hand: `hb-test-gateway --port 18789 --token TOKEN --no-pairing` and
// `healthbridge node --gateway ws://127.0.0.1:18789 --token TOKEN`; its health.update events show on stdout.
//
// It listens on 127.0.0.1 and speaks a line-based JSON control protocol: one JSON object a line
// on stdin, one a line on stdout. Its own log goes to stderr.
//
// First line out:  {"event":"ready","url":"ws://127.0.0.1:PORT","port":PORT}
// Requests in:     {"id":ID,"op":OP,…}; answered by {"id":ID,"ok":true,"result":…} or {"id":ID,"ok":false,"error":TEXT},
//                  possibly out of order (each request runs on its own). ID is echoed as given (a number or a string).
//   wait-pairing  {timeoutMs}                → {"requests":{REQUEST_ID:DEVICE_ID,…}} once a node asked for pairing
//   approve       {request}                  → {"deviceId":…}; REQUEST is a pairing request id or a device id
//   wait-node     {timeoutMs}                → {"nodeId":…} once a node is connected (after hello-ok)
//   invoke        {command, params?, timeoutMs?} → {"ok":BOOL,"payload":JSON|null,"error":{code,message}|null}, the
//                 node's answer; ok:false at the control level when the gateway refused the command (policy), no node
//                 is connected, or no result came within timeoutMs
//   stats         {}                         → {connects, refused_connects, disconnects, invokes, late_results, events,
//                 health_updates, ticks_sent, auto_ping_seconds, violations: [TEXT…]}
//   stop          {}                         → {} then closes every connection and exits 0 (as end of input does)
// Events out (no id), in the order the gateway saw them: an event is written before the answer of any invoke whose
// result the node sent after it.
//   {"event":"health.update","payload":{type, latestSamples}}   every well-formed health.update (others are violations)
//   {"event":"disconnect","nodeId":…,"closeCode":INT|null,"reason":TEXT}   a node session ended

import Foundation
import GatewayNode
import HealthAPI
import HealthBridgeTesting
import Logging
import Synchronization

/// The control protocol's output: whole lines on stdout, one writer at a time.
final class ControlOutput: Sendable {
    private let lock = Mutex(())

    /// Writes `message` as one line.
    func send(_ message: JSONValue) {
        send(line: message.jsonText)
    }

    /// Writes `text`, JSON on one line already, as one line.
    func send(line text: String) {
        let line = Array((text + "\n").utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < line.count {
                let written = line[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// What this executable counts besides TestGateway's state.
struct Counters: Sendable {
    var invokes = 0
    var healthUpdates = 0
    var events: [String: Int] = [:]
    var violations: [String] = []
}

/// ``Counters`` behind a lock, shared by the gateway's hooks and the requests.
final class CounterBox: Sendable {
    private let lock = Mutex(Counters())
    func withLock<Result>(_ body: (inout Counters) -> Result) -> Result { lock.withLock { body(&$0) } }
}

/// Parses the command line; nil after printing the usage on a bad one.
func parseOptions(_ arguments: [String]) -> (config: TestGateway.Config, pingSeconds: Int)? {
    var config = TestGateway.Config()
    config.tickIntervalMs = 15_000
    config.requirePairing = true
    config.retainResults = false
    var pingSeconds = 15
    var index = 0
    func value() -> String? {
        index += 1
        return index < arguments.count ? arguments[index] : nil
    }
    while index < arguments.count {
        switch arguments[index] {
        case "--token":
            guard let token = value() else { return nil }
            config.token = token
        case "--port":
            guard let text = value(), let port = Int(text), (0...65_535).contains(port) else { return nil }
            config.port = port
        case "--tick-ms":
            guard let text = value(), let milliseconds = Int(text), milliseconds > 0 else { return nil }
            config.tickIntervalMs = milliseconds
        case "--ping-seconds":
            guard let text = value(), let seconds = Int(text), seconds >= 0 else { return nil }
            pingSeconds = seconds
        case "--no-pairing":
            config.requirePairing = false
        default:
            return nil
        }
        index += 1
    }
    config.autoPing = pingSeconds > 0 ? .seconds(pingSeconds) : nil
    return (config, pingSeconds)
}

guard let (baseConfig, pingSeconds) = parseOptions(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(Data(
        "usage: hb-test-gateway [--token TOKEN] [--port PORT] [--tick-ms MS] [--ping-seconds S] [--no-pairing]\n".utf8))
    exit(64)
}

let output = ControlOutput()
let counters = CounterBox()
var logger = Logger(label: "hb-test-gateway") { StreamLogHandler.standardError(label: $0) }
logger.logLevel = .warning
var config = baseConfig
config.logger = logger
config.onEvent = { record in
    var payload: JSONValue?
    var problem: String?
    if record.event == "health.update" {
        if let text = record.payloadJSON, let parsed = try? JSONValue(json: text) {
            problem = Schemas.updatePayload.validate(parsed).map { "health.update: \($0)" }
            payload = parsed
        } else {
            problem = "health.update without a JSON payloadJSON"
        }
    }
    counters.withLock { counters in
        counters.events[record.event, default: 0] += 1
        if let problem {
            counters.violations.append(problem)
        } else if payload != nil {
            counters.healthUpdates += 1
        }
    }
    if problem == nil, let payload {
        output.send(.object(["event": .string("health.update"), "payload": payload]))
    }
}
config.onDisconnect = { record in
    output.send(.object(["event": .string("disconnect"), "nodeId": .string(record.nodeId),
                         "closeCode": record.closeCode.map { .int(Int64($0)) } ?? .null,
                         "reason": .string(record.reason)]))
}

let gateway: TestGateway
do {
    gateway = try await TestGateway.start(config)
} catch {
    FileHandle.standardError.write(Data("hb-test-gateway: \(error)\n".utf8))
    exit(1)
}
output.send(.object(["event": .string("ready"), "url": .string(gateway.url), "port": .int(Int64(gateway.port))]))

/// The lines of stdin, read on a thread of their own (reads block).
let (lines, lineSink) = AsyncStream<String>.makeStream()
Thread.detachNewThread {
    while let line = readLine() { lineSink.yield(line) }
    lineSink.finish()
}

/// Answers the control requests against one gateway.
final class Control: Sendable {
    let gateway: TestGateway
    let output: ControlOutput
    let counters: CounterBox
    let pingSeconds: Int

    init(gateway: TestGateway, output: ControlOutput, counters: CounterBox, pingSeconds: Int) {
        self.gateway = gateway
        self.output = output
        self.counters = counters
        self.pingSeconds = pingSeconds
    }

    /// Milliseconds from a request's `timeoutMs`, else `fallback`.
    func milliseconds(_ request: JSONValue, _ fallback: Int64) -> Int64 {
        max(0, request["timeoutMs"]?.intValue ?? fallback)
    }

    /// One request: its result, or the text of its failure.
    func perform(_ op: String, _ request: JSONValue) async -> Result<Answer, ControlError> {
        switch op {
        case "wait-pairing":
            let timeout = milliseconds(request, 30_000)
            let asked = await gateway.wait(.milliseconds(timeout)) { !$0.pairingRequests.isEmpty }
            guard asked else { return .failure(ControlError("no pairing request within \(timeout) ms")) }
            let requests = gateway.snapshot().pairingRequests.mapValues { JSONValue.string($0) }
            return .success(.value(.object(["requests": .object(requests)])))
        case "approve":
            guard let asked = request["request"]?.stringValue, !asked.isEmpty else {
                return .failure(ControlError("approve needs a request (a pairing request id or a device id)"))
            }
            var deviceId = asked
            gateway.update { state in
                deviceId = state.pairingRequests[asked] ?? asked
                state.approved.insert(deviceId)
                state.pairingRequests = state.pairingRequests.filter { $0.value != deviceId }
            }
            return .success(.value(.object(["deviceId": .string(deviceId)])))
        case "wait-node":
            let timeout = milliseconds(request, 30_000)
            guard let session = await gateway.waitForNode(.milliseconds(timeout)) else {
                return .failure(ControlError("no node connected within \(timeout) ms"))
            }
            return .success(.value(.object(["nodeId": .string(session.nodeId)])))
        case "invoke":
            guard let command = request["command"]?.stringValue else { return .failure(ControlError("invoke needs a command")) }
            let timeout = milliseconds(request, 30_000)
            let params = request["params"].flatMap { $0.isNull ? nil : $0 }
            counters.withLock { $0.invokes += 1 }
            switch await gateway.invoke(command, params: params, timeoutMs: Int(timeout)) {
            case .ok(let payloadJSON):
                // The node's payload goes out as it came (parsing and re-encoding a large one is most of the cost of
                // an invoke here); checked to be JSON, and on one line.
                guard let payloadJSON else {
                    return .success(.value(.object(["ok": .bool(true), "payload": .null, "error": .null])))
                }
                guard (try? JSONSerialization.jsonObject(with: Data(payloadJSON.utf8), options: .fragmentsAllowed)) != nil
                else {
                    counters.withLock { $0.violations.append("node.invoke.result payloadJSON is not JSON: \(payloadJSON.prefix(80))") }
                    return .success(.value(.object(["ok": .bool(true), "payload": .null, "error": .null])))
                }
                if payloadJSON.utf8.contains(where: { $0 == 10 || $0 == 13 }), let parsed = try? JSONValue(json: payloadJSON) {
                    return .success(.value(.object(["ok": .bool(true), "payload": parsed, "error": .null])))
                }
                return .success(.raw("{\"ok\":true,\"error\":null,\"payload\":" + payloadJSON + "}"))
            case .error(let code, let message):
                return .success(.value(.object(["ok": .bool(false), "payload": .null, "error": .object([
                    "code": .string(code), "message": .string(message)])])))
            case .timeout:
                return .failure(ControlError("\(command): no node.invoke.result within \(timeout) ms"))
            case .refused(let reason):
                return .failure(ControlError("INVALID_REQUEST: node command not allowed (\(reason))"))
            case .noNode:
                return .failure(ControlError("no node connected"))
            }
        case "stats":
            let state = gateway.snapshot()
            let mine = counters.withLock { $0 }
            let refused = state.connects.filter { !$0.ok }.map { JSONValue.string($0.detailCode ?? $0.code ?? "?") }
            return .success(.value(.object([
                "connects": .int(Int64(state.connects.filter(\.ok).count)),
                "refused_connects": .array(refused),
                "disconnects": .int(Int64(state.disconnects.count)),
                "invokes": .int(Int64(mine.invokes)),
                "late_results": .int(Int64(state.lateResults.count)),
                "events": .object(mine.events.mapValues { .int(Int64($0)) }),
                "health_updates": .int(Int64(mine.healthUpdates)),
                "ticks_sent": .int(Int64(state.ticksSent)),
                "auto_ping_seconds": .int(Int64(pingSeconds)),
                "violations": .array((state.violations + mine.violations).map { .string($0) }),
            ])))
        case "stop":
            return .success(.value(.object([:])))
        default:
            return .failure(ControlError("unknown op \(op)"))
        }
    }

    /// Answers one request line on a task of its own; true when it asked to stop.
    func answer(_ line: String) async -> Bool {
        guard let request = try? JSONValue(json: line), let op = request["op"]?.stringValue else {
            output.send(.object(["id": .null, "ok": .bool(false), "error": .string("not a request: \(line.prefix(80))")]))
            return false
        }
        let id = request["id"] ?? .null
        switch await perform(op, request) {
        case .success(.value(let result)):
            output.send(.object(["id": id, "ok": .bool(true), "result": result]))
        case .success(.raw(let result)):
            output.send(line: "{\"id\":\(id.jsonText),\"ok\":true,\"result\":\(result)}")
        case .failure(let error):
            output.send(.object(["id": id, "ok": .bool(false), "error": .string(error.text)]))
        }
        return op == "stop"
    }
}

/// A request's result: a value, or JSON text already (on one line) that goes out as it is.
enum Answer: Sendable {
    case value(JSONValue)
    case raw(String)
}

/// A request that failed: its text goes back as `error`.
struct ControlError: Error {
    var text: String
    init(_ text: String) { self.text = text }
}

let control = Control(gateway: gateway, output: output, counters: counters, pingSeconds: pingSeconds)
await withTaskGroup(of: Bool.self) { group in
    for await line in lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
        if (try? JSONValue(json: line))?["op"]?.stringValue == "stop" {
            _ = await control.answer(line)
            break
        }
        group.addTask { await control.answer(line) }
    }
    group.cancelAll()
}
await gateway.stop()
exit(0)
