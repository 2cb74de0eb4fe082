import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel
@testable import HealthService
import Testing
@testable import PairedAPI

#if canImport(Glibc)
import Glibc
#endif

/// The Health Auto Export receiver over HTTPS and the optional plain-HTTP listener: tokens, limits, the one error
/// vocabulary, exactly once, the audit entry of each batch.
@Suite struct IngestEndpointTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../HealthAutoExportTests/Fixtures").standardizedFileURL

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static let path = PairedAPIServer.ingestPath

    /// A token `phone` with the writes `ingest-token create` grants.
    static func token(_ harness: Harness) async throws -> String {
        let token = try harness.state.createIngestToken(name: "phone")
        try await harness.server.service.updateGrants(GrantsUpdate(principal: "ingest:phone",
                                                                   allowWrite: ["stepCount", "activeEnergyBurned",
                                                                                "sleepAnalysis", "workout"]))
        return token
    }

    static let headers = [("Content-Type", "application/json"), ("automation-name", "Hourly"),
                          ("automation-id", "A-1"), ("automation-aggregation", "hours"),
                          ("automation-period", "Today"), ("session-id", "S-9")]

    @Test func aPushIsStoredOnceAndAuditedWithItsHeaders() async throws {
        try await Harness.inProcess { harness in
            let token = try await Self.token(harness)
            let body = try Self.fixture("overlap-a.json")
            let first = try await harness.send("POST", Self.path, token: token, headers: Self.headers, body: body)
            #expect(first.status == 200)
            try OpenAPITests().check(first, "POST", "/api/v1/ingest/health-auto-export")
            #expect(first.json?["inserted"]?.intValue == 6 && first.json?["format"]?.stringValue == "health-auto-export")
            let again = try await harness.send("POST", Self.path, token: token, headers: Self.headers, body: body)
            #expect(again.status == 200 && again.json?["inserted"]?.intValue == 0 && again.json?["unchanged"]?.intValue == 6)
            await harness.server.audit.flush()
            let writes = try harness.state.auditEvents(limit: 50).filter { $0.event == .dataWrite }
            let entry = try #require(writes.first)
            #expect(entry.client == "ingest:phone" && entry.detail?.types == ["stepCount"])
            #expect(entry.detail?.batch?["automation-name"] == "Hourly" && entry.detail?.batch?["session-id"] == "S-9")
            #expect(entry.detail?.batch?["automation-aggregation"] == "hours" && entry.detail?.batch?["inserted"] == "6")
            #expect(try harness.state.ingestTokens().first?.lastUsedAt != nil)
        }
    }

    @Test func wrongTokensAre401AndBadJSONIs400AndNothingIsWritten() async throws {
        try await Harness.inProcess { harness in
            let token = try await Self.token(harness)
            let before = try await harness.server.service.store.currentAnchor()
            let body = try Self.fixture("overlap-a.json")
            // Refused before the body is read (the connection closes): sent without one.
            for bad in [nil, "not-a-token", try await harness.pairDevice().token] as [String?] {
                let reply = try await harness.send("POST", Self.path, token: bad, headers: Self.headers)
                #expect(reply.status == 401 && reply.errorCode == "HEALTH_UNAUTHENTICATED")
            }
            _ = try harness.state.revokeIngestToken(name: "phone")
            let revoked = try await harness.send("POST", Self.path, token: token)
            #expect(revoked.status == 401)
            let fresh = try harness.state.createIngestToken(name: "phone")
            var broken = body
            broken.removeLast(30)
            let malformed = try await harness.send("POST", Self.path, token: fresh, body: broken)
            #expect(malformed.status == 400 && malformed.errorCode == "HEALTH_INVALID_ARGUMENT")
            try OpenAPITests().check(malformed, "POST", "/api/v1/ingest/health-auto-export")
            #expect(malformed.json?["error"]?["message"]?.stringValue?.contains("malformed JSON") == true)
            #expect(try await harness.server.service.store.currentAnchor() == before)
            // A type the token may not write: 403, nothing written.
            let blood = try await harness.send("POST", Self.path, token: fresh, body: try Self.fixture("metrics-hourly.json"))
            #expect(blood.status == 403 && blood.errorCode == "HEALTH_NOT_AUTHORIZED")
            #expect(try await harness.server.service.store.currentAnchor() == before)
            _ = try harness.state.revokeIngestToken(name: "phone")   // the harness's audit check
        }
    }

    @Test func bodiesOverTheLimitAre413() async throws {
        try await Harness.inProcess({ $0.maxIngestBytes = 1024 }) { harness in
            let token = try await Self.token(harness)
            let reply = try await harness.send("POST", Self.path, token: token, body: try Self.fixture("metrics-hourly.json"))
            #expect(reply.status == 413 && reply.errorCode == "HEALTH_PAYLOAD_TOO_LARGE")
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("MB") == true)
            // Without a Content-Length (chunked), the limit is found while the body is gathered.
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = try harness.server.ingestApplication(host: "127.0.0.1", port: 0) { port in
                continuation.yield(port)
                continuation.finish()
            }
            let task = Task { try await app.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let chunked = try await PlainHTTP.post(port: port, path: Self.path, token: token,
                                                   body: try Self.fixture("metrics-hourly.json"), chunked: true)
            #expect(chunked.status == 413 && chunked.body.contains("HEALTH_PAYLOAD_TOO_LARGE"))
            let small = try await PlainHTTP.post(port: port, path: Self.path, token: token,
                                                 body: Array(#"{"data": {"metrics": []}}"#.utf8), chunked: true)
            #expect(small.status == 200 && small.body.contains("\"inserted\":0"))
            task.cancel()
            _ = await task.result
        }
    }

    @Test func thePlainHTTPListenerServesOnlyTheReceiver() async throws {
        try await Harness.run { harness in
            let token = try await Self.token(harness)
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = try harness.server.ingestApplication(host: "127.0.0.1", port: 0) { port in
                continuation.yield(port)
                continuation.finish()
            }
            let task = Task { try await app.run() }
            defer { task.cancel() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let body = try Self.fixture("overlap-b.json")
            let ok = try await PlainHTTP.post(port: port, path: Self.path, token: token, body: body)
            #expect(ok.status == 200 && ok.body.contains("\"inserted\":6"))
            let denied = try await PlainHTTP.post(port: port, path: Self.path, token: "wrong", body: body)
            #expect(denied.status == 401 && denied.body.contains("HEALTH_UNAUTHENTICATED"))
            let other = try await PlainHTTP.post(port: port, path: "/api/v1/health/samples", token: token, body: body)
            #expect(other.status == 401 || other.status == 404, "no other route on the plain listener")
            task.cancel()
            _ = await task.result
        }
    }
}

/// One HTTP/1.1 request over a plain socket to 127.0.0.1, read until the server closes. The blocking socket calls run
/// on a thread of their own, never on the concurrency pool the server's handlers need.
enum PlainHTTP {
    static func post(port: Int, path: String, token: String, body: [UInt8], chunked: Bool = false) async throws
        -> (status: Int, body: String)
    {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    try blockingPost(port: port, path: path, token: token, body: body, chunked: chunked)
                })
            }
            thread.start()
        }
    }

    static func blockingPost(port: Int, path: String, token: String, body: [UInt8], chunked: Bool) throws
        -> (status: Int, body: String)
    {
        let connection = try RawConnection(port: port)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(connection.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let length = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(body.count)"
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\n\(length)\r\nConnection: close\r\n\r\n"
        var request = Array(head.utf8)
        if chunked {
            // 512-byte chunks: the size is not known up front.
            var offset = 0
            while offset < body.count {
                let part = body[offset..<min(body.count, offset + 512)]
                request += Array((String(part.count, radix: 16) + "\r\n").utf8) + part + Array("\r\n".utf8)
                offset += part.count
            }
            request += Array("0\r\n\r\n".utf8)
        } else {
            request += body
        }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(connection.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            received += buffer[..<n]
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let payload = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, payload)
    }
}
