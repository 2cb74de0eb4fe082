import Crypto
import HealthAPI
import PairedAPIClient
import Foundation
import HealthAccess
import HealthHTTP
import HealthModel
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOPosix
import NIOSSL
import SwiftASN1
import Testing
import X509
@testable import PairedAPI

@Suite("DNS messages")
struct DNSMessageTests {
    @Test func roundTrip() throws {
        let service = DNSName("_healthsync._tcp.local")
        let instance = service.prepending("HealthBridge on studio.lan")   // a dot inside a label survives
        let message = DNSMessage(id: 0x1234, flags: DNSMessage.responseFlags,
                                 questions: [DNSQuestion(name: service, type: 12, unicastResponse: true)],
                                 answers: [
                                     DNSRecord(name: service, data: .ptr(instance), ttl: 120),
                                     DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 8443, target: DNSName("studio.local")),
                                               ttl: 120, cacheFlush: true),
                                     DNSRecord(name: instance, data: .txt(["fp=0123456789abcdef", "api=1"]), ttl: 120, cacheFlush: true),
                                     DNSRecord(name: DNSName("studio.local"), data: .a([192, 168, 1, 20]), ttl: 120, cacheFlush: true),
                                 ])
        let decoded = try DNSMessage.decode(message.encode())
        #expect(decoded == message)
        #expect(decoded.answers[0].data == .ptr(instance))
    }

    @Test func readsCompressedNames() throws {
        // Header, one answer: name "a.local" then a PTR whose target points back at offset 12 ("a.local").
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        bytes += [1, 97, 5] + Array("local".utf8) + [0]          // offset 12: a.local
        bytes += [0, 12, 0, 1, 0, 0, 0, 120, 0, 4]               // PTR IN ttl 120, rdlength 4
        bytes += [1, 98, 0xC0, 12]                               // b + pointer to a.local
        let message = try DNSMessage.decode(bytes)
        #expect(message.answers.first?.data == .ptr(DNSName(labels: ["b", "a", "local"])))
    }

    @Test func rejectsHostileMessagesWithoutCrashing() {
        let header: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        let hostile: [[UInt8]] = [
            [],
            [0, 1, 2],
            header,                                                        // claims an answer it lacks
            header + [0xC0, 12] + [0, 12, 0, 1, 0, 0, 0, 1, 0, 0],          // pointer to itself
            header + [0xC0, 40],                                           // pointer forward
            header + [63] + Array(repeating: 97, count: 10),               // label past the end
            header + [0, 0, 16, 0, 1, 0, 0, 0, 1, 0, 5, 9, 1, 2],          // TXT string past its record
            [0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0],                    // 65535 questions
        ]
        for bytes in hostile {
            #expect(throws: DNSMessage.DecodingError.self) { try DNSMessage.decode(bytes) }
        }
        // Random garbage: never a crash.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? DNSMessage.decode(header + bytes)
        }
    }
}

@Suite("Discovery")
struct DiscoveryTests {
    @Test func browsesAnAdvertisedServerAndSeesItWithdrawn() async throws {
        var configuration = MDNSResponder.Configuration(instanceName: "HealthBridge on test", hostName: "test-host.local",
                                                        port: 8443, txt: ["fp=0123456789abcdef", "api=1"],
                                                        addresses: ["127.0.0.1"])
        configuration.bindHost = "127.0.0.1"
        configuration.bindPort = 0
        configuration.multicast = false
        let responder = MDNSResponder(configuration: configuration, logger: Fixture.logger)
        try await responder.start()
        let address = try #require(responder.localAddress)
        let found = try await ServiceBrowser.browse(timeout: .milliseconds(600), destination: address)
        #expect(found == [DiscoveredService(instance: "HealthBridge on test", host: "test-host.local", port: 8443,
                                            addresses: ["127.0.0.1"], txt: ["fp": "0123456789abcdef", "api": "1"])])
        // Questions about other services get no answer.
        let other = try await ServiceBrowser.browse(serviceType: "_other._tcp", timeout: .milliseconds(300), destination: address)
        #expect(other.isEmpty)
        await responder.withdraw()
        let gone = try await ServiceBrowser.browse(timeout: .milliseconds(300), destination: address)
        #expect(gone.isEmpty)
        await responder.announce()
        #expect(try await ServiceBrowser.browse(timeout: .milliseconds(600), destination: address).count == 1)
        await responder.stop()
    }
}

@Suite("Rate limits")
struct RateLimitTests {
    @Test func tokenBucket() {
        let limiter = RateLimiter(rate: 2)
        #expect(limiter.check("a", now: 0) == .allowed)
        #expect(limiter.check("a", now: 0) == .allowed)
        #expect(limiter.check("a", now: 0) == .limited(retryAfter: 1))
        #expect(limiter.check("b", now: 0) == .allowed)
        #expect(limiter.check("a", now: 0.5) == .allowed)        // one token back after half a second
        #expect(limiter.check("a", now: 0.5) == .limited(retryAfter: 1))
        #expect(RateLimiter(rate: 0).check("a") == .allowed)   // 0 disables
        let slow = RateLimiter(rate: 0.1, burst: 1)
        #expect(slow.check("a", now: 0) == .allowed)
        #expect(slow.check("a", now: 0) == .limited(retryAfter: 10))
    }

    @Test func pairingBackoffDoubles() {
        let throttle = PairingThrottle(freeFailures: 1, base: 2, maximum: 5)
        throttle.failed("x", now: 0)
        #expect(throttle.retryAfter("x", now: 0) == nil)
        throttle.failed("x", now: 0)
        #expect(throttle.retryAfter("x", now: 0) == 2)
        throttle.failed("x", now: 2)
        #expect(throttle.retryAfter("x", now: 2) == 4)
        throttle.failed("x", now: 6)
        #expect(throttle.retryAfter("x", now: 6) == 5)            // capped
        #expect(throttle.retryAfter("y", now: 6) == nil)
        throttle.succeeded("x")
        #expect(throttle.retryAfter("x", now: 6) == nil)
    }
}

@Suite("Connection guard")
struct ConnectionGuardTests {
    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ConnectionGuard(requestTimeout: .seconds(2), responseTimeout: .seconds(3)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static let head = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/api/v1/health/data")

    @Test func dropsARequestBodyThatNeverEnds() throws {
        let channel = try channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.head))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "{")))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1900))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive)
    }

    @Test func keepsAPromptRequest() throws {
        let channel = try channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.head))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func dropsAClientThatStopsReading() throws {
        let channel = try channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.head))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        // The head goes out but the end never completes (a write promise that never fires stands for a full socket).
        channel.pipeline.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(3100))
        #expect(!channel.isActive)
    }

    @Test func idleConnectionsAreClosedOverTLS() async throws {
        try await Harness.run({ $0.idleTimeout = .milliseconds(500) }) { harness in
            // A TCP peer that never starts the TLS handshake.
            let started = ContinuousClock.now
            let closed = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: harness.port).get()
            try await closed.closeFuture.get()
            #expect(ContinuousClock.now - started < .seconds(20), "closed by the idle timeout, not by the test ending")
        }
    }
}

@Suite("TLS identity")
struct IdentityTests {
    @Test func selfSignedCAWithNamesAndFingerprint() throws {
        let identity = try ServerIdentity.generate(hostNames: ["studio", "studio.local", "192.168.1.20"])
        let certificate = try Certificate(pemEncoded: identity.certificatePEM)
        #expect(certificate.issuer == certificate.subject)
        let constraints = try #require(try certificate.extensions.basicConstraints)
        #expect(constraints == .isCertificateAuthority(maxPathLength: 0))
        let names = try #require(try certificate.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        #expect(names.contains(.dnsName("studio.local")))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [192, 168, 1, 20]))))
        #expect(identity.fingerprint == CertificateFingerprint.hex(SHA256.hash(data: identity.certificateDER)))
        #expect(identity.fingerprint.count == 64)
        #expect(certificate.signatureAlgorithm == .ecdsaWithSHA256)
        #expect(certificate.notValidAfter > Date().addingTimeInterval(5 * 365 * 86_400))
    }

    /// The other way to trust the server: its certificate as the only trust root, with full chain and host name
    /// checks by BoringSSL. Works because the certificate is CA-flagged.
    @Test func trustThisCertificateClientsWork() async throws {
        try await Harness.run { harness in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(Fixture.identity.certificatePEM.utf8), format: .pem)])
            tls.certificateVerification = .fullVerification
            tls.minimumTLSVersion = .tlsv13
            let context = try NIOSSLContext(configuration: tls)
            let status = try await Self.get(context: context, serverName: "localhost", port: harness.port)
            #expect(status == 401)   // TLS 1.3, verified; the API itself still wants a token.

            // Without the certificate as a root, the same client is refused.
            var untrusted = TLSConfiguration.makeClientConfiguration()
            untrusted.certificateVerification = .fullVerification
            untrusted.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(try ServerIdentity.generate().certificatePEM.utf8), format: .pem)])
            await #expect(throws: (any Error).self) {
                _ = try await Self.get(context: try NIOSSLContext(configuration: untrusted), serverName: "localhost", port: harness.port)
            }
        }
    }

    /// TLS 1.1 and older are refused.
    @Test func refusesOldTLS() async throws {
        try await Harness.run { harness in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            tls.minimumTLSVersion = .tlsv1
            tls.maximumTLSVersion = .tlsv11
            await #expect(throws: (any Error).self) {
                _ = try await Self.get(context: try NIOSSLContext(configuration: tls), serverName: nil, port: harness.port)
            }
        }
    }

    static func get(context: NIOSSLContext, serverName: String?, port: Int) async throws -> Int {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/api/v1/status")
            head.headers.add(name: "Host", value: "localhost")
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            for try await part in inbound {
                if case .head(let response) = part { return Int(response.status.code) }
            }
            return 0
        }
    }
}

@Suite("Export state")
struct AccessStoreComponentTests {
    @Test func tokensAndCodes() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let state = try AccessStore(home: home)
        let token = AccessStore.newToken()
        #expect(token.count == 43)
        #expect(Data(base64Encoded: token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "=")?.count == 32)
        #expect(AccessStore.newToken() != token)
        let (code, expires) = try state.issuePairingCode(lifetime: 300, now: Date(timeIntervalSince1970: 1_000_000))
        #expect(code.count == 9 && code.dropFirst(4).first == "-")
        #expect(expires == Date(timeIntervalSince1970: 1_000_300))
        #expect(try await state.redeem(code: code, clientName: "x", now: Date(timeIntervalSince1970: 1_000_301)) == .expired)
        // Two management processes see each other's changes.
        let other = try AccessStore(home: home)
        try other.setSharedTypes(["stepCount", "heartRate", "stepCount"])
        #expect(try state.sharing().types == ["heartRate", "stepCount"])
        #expect(try state.sharing().state == .active)
        try other.setSharingState(.paused)
        #expect(try state.sharing().state == .paused)
        #expect(try state.revoke("nope") == nil)
    }

    /// Revoking a device or a push token and pausing or resuming sharing are written to the audit log in the same
    /// transaction as the change, whoever makes it (the CLI, the console).
    @Test func consentChangesAreAuditedWithTheChange() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let state = try AccessStore(home: home)
        let (code, _) = try state.issuePairingCode()
        guard case .paired(_, let clientID) = try await state.redeem(code: code, clientName: "phone") else {
            Issue.record("pairing failed"); return
        }
        try state.setSharingState(.active)   // no change from the default: nothing to record
        try state.setSharingState(.paused)
        try state.setSharingState(.paused)   // no change
        try state.setSharingState(.active)
        let client = try #require(try state.revoke(clientID))
        _ = try state.revoke(clientID)       // already revoked: nothing new
        let consent = try state.auditEvents(limit: 100).filter { $0.event == .consentChange }
        #expect(Set(consent.compactMap { $0.detail?.action }) == ["sharing.paused", "sharing.active", "device.revoke"])
        #expect(consent.count == 3)
        #expect(consent.first { $0.detail?.action == "device.revoke" }?.client == client.auditId)
        #expect(consent.allSatisfy { $0.client != clientID }, "the client id itself is never written")
    }

    @Test func fetchCSVQuotesFields() throws {
        // The data page writer produces exactly what JSONEncoder would.
        let samples = [ExportSample(type: "stepCount", dateISO: "2026-01-01T00:00:00Z", endDateISO: "2026-01-01T00:01:00Z",
                                    value: 12, unit: "count", source: "Alex’s \"iPhone\"\n"),
                       ExportSample(type: "heartRate", dateISO: "2026-01-01T00:00:00Z", value: 61.25, unit: "bpm"),
                       ExportSample(type: "sleepAnalysis", dateISO: "2026-01-01T00:00:00Z", category: "rem")]
        let fast = DataResponseWriter.encode(status: .ok, samples: samples, nextCursor: "abc")
        let reference = try JSONEncoder.wire.encode(DataResponse(status: .ok, samples: samples, nextCursor: "abc"))
        #expect(try JSONDecoder().decode(DataResponse.self, from: Data(fast)) == DataResponse(status: .ok, samples: samples, nextCursor: "abc"))
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: reference, as: UTF8.self))
    }
}
