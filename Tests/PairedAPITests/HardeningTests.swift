import HealthAPI
import PairedAPIClient
import Foundation
import HealthAccess
import HealthModel
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization
import Testing
@testable import PairedAPI

/// The security review's findings on the export API (issue 17): each test failed before its fix.
@Suite("Hardening")
struct HardeningTests {
    // Finding 2: one host cannot take every connection; a connection that never handshakes is dropped.
    @Test func connectionsAreCappedPerAddress() async throws {
        try await Harness.run({
            $0.maxConnectionsPerAddress = 3
            $0.handshakeTimeout = .seconds(30)
        }) { harness in
            let held = try (0..<3).map { _ in try RawConnection(port: harness.port) }
            for connection in held { #expect(!(await connection.closedByPeer(within: .milliseconds(100)))) }
            let extra = try RawConnection(port: harness.port)
            #expect(await extra.closedByPeer(within: .seconds(10)), "a fourth connection from the same address must be closed")
            #expect(harness.server.connections.count("127.0.0.1") == 3)
            // Releasing one lets the next in.
            _ = held.first.map { shutdown($0.fd, Int32(SHUT_RDWR)) }
            let deadline = ContinuousClock.now + .seconds(10)
            while harness.server.connections.count("127.0.0.1") >= 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let reply = try await harness.send("GET", "/api/v1/status")
            #expect(reply.status == 401)
        }
    }

    @Test func aConnectionThatNeverHandshakesIsClosed() async throws {
        try await Harness.run({ $0.handshakeTimeout = .milliseconds(400) }) { harness in
            let silent = try RawConnection(port: harness.port)
            #expect(await silent.closedByPeer(within: .seconds(10)), "the 400 ms handshake timeout closes it")
            let deadline = ContinuousClock.now + .seconds(10)
            while harness.server.connections.count("127.0.0.1") != 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(harness.server.connections.count("127.0.0.1") == 0)
        }
    }

    /// A client that completed the TLS handshake and one keep-alive request, then goes quiet, is closed by the idle
    /// timeout (the handshake timeout is far away and no longer applies).
    @Test func aQuietConnectionAfterARequestIsClosed() async throws {
        try await Harness.run({
            // Long enough for a loaded machine to finish the TLS handshake and send the request inside it.
            $0.idleTimeout = .seconds(3)
            $0.handshakeTimeout = .seconds(60)
        }) { harness in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none  // the test only needs the session, not the pinning
            let context = try NIOSSLContext(configuration: tls)
            let received = ReceivedBytes()
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                        try channel.pipeline.syncOperations.addHandler(received)
                    }
                }
                .connect(host: "127.0.0.1", port: harness.port).get()
            let request = "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            let answered = ContinuousClock.now + .seconds(10)
            while !received.text.contains("\r\n\r\n"), ContinuousClock.now < answered {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(received.text.hasPrefix("HTTP/1.1 401"), "the request was answered: \(received.text.prefix(40))")
            let quiet = ContinuousClock.now
            try await channel.closeFuture.get()
            #expect(ContinuousClock.now - quiet < .seconds(30), "closed by the 3 s idle timeout, not the 60 s handshake one")
            #expect(ContinuousClock.now - quiet >= .milliseconds(1500), "kept open while within the idle timeout")
        }
    }

    // Finding 3: bad tokens are throttled per address (429 + Retry-After) and aggregated in the audit log.
    @Test func failedAuthenticationIsThrottledAndAggregated() async throws {
        try await Harness.inProcess({
            $0.failedAuthBurst = 5
            $0.failedAuthRate = 0.01
            $0.auditNoiseWindow = .seconds(600)
        }) { harness in
            var statuses: [Int] = []
            var retryAfter: String?
            var codes: Set<String> = []
            for _ in 0..<40 {
                let reply = try await harness.send("GET", "/api/v1/status", token: "forged-token-\(UUID().uuidString)")
                statuses.append(reply.status)
                if reply.status == 429 { retryAfter = reply.header("Retry-After") }
                reply.errorCode.map { _ = codes.insert($0) }
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == 401 })
            #expect(statuses.dropFirst(5).allSatisfy { $0 == 429 })
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
            #expect(codes == ["HEALTH_UNAUTHENTICATED", HealthError.Code.rateLimited.rawValue])
            await harness.server.audit.flush()
            let rows = try harness.state.auditEvents(limit: 1000).filter { $0.event == .apiRequest }
            #expect(rows.count == 2, "one row per (address, route, status, reason), not one per request")
            #expect(rows.map { $0.detail?.count ?? 1 }.reduce(0, +) == 40)
        }
    }

    @Test func noiseNeverEvictsSecurityRelevantEntries() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let state = try AccessStore(home: home)
        try await state.append([AuditEvent(event: .pairSuccess, client: "c1", address: "10.0.0.2"),
                                AuditEvent(event: .dataRead, client: "c1", address: "10.0.0.2",
                                           detail: .init(types: ["stepCount"], sampleCount: 3))], keepAtMost: 100)
        for _ in 0..<5 {
            let noise = (0..<500).map { _ in
                AuditEvent(event: .apiRequest, address: "10.0.0.66", route: "/api/v1/status", status: 401, decision: .denied)
            }
            try await state.append(noise, keepAtMost: 100)
        }
        let all = try state.auditEvents(limit: 10_000)
        #expect(all.contains { $0.event == .pairSuccess })
        #expect(all.contains { $0.event == .dataRead })
        #expect(all.filter { $0.event == .apiRequest }.count < 2_500, "noise is pruned")
    }

    // Finding 12: a data read's entry is in the database before the answer arrives.
    @Test func dataReadIsAuditedBeforeTheAnswerLeaves() async throws {
        try await Harness.run({ $0.auditFlushInterval = .seconds(3600) }) { harness in
            try await harness.share(["stepCount"])
            let remote = try await harness.pair()
            let query = "types=stepCount&start=2026-01-08T00:00:00Z&end=2026-01-10T00:00:00Z&limit=5"
            let reply = try await harness.send("GET", "/api/v1/health/data?" + query, token: remote.server.token)
            #expect(reply.status == 200)
            let requestId = try #require(reply.header(PairedAPIProtocol.requestIDHeader))
            // No flush: read straight from the database, as `healthbridge audit` in another process would.
            let rows = try AccessStore(home: harness.home).auditEvents(limit: 100)
            #expect(rows.contains { $0.event == .dataRead && $0.requestId == requestId && $0.detail?.sampleCount == 5 })
            #expect(rows.contains { $0.event == .apiRequest && $0.requestId == requestId && $0.status == 200 })
            #expect(rows.contains { $0.event == .pairSuccess })
        }
    }

    // Finding 8: wrong codes lock out their address only.
    @Test func pairingLockoutIsPerAddress() async throws {
        let home = try Fixture.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let state = try AccessStore(home: home)
        let (code, _) = try state.issuePairingCode()
        for attempt in 1...AccessStore.maxCodeFailures {
            #expect(try await state.redeem(code: "WRONG\(attempt)", clientName: "x", address: "10.0.0.66") == .invalid(burnt: false))
        }
        guard case .lockedOut(let retry) = try await state.redeem(code: code, clientName: "x", address: "10.0.0.66") else {
            Issue.record("the guessing address must be locked out")
            return
        }
        #expect(retry > 0)
        guard case .paired = try await state.redeem(code: code, clientName: "phone", address: "10.0.0.2") else {
            Issue.record("another address must still pair with the code")
            return
        }
    }

    // Finding 10: TLS 1.2 offers forward-secret AEAD suites only.
    @Test func tlsOffersOnlyAEADSuites() throws {
        let configuration = try Fixture.identity.serverTLSConfiguration()
        let suites = configuration.cipherSuiteValues
        #expect(!suites.isEmpty)
        #expect(!suites.contains(.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA))
        #expect(!suites.contains(.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA))
        #expect(!suites.contains(.TLS_RSA_WITH_AES_128_GCM_SHA256))
        let names = configuration.cipherSuites.split(separator: ":")
        #expect(!names.isEmpty)
        #expect(names.allSatisfy { ($0.contains("GCM") || $0.contains("CHACHA20")) && $0.contains("ECDHE") }, "\(names)")
        #expect(configuration.minimumTLSVersion == .tlsv12)
    }

    @Test func aClientOfferingOnlyCBCSuitesIsRefused() async throws {
        try await Harness.run { harness in
            #expect(await TLSProbe.handshake(port: harness.port, suites: [.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
                                                                         .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA]) == false)
            #expect(await TLSProbe.handshake(port: harness.port, suites: [.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]) == true)
        }
    }

    // Finding 11: spreadsheet formulas in text cells are neutralised.
    @Test func csvCellsCannotBeFormulas() {
        let samples = [
            ExportSample(type: "stepCount", dateISO: "2026-01-09T12:00:00Z", value: -3, unit: "count",
                         source: "=HYPERLINK(\"http://evil.example\",\"x\")"),
            ExportSample(type: "stepCount", dateISO: "2026-01-09T12:00:00Z", value: 4, unit: "+count", source: "@SUM(A1)"),
            ExportSample(type: "stepCount", dateISO: "2026-01-09T12:00:00Z", category: "-1", source: "\tTab"),
            ExportSample(type: "stepCount", dateISO: "2026-01-09T12:00:00Z", source: "\rCR"),
        ]
        let lines = SampleCSV.encode(samples).split(separator: "\n").map(String.init)
        #expect(lines[1] == #"stepCount,2026-01-09T12:00:00Z,,-3,count,,"'=HYPERLINK(""http://evil.example"",""x"")""#)
        #expect(lines[2] == "stepCount,2026-01-09T12:00:00Z,,4,'+count,,'@SUM(A1)")
        #expect(lines[3] == "stepCount,2026-01-09T12:00:00Z,,,,'-1,'\tTab")
        #expect(SampleCSV.cell("\rCR") == "\"'\rCR\"")
        #expect(SampleCSV.cell("Apple Watch") == "Apple Watch")
    }

    // Finding 6: off-link sources get no mDNS answer; a TXT entry "=" does not crash discovery.
    @Test func onlyOnLinkSourcesAreAnswered() {
        let lan = OnLinkFilter.Network(address: [192, 168, 1, 10], netmask: [255, 255, 255, 0])
        #expect(OnLinkFilter.isOnLink([192, 168, 1, 77], networks: [lan]))
        #expect(!OnLinkFilter.isOnLink([192, 168, 2, 77], networks: [lan]))
        #expect(!OnLinkFilter.isOnLink([8, 8, 8, 8], networks: [lan]))
        #expect(OnLinkFilter.isOnLink([127, 0, 0, 1], networks: []))
        #expect(OnLinkFilter.isOnLink([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1], networks: []))
        #expect(!OnLinkFilter.isOnLink([0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [1], networks: [lan]))
        #expect(OnLinkFilter.isOnLink([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 192, 168, 1, 5], networks: [lan]))
    }

    /// Found by FuzzDNSMessage: labels with invalid UTF-8 grow when re-encoded (U+FFFD is 3 bytes), which made a name
    /// longer than 255 bytes, so the responder could echo a question it had accepted as an invalid one.
    @Test func aDecodedMessageAlwaysReEncodesToAValidOne() throws {
        let hex = "0000840000000001000000000b5f6865796e63045f" + String(repeating: "19", count: 91) + "0001000000000b5f6865796e63045f"
            + String(repeating: "19", count: 55) + "ffffffffffff13e9" + String(repeating: "19", count: 54)
            + "746370056c6f63616c00000c18000000000000000072000000780002c00c" + String(repeating: "19", count: 26)
            + "746370056c6f63616c00000c18000000000000000072000000780002c00c"
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        #expect(bytes.count == 330)
        let message = try DNSMessage.decode(bytes)
        let again = try DNSMessage.decode(message.encode())
        #expect(again.answers.count == message.answers.count)
        // Long and non-ASCII names are cut at 255 bytes rather than written invalid.
        let long = DNSName(labels: Array(repeating: String(repeating: "é", count: 40), count: 8))
        let encoded = DNSMessage(questions: [DNSQuestion(name: long, type: 12)]).encode()
        #expect(throws: Never.self) { try DNSMessage.decode(encoded) }
    }

    @Test func txtEntriesWithoutAKeyAreIgnored() throws {
        let service = DNSName(labels: ["_healthsync", "_tcp", "local"])
        let instance = service.prepending("HealthBridge on studio")
        let host = DNSName("studio.local")
        let message = DNSMessage(id: 0, flags: DNSMessage.responseFlags, answers: [
            DNSRecord(name: service, data: .ptr(instance), ttl: 120),
            DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 8443, target: host), ttl: 120),
            DNSRecord(name: instance, data: .txt(["=", "", "=value", "fp=abcd", "api=1", "fp=second", "flag"]), ttl: 120),
            DNSRecord(name: host, data: .a([192, 168, 1, 10]), ttl: 120),
        ])
        let decoded = try DNSMessage.decode(message.encode())
        let sender = try NIOCore.SocketAddress(ipAddress: "192.168.1.10", port: 5353)
        let found = ServiceBrowser.services(in: [(decoded, sender)], serviceType: service)
        #expect(found.count == 1)
        #expect(found.first?.txt == ["fp": "abcd", "api": "1", "flag": ""])
    }
}

/// A TLS 1.2 client handshake offering only `suites`: true when it completes.
enum TLSProbe {
    final class Watcher: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let done: EventLoopPromise<Bool>
        init(done: EventLoopPromise<Bool>) { self.done = done }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent { done.succeed(true) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            done.succeed(false)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.succeed(false)
            context.fireChannelInactive()
        }
    }

    static func handshake(port: Int, suites: [NIOTLSCipher]) async -> Bool {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        configuration.maximumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = suites
        guard let context = try? NIOSSLContext(configuration: configuration) else { return false }
        let group = MultiThreadedEventLoopGroup.singleton
        let done = group.any().makePromise(of: Bool.self)
        do {
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                        try channel.pipeline.syncOperations.addHandler(Watcher(done: done))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            let completed = (try? await done.futureResult.get()) ?? false
            try? await channel.close()
            return completed
        } catch {
            done.succeed(false)
            return false
        }
    }
}

/// Collects what a test's TLS client receives, as text.
final class ReceivedBytes: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let collected = Mutex("")
    var text: String { collected.withLock { $0 } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        collected.withLock { $0 += String(buffer: buffer) }
    }
}
