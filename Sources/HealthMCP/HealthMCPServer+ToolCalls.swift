import Foundation
import Logging
import MCP

/// A transport in front of another that answers `tools/call` requests itself and hands every other message
/// (initialize, tools/list, ping, notifications, responses, malformed input) to the SDK's `Server` unchanged.
///
/// Why: the SDK decodes every incoming message up to four times (as a batch, a response, then a request whose params
/// become `Value`s, then the typed parameters through a re-encode), and decoding each string into a `Value` compiles
/// a data-URL regular expression; that was about 60 % of the CPU of a `latest` call and made HealthBridge slower per
/// call than a Python FastMCP server. Here a tool call is decoded once, straight into the toolbox's arguments, and its
/// response is encoded once, as the SDK would (`CallTool.response`, sorted keys, unescaped slashes). Each call runs
/// in its own child task, so that a long one does not hold back the next messages; when the input ends, the calls
/// already received are answered before the SDK's server sees the end.
///
/// ```swift
/// let transport = ToolCallTransport(BlockingStdioTransport(logger: logger), toolbox: toolbox, logger: logger)
/// try await server.start(transport: transport)
/// ```
public actor ToolCallTransport: Transport {
    public nonisolated let logger: Logger
    private let inner: any Transport
    private let toolbox: HealthToolbox
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var pump: Task<Void, Never>?
    /// Requests handed to the SDK and not answered yet: at the end of the input the stream to the SDK stays open
    /// until they are (the SDK stops at the end of its stream and drops what it has not sent).
    private var unanswered: Set<ID> = []
    /// How long the end of the input waits for the SDK's answers.
    static let drainTimeout: Duration = .seconds(5)

    public init(_ inner: any Transport, toolbox: HealthToolbox, logger: Logger) {
        self.inner = inner
        self.toolbox = toolbox
        self.logger = logger
        (messages, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    }

    public func connect() async throws {
        guard pump == nil else { return }
        try await inner.connect()
        let source = await inner.receive()
        let continuation = continuation, inner = inner, toolbox = toolbox, logger = logger
        pump = Task {
            // The calls are children of a discarding group: when stdin closes, the stream to the SDK ends only after
            // every call already received has been answered.
            let failure: (any Error)? = await withDiscardingTaskGroup { group in
                do {
                    for try await data in source {
                        guard let call = ToolCallRequest.parse(data) else {
                            if let id = MessageHead.requestID(data) { self.expectAnswer(id) }
                            continuation.yield(data)
                            continue
                        }
                        group.addTask {
                            let result = await toolbox.call(call.name, arguments: call.arguments)
                            do {
                                try await inner.send(try ToolCallRequest.encode(CallTool.response(id: call.id, result: result)))
                            } catch {
                                logger.error("cannot send a tools/call response", metadata: ["error": "\(error)"])
                            }
                        }
                    }
                    return nil
                } catch {
                    return error
                }
            }
            await self.drain()
            continuation.finish(throwing: failure)
        }
    }

    private func expectAnswer(_ id: ID) {
        unanswered.insert(id)
    }

    /// Waits (at most ``drainTimeout``) until the SDK has answered every request it was handed.
    private func drain() async {
        let deadline = ContinuousClock.now + Self.drainTimeout
        while !unanswered.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    public func disconnect() async {
        await inner.disconnect()
        pump?.cancel()
        continuation.finish()
    }

    public func send(_ data: Data) async throws {
        if !unanswered.isEmpty, let id = MessageHead.responseID(data) { unanswered.remove(id) }
        try await inner.send(data)
    }

    public func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }
}

/// A `tools/call` request as it arrives, decoded in one pass (arguments as plain JSON values).
struct ToolCallRequest: Decodable, Sendable {
    var jsonrpc: String
    var id: ID
    var method: String
    var params: Params

    struct Params: Decodable, Sendable {
        var name: String
        var arguments: [String: PlainValue]?
    }

    var name: String { params.name }
    var arguments: [String: Value]? { params.arguments?.mapValues(\.value) }

    static let marker = Array("\"tools/call\"".utf8)

    /// The request when `data` is a well-formed JSON-RPC `tools/call` request; nil for anything else (left to the SDK).
    static func parse(_ data: Data) -> ToolCallRequest? {
        // Most messages are not tool calls: look for the method name before decoding anything.
        guard data.withUnsafeBytes({ contains(marker, in: $0) }),
              let request = try? JSONDecoder().decode(ToolCallRequest.self, from: data),
              request.jsonrpc == "2.0", request.method == CallTool.name else { return nil }
        return request
    }

    static func contains(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard haystack.count >= needle.count, let first = needle.first else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var match = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    match = false
                    break
                }
                if match { return true }
            }
            index += 1
        }
        return false
    }

    /// Encodes a response exactly as the SDK's server does.
    static func encode(_ response: Response<CallTool>) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(response)
    }
}

/// The id and method of a JSON-RPC message, to follow the requests the SDK answers.
struct MessageHead: Decodable {
    var id: ID?
    var method: String?
    var result: PlainValue?
    var error: PlainValue?

    /// The id of a request (a message with an id and a method).
    static func requestID(_ data: Data) -> ID? {
        guard let head = try? JSONDecoder().decode(MessageHead.self, from: data), head.method != nil else { return nil }
        return head.id
    }

    /// The id of a response (a message with an id and a result or an error).
    static func responseID(_ data: Data) -> ID? {
        guard let head = try? JSONDecoder().decode(MessageHead.self, from: data), head.method == nil,
              head.result != nil || head.error != nil else { return nil }
        return head.id
    }
}

/// A JSON value of tool arguments, decoded without the SDK's per-string data-URL detection (no tool takes binary
/// data).
enum PlainValue: Decodable, Sendable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([PlainValue]), object([String: PlainValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([PlainValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: PlainValue].self)) }
    }

    var value: Value {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.value))
        case .object(let values): .object(values.mapValues(\.value))
        }
    }
}
