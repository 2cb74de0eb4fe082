import Foundation
import HealthAPI
import HealthModel

/// The paired export server, as the `healthbridge` client commands use it: pairing, status, types and data over
/// pinned TLS, error answers turned into ``PairedAPIClientError``.
///
/// ```swift
/// let record = try await PairedAPIRemote.pair(host: "192.168.1.20", port: 8443, fingerprint: fp, code: "K7M2-9QXP",
///                                          clientName: "laptop")
/// let remote = PairedAPIRemote(server: record)
/// let page = try await remote.data(DataRequest(types: ["stepCount"], start: "2026-01-01T00:00:00Z", end: "2026-01-02T00:00:00Z"))
/// ```
public struct PairedAPIRemote: Sendable {
    public var server: PairedServer
    public var timeout: Duration

    public init(server: PairedServer, timeout: Duration = .seconds(30)) {
        self.server = server; self.timeout = timeout
    }

    var http: PinnedHTTPSClient {
        PinnedHTTPSClient(host: server.host, port: server.port, fingerprint: server.fingerprint, timeout: timeout)
    }

    // MARK: Pairing

    /// Redeems a one-time code and returns the record to keep. The certificate is checked before the code is sent.
    /// `appId` only checks the code: the server refuses (`HEALTH_NOT_AUTHORIZED`) a code not issued for that app, and
    /// the record's `appId` is the one the server answers (the app the owner issued the code for).
    public static func pair(host: String, port: Int, fingerprint: String, code: String, clientName: String,
                            appId: String? = nil, timeout: Duration = .seconds(30),
                            now: Date = Date()) async throws -> PairedServer {
        guard let pinned = CertificateFingerprint.normalize(fingerprint) else {
            throw PairedAPIClientError.invalidArgument("the fingerprint must be 64 hex digits (SHA-256), with or without colons")
        }
        let client = PinnedHTTPSClient(host: host, port: port, fingerprint: pinned, timeout: timeout)
        let body = try JSONEncoder.wire.encode(PairRequest(code: code, clientName: clientName, appId: appId))
        let reply = try await client.send(method: "POST", path: PairedAPIProtocol.basePath + "/pair",
                                          headers: [("Content-Type", "application/json")], body: Array(body))
        guard reply.status == 200 else { throw error(from: reply) }
        let answer = try decode(PairResponse.self, reply)
        return PairedServer(host: host, port: port, fingerprint: pinned, token: answer.token, clientId: answer.clientId,
                            clientName: clientName, deviceName: answer.deviceName, pairedAt: isoNow(now),
                            appId: answer.appId)
    }

    // MARK: Reading

    public func status() async throws -> StatusResponse {
        let reply = try await get("/status")
        guard reply.status == 200 else { throw Self.error(from: reply) }
        return try Self.decode(StatusResponse.self, reply)
    }

    /// The shared types. Paused sharing answers `status: locked` with no types.
    public func types() async throws -> TypesResponse {
        let reply = try await get("/health/types")
        guard reply.status == 200 || reply.status == 423 else { throw Self.error(from: reply) }
        return try Self.decode(TypesResponse.self, reply)
    }

    /// One page of samples. `locked` (423) and `no_permission` (403) answers come back as a ``DataResponse`` with that
    /// status and no samples; other errors throw.
    public func data(_ request: DataRequest) async throws -> DataResponse {
        let body = try JSONEncoder.wire.encode(request)
        let reply = try await http.send(method: "POST", path: PairedAPIProtocol.basePath + "/health/data",
                                        headers: authorization + [("Content-Type", "application/json")], body: Array(body))
        switch reply.status {
        case 200, 423:
            return try Self.decode(DataResponse.self, reply)
        case 403:
            if let page = try? Self.decode(DataResponse.self, reply), page.status == .noPermission { return page }
            throw Self.error(from: reply)
        default:
            throw Self.error(from: reply)
        }
    }

    /// Every page of a request, following `nextCursor`, up to `maxSamples`. Stops at the first non-`ok` page.
    public func fetchAll(_ request: DataRequest, maxSamples: Int = 1_000_000) async throws -> DataResponse {
        var request = request
        var all = DataResponse(status: .ok, samples: [])
        while true {
            let page = try await data(request)
            guard page.status == .ok else { return page }
            all.samples += page.samples
            guard let next = page.nextCursor, all.samples.count < maxSamples else {
                all.nextCursor = page.nextCursor
                return all
            }
            request.cursor = next
        }
    }

    /// The raw answer of any GET under `/api/v1` (the OpenAPI document, say).
    public func get(_ path: String) async throws -> PinnedHTTPSClient.Reply {
        try await http.send(method: "GET", path: PairedAPIProtocol.basePath + path, headers: authorization)
    }

    var authorization: [(String, String)] { [("Authorization", "Bearer \(server.token)")] }

    // MARK: Dry run

    /// The request `data(_:)` would send, for `--dry-run`: method, URL, headers (the token masked), the pin, the body.
    public static func describeDataRequest(_ request: DataRequest, server: PairedServer?) throws -> String {
        let body = try JSONEncoder.wire.encode(request)
        let authority = server.map { "\($0.host):\($0.port)" } ?? "<not paired>"
        var lines = ["POST https://\(authority)\(PairedAPIProtocol.basePath)/health/data HTTP/1.1"]
        if let server {
            lines.append("Authorization: Bearer <token for client \(server.clientId), \(server.token.count) characters, not shown>")
        }
        lines.append("Content-Type: application/json")
        lines.append("Content-Length: \(body.count)")
        if let server { lines.append("(TLS pinned to certificate SHA-256 \(server.fingerprint))") }
        lines.append("")
        lines.append(String(decoding: body, as: UTF8.self))
        return lines.joined(separator: "\n")
    }

    // MARK: Decoding

    public static func decode<T: Decodable>(_ type: T.Type, _ reply: PinnedHTTPSClient.Reply) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(reply.body))
        } catch {
            throw PairedAPIClientError.malformedResponse("HTTP \(reply.status), \(reply.body.count) bytes that are not a \(T.self): \(error)")
        }
    }

    public static func error(from reply: PinnedHTTPSClient.Reply) -> PairedAPIClientError {
        let requestId = reply.header(PairedAPIProtocol.requestIDHeader)
        let retryAfter = reply.header("Retry-After").flatMap { Int($0) }
        if let body = try? JSONDecoder().decode(APIErrorResponse.self, from: Data(reply.body)) {
            return .server(status: reply.status, code: body.error.code, message: body.error.message,
                           requestId: body.requestId ?? requestId, retryAfter: retryAfter)
        }
        return .server(status: reply.status, code: "HTTP_\(reply.status)",
                       message: String(decoding: reply.body.prefix(200), as: UTF8.self), requestId: requestId,
                       retryAfter: retryAfter)
    }

    static func isoNow(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
