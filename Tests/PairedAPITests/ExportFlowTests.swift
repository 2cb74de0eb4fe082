import HealthAPI
import PairedAPIClient
import Foundation
import HealthAccess
import HealthModel
@testable import HealthService
import HealthStore
import Testing
@testable import PairedAPI

/// End to end over TLS on loopback, through the same pinned client the CLI uses.
@Suite("Export API end to end")
struct ExportFlowTests {
    static let range = (start: "2026-01-06T00:00:00Z", end: "2026-01-10T00:00:00Z")

    @Test func pairStatusTypesFetchRevoke() async throws {
        try await Harness.run { harness in
            try await harness.share(["stepCount", "heartRate"])
            let remote = try await harness.pair(name: "laptop")
            #expect(remote.server.token.count == 43)
            #expect(remote.server.deviceName == "test-device")

            let status = try await remote.status()
            #expect(status.status == "ok")
            #expect(status.deviceName == "test-device")
            #expect(status.sharing == .active)
            #expect(status.enabledTypes == ["heartRate", "stepCount"])
            #expect(status.serverVersion == PairedAPIServer.serverVersion)
            #expect(status.lastExport == nil)

            let types = try await remote.types()
            #expect(types.status == .ok)
            #expect(types.types.map(\.type) == ["heartRate", "stepCount"])
            let steps = try #require(types.types.first { $0.type == "stepCount" })
            #expect(steps.count > 100)
            #expect(steps.unit == "count")
            #expect(types.types.first { $0.type == "heartRate" }?.unit == "bpm")

            // Every sample of both types in the range, in pages of 100.
            let service = try await Fixture.service()
            var expected = 0
            for type in ["stepCount", "heartRate"] {
                expected += try await service.store.samples(SampleQuery(
                    type: type, start: ISO8601.date(Self.range.start), end: ISO8601.date(Self.range.end),
                    matching: .strictStartDate)).samples.count
            }
            let all = try await remote.fetchAll(DataRequest(types: ["stepCount", "heartRate"], start: Self.range.start,
                                                            end: Self.range.end, limit: 100))
            #expect(all.status == .ok)
            #expect(all.samples.count == expected)
            #expect(all.nextCursor == nil)
            #expect(Set(all.samples.map(\.type)) == ["stepCount", "heartRate"])
            #expect(all.samples.contains { $0.value == Fixture.sentinelSteps && $0.source == Fixture.sentinelSource })
            #expect(all.samples.contains { $0.type == "heartRate" && $0.unit == "bpm" })
            // Oldest first within a type, all inside the range.
            let stepDates = all.samples.filter { $0.type == "stepCount" }.map(\.dateISO).compactMap(ISO8601.date)
            #expect(stepDates == stepDates.sorted())
            #expect(stepDates.allSatisfy { $0 >= ISO8601.date(Self.range.start)! && $0 < ISO8601.date(Self.range.end)! })

            // The GET form answers the same first page.
            let query = DataRequest(types: ["stepCount", "heartRate"], start: Self.range.start, end: Self.range.end, limit: 100)
            let viaGet = try await remote.get("/health/data?" + query.queryString)
            #expect(viaGet.status == 200)
            let getPage = try JSONDecoder().decode(DataResponse.self, from: Data(viaGet.body))
            let postPage = try await remote.data(query)
            #expect(getPage == postPage)
            #expect(getPage.nextCursor != nil)

            let after = try await remote.status()
            #expect(after.lastExport != nil)

            // Revoked: the very next request is refused.
            #expect(try harness.state.revoke(remote.server.clientId)?.isRevoked == true)
            await #expect(throws: PairedAPIClientError.self) { _ = try await remote.status() }
            let refused = try await harness.send("GET", "/api/v1/status", token: remote.server.token)
            #expect(refused.status == 401)
            #expect(refused.errorCode == "HEALTH_UNAUTHENTICATED")
            #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)

            // The audit log has the story, with the client as a hash.
            await harness.server.audit.flush()
            let events = try harness.state.auditEvents(limit: 1000)
            let hash = AccessStore.clientHash(remote.server.clientId)
            #expect(events.contains { $0.event == .pairSuccess && $0.client == hash && $0.detail?.clientName == "laptop" })
            #expect(events.contains { $0.event == .dataRead && $0.client == hash && $0.detail?.sampleCount == 100
                    && $0.detail?.types == ["stepCount", "heartRate"] && $0.detail?.start == Self.range.start })
            #expect(events.contains { $0.event == .apiRequest && $0.route == "/api/v1/status" && $0.status == 401
                    && $0.decision == .denied && $0.client == hash })
            #expect(events.filter { $0.event == .apiRequest }.allSatisfy { $0.requestId?.count == 24 })
            #expect(!events.contains { $0.client == remote.server.clientId })
        }
    }

    @Test func wrongFingerprintIsRefusedNamingBoth() async throws {
        try await Harness.run { harness in
            let other = try ServerIdentity.generate().fingerprint
            let (code, _) = try harness.state.issuePairingCode()
            do {
                _ = try await PairedAPIRemote.pair(host: "127.0.0.1", port: harness.port, fingerprint: other, code: code,
                                                clientName: "mallory")
                Issue.record("pairing with the wrong fingerprint succeeded")
            } catch let error as PairedAPIClientError {
                guard case .fingerprintMismatch(_, _, let expected, let presented) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(expected == other)
                #expect(presented == harness.fingerprint)
                #expect(error.description.contains(other) && error.description.contains(harness.fingerprint))
            }
            // The code never reached the server: it still pairs.
            let record = try await PairedAPIRemote.pair(host: "127.0.0.1", port: harness.port, fingerprint: harness.fingerprint,
                                                     code: code, clientName: "alice")
            // And a paired record with a tampered pin is refused on the next request.
            var tampered = record
            tampered.fingerprint = other
            do {
                _ = try await PairedAPIRemote(server: tampered).status()
                Issue.record("a request with the wrong pin succeeded")
            } catch let error as PairedAPIClientError {
                #expect(error == .fingerprintMismatch(host: "127.0.0.1", port: harness.port, expected: other,
                                                      presented: harness.fingerprint))
            }
            // Colon-separated uppercase input is the same pin.
            let colons = CertificateFingerprint.colonSeparated(harness.fingerprint)
            #expect(CertificateFingerprint.normalize(colons) == harness.fingerprint)
            var relaxed = record
            relaxed.fingerprint = colons
            _ = try await PairedAPIRemote(server: PairedServer(host: relaxed.host, port: relaxed.port,
                                                            fingerprint: CertificateFingerprint.normalize(colons)!,
                                                            token: relaxed.token, clientId: relaxed.clientId,
                                                            clientName: relaxed.clientName, deviceName: nil,
                                                            pairedAt: relaxed.pairedAt)).status()
        }
    }

    @Test func expiredUsedAndBurntCodes() async throws {
        try await Harness.run({
            $0.pairingFreeFailures = 100
            // One aggregation window for the whole test, however slowly a loaded machine runs it.
            $0.auditNoiseWindow = .seconds(600)
        }) { harness in
            func pair(_ code: String) async throws -> PinnedHTTPSClient.Reply {
                let body = try JSONEncoder().encode(PairRequest(code: code, clientName: "c"))
                return try await harness.send("POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                              body: Array(body))
            }
            // Expired.
            let (old, _) = try harness.state.issuePairingCode(lifetime: 60, now: Date().addingTimeInterval(-120))
            let expired = try await pair(old)
            #expect(expired.status == 401)
            #expect(expired.errorCode == "HEALTH_UNAUTHENTICATED")
            // Used once, then refused.
            let (once, _) = try harness.state.issuePairingCode()
            #expect(try await pair(once).status == 200)
            #expect(try await pair(once).errorCode == "HEALTH_UNAUTHENTICATED")
            // Five wrong codes lock this address out (not the code: other addresses may still use it).
            let (code, _) = try harness.state.issuePairingCode()
            for attempt in 1...5 {
                let wrong = try await pair("WRONG-\(attempt)")
                #expect(wrong.status == 401)
                #expect(wrong.errorCode == "HEALTH_UNAUTHENTICATED")
            }
            let lockedOut = try await pair(code)
            #expect(lockedOut.status == 429)
            #expect(lockedOut.errorCode == HealthError.Code.rateLimited.rawValue)
            #expect(Int(lockedOut.header("Retry-After") ?? "") ?? 0 >= 1)
            // Lowercase and without the dash is the same code.
            let (fresh, _) = try harness.state.issuePairingCode()
            #expect(try await pair(fresh.lowercased().replacingOccurrences(of: "-", with: "")).status == 200)

            await harness.server.audit.flush()
            // Repeated failures are aggregated: one row per reason, with a count.
            let failures = try harness.state.auditEvents(limit: 100).filter { $0.event == .pairFailure }
            #expect(failures.count == 4)
            #expect(failures.map { $0.detail?.count ?? 1 }.reduce(0, +) == 8)
            #expect(Set(failures.compactMap { $0.detail?.reason }) == ["PAIR_CODE_EXPIRED", "PAIR_CODE_USED", "PAIR_CODE_INVALID", "PAIR_LOCKED_OUT"])
            #expect(failures.allSatisfy { $0.address == "127.0.0.1" && $0.client == nil })
        }
    }

    @Test func repeatedPairingFailuresBackOff() async throws {
        try await Harness.inProcess({
            $0.pairingFreeFailures = 2
            $0.pairingBackoff = 30
        }) { harness in
            let body = Array(try JSONEncoder().encode(PairRequest(code: "NOPE0000", clientName: "c")))
            var statuses: [Int] = []
            var retryAfter: String?
            for _ in 0..<5 {
                let reply = try await harness.send("POST", "/api/v1/pair", body: body)
                statuses.append(reply.status)
                if reply.status == 429 {
                    retryAfter = reply.header("Retry-After")
                    #expect(reply.errorCode == "HEALTH_RATE_LIMITED")
                }
            }
            #expect(statuses == [401, 401, 401, 429, 429])
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
        }
    }

    @Test func rateLimitPerClient() async throws {
        try await Harness.run({ $0.rateLimit = 2 }) { harness in
            let remote = try await harness.pair()
            let other = try await harness.pair(name: "other")
            let replies = Collected<PinnedHTTPSClient.Reply>()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask { replies.append(try await harness.send("GET", "/api/v1/status", token: remote.server.token)) }
                }
                try await group.waitForAll()
            }
            let statuses = replies.all.map(\.status)
            #expect(statuses.filter { $0 == 200 }.count >= 2)
            #expect(Set(statuses).isSubset(of: [200, 429]))
            let limited = try #require(replies.all.first { $0.status == 429 })
            #expect(limited.errorCode == "HEALTH_RATE_LIMITED")
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
            // Buckets are per client.
            #expect(try await harness.send("GET", "/api/v1/status", token: other.server.token).status == 200)
            await harness.server.audit.flush()
            #expect(try harness.state.auditEvents(limit: 100).contains {
                $0.status == 429 && $0.decision == .denied && $0.detail?.reason == "RATE_LIMITED"
            })
        }
    }

    @Test func pausedSharingAnswersLocked() async throws {
        try await Harness.run { harness in
            try await harness.share(["stepCount"])
            let remote = try await harness.pair()
            try harness.state.setSharingState(.paused)

            let data = try await harness.send("POST", "/api/v1/health/data", token: remote.server.token,
                                              body: Array(try JSONEncoder().encode(DataRequest(types: ["stepCount"], start: Self.range.start, end: Self.range.end))))
            #expect(data.status == 423)
            #expect(data.json?["status"] == "locked")
            #expect(data.json?["samples"] == [])
            let page = try await remote.data(DataRequest(types: ["stepCount"], start: Self.range.start, end: Self.range.end))
            #expect(page.status == .locked)
            #expect(page.samples.isEmpty)
            let types = try await remote.types()
            #expect(types.status == .locked)
            #expect(types.types.isEmpty)
            let status = try await remote.status()
            #expect(status.sharing == .paused)

            try harness.state.setSharingState(.active)
            #expect(try await remote.data(DataRequest(types: ["stepCount"], start: Self.range.start, end: Self.range.end)).status == .ok)
            await harness.server.audit.flush()
            #expect(try harness.state.auditEvents(limit: 100).contains {
                $0.event == .apiRequest && $0.status == 423 && $0.decision == .denied && $0.detail?.reason == "HEALTH_SHARING_PAUSED"
            })
        }
    }

    @Test func unsharedTypeIsNoPermissionNeverAGuess() async throws {
        try await Harness.run { harness in
            let remote = try await harness.pair()
            // Nothing shared by default.
            let none = try await remote.data(DataRequest(types: ["stepCount"], start: Self.range.start, end: Self.range.end))
            #expect(none.status == .noPermission)
            #expect(none.samples.isEmpty)
            #expect(none.deniedTypes == ["stepCount"])

            try await harness.share(["stepCount"])
            let mixed = try await remote.data(DataRequest(types: ["HKQuantityTypeIdentifierStepCount", "heartRate"],
                                                          start: Self.range.start, end: Self.range.end))
            #expect(mixed.status == .noPermission)
            #expect(mixed.samples.isEmpty)
            #expect(mixed.deniedTypes == ["heartRate"])
            let reply = try await harness.send("GET", "/api/v1/health/data?types=heartRate&start=\(Self.range.start)&end=\(Self.range.end)",
                                               token: remote.server.token)
            #expect(reply.status == 403)
            #expect(reply.errorCode == "HEALTH_NOT_AUTHORIZED")
            // The prefixed spelling of a shared type is the same type.
            let prefixed = try await remote.data(DataRequest(types: ["HKQuantityTypeIdentifierStepCount"],
                                                             start: Self.range.start, end: Self.range.end))
            #expect(prefixed.status == .ok)
            #expect(!prefixed.samples.isEmpty)
            #expect(try await remote.types().types.map(\.type) == ["stepCount"])
            await harness.server.audit.flush()
            #expect(try harness.state.auditEvents(limit: 100).contains {
                $0.event == .apiRequest && $0.status == 403 && $0.decision == .denied
                    && $0.detail == AuditEvent.Detail(types: ["heartRate"], reason: "HEALTH_NOT_AUTHORIZED")
            })
        }
    }

    @Test func inputValidationAtTheBoundary() async throws {
        try await Harness.inProcess { harness in
            try await harness.share(["stepCount", "heartRate"])
            let token = try await harness.pairDevice().token
            let json = [("Content-Type", "application/json")]
            func post(_ body: String) async throws -> PinnedHTTPSClient.Reply {
                try await harness.send("POST", "/api/v1/health/data", token: token, headers: json, body: Array(body.utf8))
            }
            func get(_ query: String) async throws -> PinnedHTTPSClient.Reply {
                try await harness.send("GET", "/api/v1/health/data?" + query, token: token)
            }
            let good = "start=\(Self.range.start)&end=\(Self.range.end)"
            let cases: [(PinnedHTTPSClient.Reply, Int, String)] = [
                (try await post("{not json"), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await post("[]"), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await post(#"{"types": 7, "start": "2026-01-06T00:00:00Z", "end": "2026-01-07T00:00:00Z"}"#), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await post(#"{"types": ["stepCount"], "start": 5, "end": "2026-01-07T00:00:00Z"}"#), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await post(""), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get(good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get("types=stepCount&start=yesterday&end=2026-01-07T00:00:00Z"), 400, "HEALTH_INVALID_RANGE"),
                (try await get("types=stepCount&start=2026-01-08T00:00:00Z&end=2026-01-07T00:00:00Z"), 400, "HEALTH_INVALID_RANGE"),
                (try await get("types=stepCont&" + good), 400, "HEALTH_INVALID_TYPE"),
                (try await get("types=workout&" + good), 400, "HEALTH_INVALID_TYPE"),
                (try await get("types=" + String(repeating: "a", count: 200) + "&" + good), 400, "HEALTH_INVALID_TYPE"),
                (try await get("types=stepCount&limit=0&" + good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get("types=stepCount&limit=99999&" + good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get("types=stepCount&limit=ten&" + good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get("types=stepCount&types=heartRate&" + good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get("types=stepCount&cursor=bm9wZQ&" + good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await get("types=" + Array(repeating: "stepCount", count: 40).joined(separator: ",") + "&" + good), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await harness.send("POST", "/api/v1/health/data", token: token, headers: json,
                                        body: Array(repeating: UInt8(ascii: " "), count: 70 * 1024)), 413, "HEALTH_PAYLOAD_TOO_LARGE"),
                (try await harness.send("POST", "/api/v1/pair", headers: json,
                                        body: Array(repeating: UInt8(ascii: " "), count: 65 * 1024)), 413, "HEALTH_PAYLOAD_TOO_LARGE"),
                (try await harness.send("POST", "/api/v1/pair", headers: json, body: Array(#"{"code":"x"}"#.utf8)), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await harness.send("POST", "/api/v1/pair", headers: json,
                                        body: Array(#"{"code":"ABCD1234","clientName":""}"#.utf8)), 400, "HEALTH_INVALID_ARGUMENT"),
                (try await harness.send("GET", "/api/v1/status"), 401, "HEALTH_UNAUTHENTICATED"),
                (try await harness.send("GET", "/api/v1/status", token: "forged-token"), 401, "HEALTH_UNAUTHENTICATED"),
                (try await harness.send("GET", "/api/v1/status", headers: [("Authorization", "Basic abc")]), 401, "HEALTH_UNAUTHENTICATED"),
                (try await harness.send("GET", "/api/v1/health/types"), 401, "HEALTH_UNAUTHENTICATED"),
                (try await harness.send("GET", "/api/v1/openapi.json"), 401, "HEALTH_UNAUTHENTICATED"),
                (try await harness.send("GET", "/api/v1/nothing-here"), 401, "HEALTH_UNAUTHENTICATED"),
                (try await harness.send("GET", "/api/v1/nothing-here", token: token), 404, "HEALTH_NOT_FOUND"),
                (try await harness.send("GET", "/api/v1/status?" + String(repeating: "x", count: 9000), token: token), 414, "HEALTH_PAYLOAD_TOO_LARGE"),
            ]
            for (index, (reply, status, code)) in cases.enumerated() {
                #expect(reply.status == status, "case \(index): \(String(decoding: reply.body.prefix(200), as: UTF8.self))")
                #expect(reply.errorCode == code, "case \(index)")
                #expect(reply.json?["status"] == "error", "case \(index)")
                #expect(reply.header(PairedAPIProtocol.requestIDHeader)?.count == 24, "case \(index)")
                #expect(reply.json?["requestId"]?.stringValue == reply.header(PairedAPIProtocol.requestIDHeader), "case \(index)")
                #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true, "case \(index)")
            }
            // An error message never echoes a body back.
            let echoed = try await post(#"{"types": ["stepCount"], "start": "SECRET-VALUE", "end": "2026-01-07T00:00:00Z"}"#)
            #expect(!String(decoding: echoed.body, as: UTF8.self).contains("SECRET-VALUE"))
            // The server still answers well-formed requests afterwards.
            #expect(try await get("types=stepCount&" + good).status == 200)
        }
    }

    @Test func pagingFollowsTypesAndBindsCursors() async throws {
        try await Harness.run { harness in
            try await harness.share(["stepCount", "heartRate"])
            let remote = try await harness.pair()
            let request = DataRequest(types: ["stepCount", "heartRate"], start: "2026-01-09T00:00:00Z",
                                      end: "2026-01-10T00:00:00Z", limit: 7)
            let whole = try await remote.fetchAll(DataRequest(types: request.types, start: request.start, end: request.end,
                                                              limit: 5000))
            #expect(whole.nextCursor == nil)
            let paged = try await remote.fetchAll(request)
            #expect(paged.samples == whole.samples)
            // A cursor only works for the request it came from.
            let first = try await remote.data(request)
            let cursor = try #require(first.nextCursor)
            let reply = try await harness.send("GET", "/api/v1/health/data?types=stepCount&start=2026-01-08T00:00:00Z&end=2026-01-10T00:00:00Z&cursor=\(cursor)",
                                               token: remote.server.token)
            #expect(reply.status == 400)
            #expect(reply.errorCode == "HEALTH_INVALID_ARGUMENT")
        }
    }

    @Test func secretsStayOffDisk() async throws {
        try await Harness.run { harness in
            let remote = try await harness.pair()
            await harness.server.audit.flush()
            let mode = { (path: String) -> Int in
                ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int ?? -1) & 0o777
            }
            let database = harness.home.appendingPathComponent(AccessStore.fileName).path
            #expect(mode(database) == 0o600)
            var bytes = Data()
            for suffix in ["", "-wal"] {
                bytes += (try? Data(contentsOf: URL(fileURLWithPath: database + suffix))) ?? Data()
            }
            #expect(!bytes.isEmpty)
            #expect(bytes.range(of: Data(remote.server.token.utf8)) == nil, "the token itself must not be stored")
            #expect(bytes.range(of: Data(AccessStore.tokenHash(remote.server.token))) != nil, "its hash is")

            // The identity on disk: key 0600 in a 0700 directory, stable across loads.
            let (identity, created) = try ServerIdentity.loadOrCreate(home: harness.home)
            #expect(created)
            let tls = harness.home.appendingPathComponent(ServerIdentity.directoryName)
            #expect(mode(tls.path) == 0o700)
            #expect(mode(tls.appendingPathComponent(ServerIdentity.keyFileName).path) == 0o600)
            let (again, createdAgain) = try ServerIdentity.loadOrCreate(home: harness.home)
            #expect(!createdAgain)
            #expect(again.fingerprint == identity.fingerprint)

            // The client's record: 0600 in 0700.
            let store = PairedServerStore(directory: harness.home.appendingPathComponent("client"))
            try store.save(remote.server)
            #expect(mode(store.directory.path) == 0o700)
            #expect(mode(store.fileURL.path) == 0o600)
            #expect(try store.load() == remote.server)
        }
    }

    @Test func auditNeverHoldsHealthValues() async throws {
        try await Harness.run { harness in
            try await harness.share(["stepCount", "heartRate"])
            let remote = try await harness.pair()
            let page = try await remote.data(DataRequest(types: ["stepCount", "heartRate"], start: "2026-01-09T11:00:00Z",
                                                         end: "2026-01-09T13:00:00Z", limit: 5000))
            // The sentinels were served…
            #expect(page.samples.contains { $0.value == Fixture.sentinelSteps })
            #expect(page.samples.contains { $0.value == Fixture.sentinelHeartRate && $0.source == Fixture.sentinelSource })
            await harness.server.audit.flush()
            // …and the audit log knows the read happened, not what was read.
            let dump = try harness.state.rawAuditDump()
            #expect(dump.contains("data.read"))
            for sample in page.samples {
                if let value = sample.value, value != value.rounded() { #expect(!dump.contains(String(value))) }
                if let source = sample.source { #expect(!dump.contains(source)) }
            }
        }
    }
}
