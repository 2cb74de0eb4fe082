import Foundation
import HealthHTTP
import HealthModel
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A context with a request id, as the paired API's.
struct TestContext: RequestIdentifyingContext {
    var coreContext: CoreRequestContextStorage
    var requestId = ""
    var client: String?
    init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
}

/// Sets the client from an `X-Client` header, as an authentication middleware would.
struct TestAuthentication: RouterMiddleware {
    func handle(_ request: Request, context: TestContext,
                next: (Request, TestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.client = request.headers[HTTPField.Name("X-Client")!]
        return try await next(request, context)
    }
}

@Suite("HealthHTTP middlewares")
struct MiddlewareTests {
    static func json(_ buffer: ByteBuffer) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
    }

    @Test func theRequestIdIsInTheContextAndEchoedOnEveryAnswer() async throws {
        let router = Router(context: TestContext.self)
        router.add(middleware: RequestIDMiddleware<TestContext>(responseHeaders: [.cacheControl: "no-store"]))
        router.get("id") { _, context in context.requestId }
        router.get("fail") { _, _ -> String in throw HealthError(.notFound, "nothing here") }
        try await Application(router: router).test(.router) { client in
            var seen = Set<String>()
            for _ in 0..<3 {
                try await client.execute(uri: "/id", method: .get) { response in
                    let id = try #require(response.headers[.xRequestID])
                    #expect(id.count == 24 && id.allSatisfy(\.isHexDigit) && id == id.lowercased())
                    #expect(String(buffer: response.body) == id)
                    #expect(response.headers[.cacheControl] == "no-store")
                    seen.insert(id)
                }
            }
            #expect(seen.count == 3)
            // A refusal carries them too.
            try await client.execute(uri: "/fail", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.xRequestID]?.count == 24)
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test func rateLimitAnswers429WithRetryAfterPerKey() async throws {
        let router = Router(context: TestContext.self)
        router.add(middleware: TestAuthentication())
        router.add(middleware: RateLimitMiddleware<TestContext>(limiter: RateLimiter(rate: 0.01, burst: 2),
                                                                message: "more than 2 requests") { $0.client })
        router.get("x") { _, _ in "ok" }
        try await Application(router: router).test(.router) { client in
            let alice: HTTPFields = [HTTPField.Name("X-Client")!: "alice"]
            for _ in 0..<2 {
                try await client.execute(uri: "/x", method: .get, headers: alice) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/x", method: .get, headers: alice) { response in
                #expect(response.status == .tooManyRequests)
                let retry = try #require(response.headers[.retryAfter].flatMap { Int($0) })
                #expect(retry >= 1)
                let error = Self.json(response.body)?["error"] as? [String: Any]
                #expect(error?["code"] as? String == "HEALTH_RATE_LIMITED")
                #expect(error?["message"] as? String == "more than 2 requests")
            }
            // Another key has its own bucket; no key is not limited.
            try await client.execute(uri: "/x", method: .get, headers: [HTTPField.Name("X-Client")!: "bob"]) { #expect($0.status == .ok) }
            for _ in 0..<3 { try await client.execute(uri: "/x", method: .get) { #expect($0.status == .ok) } }
        }
    }

    @Test func theRateLimitRefusalIsAuditedAsRateLimited() throws {
        let limiter = RateLimiter(rate: 1, burst: 1)
        #expect(limiter.check("k", now: 0) == .allowed)
        #expect(limiter.check("k", now: 0.1) == .limited(retryAfter: 1))
        let failure = HTTPFailure(.tooManyRequests, .rateLimited, "slow down", retryAfter: 1, auditReason: "RATE_LIMITED")
        var headers = HTTPFields()
        failure.apply(to: &headers)
        #expect(headers[.retryAfter] == "1" && headers[.wwwAuthenticate] == nil)
        var challenge = HTTPFields()
        HTTPFailure(.unauthorized, .unauthenticated, "pair first").apply(to: &challenge)
        #expect(challenge[.wwwAuthenticate] == "Bearer realm=\"healthbridge\"")
    }

    @Test func limitsRefuseLongTargetsBadLengthsAndLargeBodies() async throws {
        let router = Router(context: TestContext.self)
        router.add(middleware: RequestLimitsMiddleware<TestContext>(maxURILength: 64) { path in
            path == "/big" ? .init(bytes: 1000, message: "at most 1000 bytes here") : .init(bytes: 10, message: "at most 10 bytes")
        })
        router.post("small") { _, _ in "ok" }
        router.post("big") { _, _ in "ok" }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/small", method: .post, body: ByteBuffer(string: "0123456789")) { #expect($0.status == .ok) }
            try await client.execute(uri: "/small", method: .post, body: ByteBuffer(string: "0123456789A")) { response in
                #expect(response.status == .contentTooLarge)
                let error = Self.json(response.body)?["error"] as? [String: Any]
                #expect(error?["code"] as? String == "HEALTH_PAYLOAD_TOO_LARGE" && error?["message"] as? String == "at most 10 bytes")
            }
            try await client.execute(uri: "/big", method: .post, body: ByteBuffer(string: String(repeating: "x", count: 500))) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/small?" + String(repeating: "q", count: 64), method: .post) { response in
                #expect(response.status == .uriTooLong)
            }
            try await client.execute(uri: "/small", method: .post, headers: [.contentLength: "-1"]) { response in
                #expect(response.status == .badRequest)
                #expect((Self.json(response.body)?["error"] as? [String: Any])?["message"] as? String == "invalid Content-Length")
            }
        }
    }

    @Test func healthErrorsRenderThemselvesWithTheOneTable() async throws {
        let router = Router(context: TestContext.self)
        router.get("paused") { _, _ -> String in throw HealthError(.sharingPaused, "sharing is paused") }
        router.get("store") { _, _ -> String in throw HealthError(.storeUnavailable, "the store is busy") }
        router.get("denied") { _, _ -> String in throw HealthError(.notAuthorized, "no", deniedTypes: ["stepCount"]) }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/paused", method: .get) { response in
                #expect(response.status.code == 423)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let error = Self.json(response.body)?["error"] as? [String: Any]
                #expect(error?["code"] as? String == "HEALTH_SHARING_PAUSED" && error?["message"] as? String == "sharing is paused")
            }
            try await client.execute(uri: "/store", method: .get) { #expect($0.status == .serviceUnavailable) }
            try await client.execute(uri: "/denied", method: .get) { response in
                #expect(response.status == .forbidden)
                let error = Self.json(response.body)?["error"] as? [String: Any]
                #expect(error?["denied_types"] as? [String] == ["stepCount"])
            }
        }
        #expect(HealthError.Code.invalidType.httpStatus == .badRequest)
        #expect(HealthError.Code.unauthenticated.httpStatus == .unauthorized)
        #expect(HealthError.Code.payloadTooLarge.httpStatus == .contentTooLarge)
        #expect(HealthError.Code.internalError.httpStatus == .internalServerError)
        // Every code has a status of the error classes.
        #expect(HealthError.Code.allCases.allSatisfy { $0.httpStatus.code >= 400 })
    }

    @Test func theRouteListIsReadFromTheRouter() {
        let router = Router(context: TestContext.self)
        let api = router.group("api/v1")
        api.get("status") { _, _ in "ok" }
        api.post("items/{id}") { _, _ in "ok" }
        router.delete("/top") { _, _ in "ok" }
        #expect(Set(router.routeList.map(\.description)) == ["GET /api/v1/status", "POST /api/v1/items/{id}", "DELETE /top"])
    }
}

@Suite("HealthHTTP edge checks")
struct EdgeCheckTests {
    @Test func aStaticBearerTokenIsRequiredWithTheAdaptersRefusal() async throws {
        let router = Router(context: TestContext.self)
        router.group()
            .add(middleware: StaticBearerMiddleware<TestContext>(token: "s3cret") {
                Response(status: .unauthorized, body: .init(byteBuffer: ByteBuffer(string: "own shape")))
            })
            .get("x") { _, _ in "ok" }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/x", method: .get, headers: [.authorization: "bearer   s3cret "]) { #expect($0.status == .ok) }
            for header in [nil, "Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "Bearer"] as [String?] {
                let fields: HTTPFields = header.map { [.authorization: $0] } ?? [:]
                try await client.execute(uri: "/x", method: .get, headers: fields) { response in
                    #expect(response.status == .unauthorized, "\(header ?? "none")")
                    #expect(String(buffer: response.body) == "own shape")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"healthbridge\"")
                }
            }
        }
    }

    @Test func theHostCheckAnswersWithTheAdaptersRefusal() async throws {
        // The router test client always sends `localhost` as the authority.
        let router = Router(context: TestContext.self)
        router.group()
            .add(middleware: HostCheckMiddleware<TestContext>.loopback { _ in Response(status: .forbidden) })
            .get("loopback") { _, _ in "ok" }
        router.group()
            .add(middleware: HostCheckMiddleware<TestContext>(allows: { $0 == "127.8.9.10:8080" }) { request in
                Response(status: .forbidden, body: .init(byteBuffer: ByteBuffer(string: "not \(request.head.authority ?? "")")))
            })
            .get("own") { _, _ in "ok" }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/loopback", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/own", method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body) == "not localhost")
            }
        }
        let loopback = HostCheckMiddleware<TestContext>.loopback { _ in Response(status: .forbidden) }
        for host in ["127.0.0.1:8080", "localhost", "[::1]:80", "[::ffff:127.0.0.1]:1"] { #expect(loopback.allows(host), "\(host)") }
        for host in ["127.evil.example:8080", "127.0.0.1.evil.example", "192.168.1.2", "localhost.example", "[::2]:80"] {
            #expect(!loopback.allows(host), "\(host)")
        }
    }

    @Test func cookieValuesAreReadFromEveryCookieHeader() {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .cookie, value: "a=1; hb=first"))
        headers.append(HTTPField(name: .cookie, value: " hb=second ;other=x=y"))
        let request = Request(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/", headerFields: headers),
                              body: .init(buffer: ByteBuffer()))
        #expect(request.cookieValues(named: "hb") == ["first", "second"])
        #expect(request.cookieValues(named: "other") == ["x=y"])
        #expect(request.cookieValues(named: "missing").isEmpty)
    }

    @Test func theLoopbackHostCheckReadsTheAuthority() {
        #expect(HostCheckMiddleware<TestContext>.hostName(fromAuthority: "127.0.0.1:8080") == "127.0.0.1")
        #expect(HostCheckMiddleware<TestContext>.hostName(fromAuthority: "[::1]:8080") == "::1")
        #expect(HostCheckMiddleware<TestContext>.hostName(fromAuthority: "localhost") == "localhost")
        #expect(HostCheckMiddleware<TestContext>.hostName(fromAuthority: "evil.example:80") == "evil.example")
    }
}
