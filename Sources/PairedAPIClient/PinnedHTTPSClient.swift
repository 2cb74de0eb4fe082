import Foundation
import HealthAPI
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A minimal HTTPS/1.1 client that trusts exactly one server certificate: the one whose SHA-256 fingerprint it was
/// given. Every connection checks the fingerprint in the TLS handshake (before any byte of the request is sent); a
/// different certificate is refused with ``PairedAPIClientError/fingerprintMismatch(host:port:expected:presented:)``,
/// which names both fingerprints. Host names are not checked: the pin is stronger than any name.
///
/// One connection per request, TLS 1.2 or newer (1.3 preferred).
public struct PinnedHTTPSClient: Sendable {
    public var host: String
    public var port: Int
    /// The pinned fingerprint, normalised (64 lowercase hex digits).
    public var fingerprint: String
    public var timeout: Duration
    /// The largest response body accepted.
    public var maxResponseBytes: Int

    public init(host: String, port: Int, fingerprint: String, timeout: Duration = .seconds(30),
                maxResponseBytes: Int = 64 << 20) {
        self.host = host; self.port = port
        self.fingerprint = CertificateFingerprint.normalize(fingerprint) ?? fingerprint
        self.timeout = timeout; self.maxResponseBytes = maxResponseBytes
    }

    /// One HTTP answer.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        public func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    /// Sends one request and returns the answer, whatever its status.
    public func send(method: String, path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> Reply {
        let presented = Mutex<String?>(nil)
        let expected = fingerprint
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        // The custom callback replaces BoringSSL's chain checks; `.none` would skip the callback altogether.
        tls.certificateVerification = .noHostnameVerification
        tls.shutdownTimeout = .milliseconds(100)
        let context = try NIOSSLContext(configuration: tls)
        let serverName = Self.isIPAddress(host) ? nil : host
        let host = self.host, port = self.port, limit = maxResponseBytes

        let work: @Sendable () async throws -> Reply = {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(
                            context: context, serverHostname: serverName,
                            customVerificationCallback: { certificates, promise in
                                guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else {
                                    presented.withLock { $0 = "(no certificate)" }
                                    promise.succeed(.failed)
                                    return
                                }
                                let actual = CertificateFingerprint.sha256(der: der)
                                if CertificateFingerprint.matches(actual, expected) {
                                    promise.succeed(.certificateVerified)
                                } else {
                                    presented.withLock { $0 = actual }
                                    promise.succeed(.failed)
                                }
                            })
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
            return try await channel.executeThenClose { inbound, outbound in
                var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path)
                head.headers.add(name: "Host", value: Self.isIPv6(host) ? "[\(host)]:\(port)" : "\(host):\(port)")
                head.headers.add(name: "User-Agent", value: "healthbridge-client")
                head.headers.add(name: "Connection", value: "close")
                for (name, value) in headers { head.headers.add(name: name, value: value) }
                if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
                try await outbound.write(.head(head))
                if let body, !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))

                var status = 0
                var replyHeaders: [(String, String)] = []
                var bytes: [UInt8] = []
                for try await part in inbound {
                    switch part {
                    case .head(let responseHead):
                        status = Int(responseHead.status.code)
                        replyHeaders = responseHead.headers.map { ($0.name, $0.value) }
                    case .body(let buffer):
                        guard bytes.count + buffer.readableBytes <= limit else {
                            throw PairedAPIClientError.responseTooLarge(limit)
                        }
                        bytes.append(contentsOf: buffer.readableBytesView)
                    case .end:
                        return Reply(status: status, headers: replyHeaders, body: bytes)
                    }
                }
                throw PairedAPIClientError.connectionClosed
            }
        }

        do {
            return try await Self.withTimeout(timeout, work)
        } catch {
            if let actual = presented.withLock({ $0 }) {
                throw PairedAPIClientError.fingerprintMismatch(host: host, port: port, expected: expected, presented: actual)
            }
            if let clientError = error as? PairedAPIClientError { throw clientError }
            throw PairedAPIClientError.transport(host: host, port: port, message: Self.describe(error))
        }
    }

    static func withTimeout<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw PairedAPIClientError.timedOut(timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw PairedAPIClientError.connectionClosed }
            return first
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.first.map { "\($0.error)" } ?? "\(error)"
        }
        if let error = error as? IOError { return error.description }
        return String(describing: error)
    }

    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    static func isIPv6(_ host: String) -> Bool { host.contains(":") }
}

/// What the export client reports. Every case has a message a person can act on.
public enum PairedAPIClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case fingerprintMismatch(host: String, port: Int, expected: String, presented: String)
    case transport(host: String, port: Int, message: String)
    case timedOut(Duration)
    case connectionClosed
    case responseTooLarge(Int)
    /// An HTTP error answer from the server: status, stable code, message, request id.
    case server(status: Int, code: String, message: String, requestId: String?, retryAfter: Int?)
    case malformedResponse(String)
    case notPaired(String)
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .fingerprintMismatch(let host, let port, let expected, let presented):
            return """
                refusing to talk to \(host):\(port): its certificate fingerprint is \(presented), \
                but the paired fingerprint is \(expected). Someone may be impersonating the server, or it made a new \
                identity; if you trust it, pair again with a fresh code.
                """
        case .transport(let host, let port, let message):
            return "cannot reach \(host):\(port): \(message)"
        case .timedOut(let duration):
            return "no answer within \(duration)"
        case .connectionClosed:
            return "the server closed the connection before answering"
        case .responseTooLarge(let limit):
            return "the answer is larger than \(limit) bytes"
        case .server(let status, let code, let message, let requestId, let retryAfter):
            var text = "HTTP \(status) \(code): \(message)"
            if let retryAfter { text += " (retry after \(retryAfter) s)" }
            if let requestId { text += " [request \(requestId)]" }
            return text
        case .malformedResponse(let message):
            return "unexpected answer from the server: \(message)"
        case .notPaired(let message):
            return message
        case .invalidArgument(let message):
            return message
        }
    }
}
