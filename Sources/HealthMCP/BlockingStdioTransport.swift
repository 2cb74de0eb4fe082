import Foundation
import Logging
import MCP

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// MCP's stdio transport without polling: newline-delimited JSON-RPC messages read from stdin by a blocking `read(2)`
/// on a dedicated thread, written to stdout with `write(2)` by the actor itself (one message at a time, no thread
/// hop: a reply leaves as soon as it is encoded).
///
/// The SDK's `StdioTransport` puts stdin in non-blocking mode and sleeps 10 ms whenever no data is waiting, which adds
/// up to 10 ms to every request a client sends after a pause — about 2 s over 200 sequential calls. Here a message
/// is handed to the server as soon as the kernel has it. If the file descriptor was left non-blocking by a parent
/// process, the reader waits in `poll(2)`, never in a sleep.
///
/// ```swift
/// let transport = BlockingStdioTransport(logger: logger)
/// try await server.start(transport: transport)
/// await server.waitUntilCompleted()   // returns when stdin closes
/// ```
public actor BlockingStdioTransport: Transport {
    public nonisolated let logger: Logger
    private let input: Int32
    private let output: Int32
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var connected = false
    private var started = false

    /// Messages longer than this are dropped (with an error logged) instead of buffered without bound.
    public static let maxMessageBytes = 64 << 20

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, logger: Logger? = nil) {
        self.input = input
        self.output = output
        self.logger = logger ?? Logger(label: "healthbridge.mcp.stdio", factory: { _ in SwiftLogNoOpLogHandler() })
        (messages, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    }

    public func connect() async throws {
        guard !started else { return }
        started = true
        connected = true
        let fd = input, continuation = continuation, logger = logger
        let thread = Thread { Self.readLoop(fd: fd, continuation: continuation, logger: logger) }
        thread.name = "healthbridge.mcp.stdin"
        thread.stackSize = 1 << 20
        thread.start()
        logger.debug("stdio transport connected")
    }

    public func disconnect() async {
        guard connected else { return }
        connected = false
        continuation.finish()
        logger.debug("stdio transport disconnected")
    }

    public func send(_ data: Data) async throws {
        guard connected else { throw MCPError.connectionClosed }
        var framed = data
        framed.append(UInt8(ascii: "\n"))
        // The actor serialises writes, so messages never interleave. A write blocks only while the pipe to the client
        // is full, which holds back nothing but further writes.
        try Self.writeAll(fd: output, framed)
    }

    public func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    // MARK: Reading

    /// Reads until end of file, yielding each complete line (without its `\n` or `\r\n`); blank lines are skipped.
    static func readLoop(fd: Int32, continuation: AsyncThrowingStream<Data, any Error>.Continuation, logger: Logger) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var pending: [UInt8] = []
        var discarding = false
        func emit(_ bytes: ArraySlice<UInt8>) {
            var line = bytes
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.contains(where: { $0 != 32 && $0 != 9 }) else { return }
            continuation.yield(Data(line))
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    _ = poll(&descriptor, 1, -1)
                    continue
                }
                logger.error("stdin read failed", metadata: ["errno": "\(code)"])
                continuation.finish(throwing: MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)))
                return
            }
            if count == 0 { break }
            var lineStart = 0
            for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                if discarding {
                    discarding = false
                } else if pending.isEmpty {
                    emit(buffer[lineStart..<index])
                } else {
                    pending.append(contentsOf: buffer[lineStart..<index])
                    emit(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                lineStart = index + 1
            }
            if !discarding, lineStart < count {
                pending.append(contentsOf: buffer[lineStart..<count])
                if pending.count > maxMessageBytes {
                    logger.error("message over the size limit dropped", metadata: ["bytes": "\(pending.count)"])
                    pending = []
                    discarding = true
                }
            }
        }
        if !discarding, !pending.isEmpty { emit(pending[...]) }
        logger.debug("stdin closed")
        continuation.finish()
    }

    // MARK: Writing

    static func writeAll(fd: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, -1)
                    continue
                }
                if code == EPIPE { throw MCPError.connectionClosed }
                throw MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
            }
        }
    }
}
