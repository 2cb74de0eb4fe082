import Crypto
import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthConsole
import HealthHTTP
import HealthMCP
import HealthModel
import HealthOAuth
import HealthService
import HealthStore
import HealthStorePostgres
import HealthSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PairedAPI
import Synchronization
import Testing

/// Issue 27, the isolation test: two people of one household, Alex (A) and Blake (B), each with a store (SQLite: a
/// data directory of their own; PostgreSQL: a schema and role of their own) and an access state of their own. Every
/// kind of credential made for A — a paired device token with full grants, an ingest token, an OAuth access token
/// for an MCP client with grants, the MCP static bearer token, a console session — is sent to EVERY route of B's
/// servers (the paired API with its receivers, the MCP endpoint with its OAuth endpoints, the console), with every
/// method each route answers, the route list read from the routers themselves. A's credential never gets more than no
/// credential at all: where the anonymous request is refused (401/403/404), so is A's; where a route is public
/// (pairing, login, metadata, assets), A's answer is the anonymous one. No answer carries any of B's values, and
/// after every write attempt B's store is unchanged (anchor and sample count).
@Suite("A person's credentials open nothing of another person's", .serialized)
struct PeopleIsolationTests {
    /// B's values: none of them may appear in any answer to A's credentials.
    static let blakesValue = 4_242_417.0
    static let blakesMarkers = ["4242417", "4.242417", "Blake Secret Watch", "blake-secret-bundle"]
    static let resource = "http://127.0.0.1:8081/mcp"
    /// HummingbirdTesting's requests name `localhost` (no port) as their authority: the console is told it runs on
    /// port 80 so that its Host check lets them through to the session check (the wall under test).
    static let consolePort = 80
    static let mcpBearerA = "mcp-static-token-of-alex-" + String(repeating: "a", count: 24)
    static let mcpBearerB = "mcp-static-token-of-blake-" + String(repeating: "b", count: 24)

    struct Person {
        var id: String
        var home: HealthBridgeHome
        var store: any HealthStore
        var state: AccessStore
        var service: HealthService
        var postgres: PostgresStoreConfiguration?
    }

    /// A's credentials, one of each kind.
    struct Credentials {
        var deviceToken: String
        var ingestToken: String
        var oauthToken: String
        var mcpBearer: String
        var consoleCookie: String

        /// Each credential as the headers that present it.
        var all: [(name: String, headers: [(String, String)])] {
            [("paired device token", [("Authorization", "Bearer \(deviceToken)")]),
             ("ingest token", [("Authorization", "Bearer \(ingestToken)")]),
             ("OAuth access token", [("Authorization", "Bearer \(oauthToken)")]),
             ("MCP static bearer token", [("Authorization", "Bearer \(mcpBearer)")]),
             ("console session", [("Cookie", "hb_console=\(consoleCookie)")])]
        }
    }

    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: String
    }

    static var logger: Logger { Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }) }

    // MARK: The household

    /// Opens (or for PostgreSQL, creates) the person's store: SQLite in their data directory, PostgreSQL in the
    /// schema `<base>_<id>` bound to them, as `--person` does.
    static func open(_ id: String, household: Household, kind: TestStoreKind,
                     base: PostgresStoreConfiguration?) async throws -> Person {
        let home = try household.home(of: id)
        let store: any HealthStore
        var postgres: PostgresStoreConfiguration?
        switch kind {
        case .sqlite:
            store = try SQLiteHealthStore(location: .file(home.storeURL))
        case .postgres:
            guard var configuration = base else { throw HealthError(.storeUnavailable, "no PostgreSQL configuration") }
            if id != Household.ownerID {   // the owner's store is the URL's schema, as without --person
                configuration.schema = configuration.schema + "_" + id
                configuration.person = id
            }
            store = try await PostgresHealthStore(configuration: configuration, logger: TestStores.logger)
            postgres = configuration
        }
        let state = try AccessStore.open(home: home.directory)
        let service = try await HealthService.open(store: store, access: state, logger: logger)
        return Person(id: id, home: home, store: store, state: state, service: service, postgres: postgres)
    }

    static func samples(for person: String, value: Double) -> [HealthSample] {
        let source = person == "blake"
            ? HealthSource(name: "Blake Secret Watch", bundleIdentifier: "blake-secret-bundle",
                           device: HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch"))
            : HealthSource(name: "Alex Phone", device: HealthDevice(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone"))
        let start = Date().addingTimeInterval(-3_600)
        return (0..<3).map { index in
            HealthSample(type: "stepCount", start: start.addingTimeInterval(Double(index) * 120),
                         end: start.addingTimeInterval(Double(index) * 120 + 60),
                         value: .quantity(value + Double(index), unit: "count"), source: source)
        }
    }

    // MARK: Requests

    static func send(_ client: any TestClientProtocol, _ method: String, _ path: String,
                     headers: [(String, String)], body: [UInt8]? = nil) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        guard let verb = HTTPRequest.Method(method) else { throw HealthError(.invalidArgument, "method \(method)") }
        let response = try await client.executeRequest(uri: path, method: verb, headers: fields,
                                                       body: body.map { ByteBuffer(bytes: $0) })
        return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name.rawName, $0.value) },
                     body: String(buffer: response.body))
    }

    /// A concrete path for a route's pattern: every parameter (`{id}`, `:id`) and wildcard becomes a value.
    static func concrete(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            if segment.hasPrefix("{") || segment.hasPrefix(":") { return "stepCount" }
            if segment.contains("*") { return "x" }
            return String(segment)
        }.joined(separator: "/")
    }

    /// A body that would write one of A's samples into whatever store accepted it (JSON for the API and MCP, a
    /// form for the console): B's store must stay as it was.
    static func writeBody(for method: String) -> [UInt8]? {
        guard method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE" else { return nil }
        return Array("""
            {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_samples","arguments":{}},
             "data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2026-01-01 10:00:00 +0000","qty":5}]}]},
             "samples":[{"type":"stepCount","start":"2026-01-01T10:00:00Z","end":"2026-01-01T10:01:00Z","value":5,"unit":"count"}]}
            """.utf8)
    }

    /// Sends every route of `routes` with every credential of A and anonymously; checks the answers (see the suite).
    static func sweep(_ client: any TestClientProtocol, routes: [RouteEntry], router name: String,
                      credentials: Credentials) async throws -> Int {
        var sent = 0
        for route in Set(routes).sorted(by: { $0.description < $1.description }) {
            let path = concrete(route.path)
            // The console's state-changing routes want their own Origin: given, so that only the session decides.
            let base: [(String, String)] = [("Origin", "http://localhost"), ("Content-Type", "application/json"),
                                            ("Accept", "application/json, text/event-stream"),
                                            ("MCP-Protocol-Version", "2025-06-18")]
            let body = writeBody(for: route.method)
            let anonymous = try await send(client, route.method, path, headers: base, body: body)
            for marker in blakesMarkers {
                #expect(!anonymous.body.contains(marker), "\(name) \(route) anonymously shows B's \(marker)")
            }
            let refusedAnonymously = [401, 403, 404].contains(anonymous.status)
            for credential in credentials.all {
                let reply = try await send(client, route.method, path, headers: base + credential.headers, body: body)
                sent += 1
                if refusedAnonymously {
                    #expect([401, 403, 404].contains(reply.status),
                            "\(name) \(route) with A's \(credential.name): \(reply.status) \(reply.body.prefix(200))")
                } else {
                    #expect(reply.status == anonymous.status,
                            "\(name) \(route) (public, \(anonymous.status) anonymously) with A's \(credential.name): \(reply.status)")
                }
                for marker in blakesMarkers {
                    #expect(!reply.body.contains(marker), "\(name) \(route) with A's \(credential.name) shows B's \(marker)")
                }
                for (header, value) in reply.headers where header.lowercased() == "set-cookie" {
                    #expect(!value.contains("hb_console=") || value.contains("hb_console=;") || value.contains("Max-Age=0"),
                            "\(name) \(route) with A's \(credential.name) opened a console session of B's")
                }
            }
        }
        return sent
    }

    // MARK: A's credentials

    /// Makes one credential of each kind for A, on A's own servers, and checks that each works there (so that
    /// its refusal by B's is the wall, not a broken credential).
    static func credentials(of alex: Person) async throws -> Credentials {
        _ = try await alex.service.updateGrants(GrantsUpdate(principal: Principal.allDevices.id,
                                                             allowRead: ["stepCount"], allowWrite: ["stepCount"]))
        // A paired device, through A's own pairing route.
        let server = try pairedServer(alex)
        let deviceToken = Latest("")
        try await server.application().test(.router) { client in
            let (code, _) = try alex.state.issuePairingCode()
            let pairing = try JSONEncoder().encode(PairRequest(code: code, clientName: "alex-phone"))
            let reply = try await send(client, "POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                       body: Array(pairing))
            #expect(reply.status == 200, "A's pairing: \(reply.status) \(reply.body.prefix(300))")
            let token = try JSONDecoder().decode(PairResponse.self, from: Data(reply.body.utf8)).token
            deviceToken.set(token)
            let own = try await send(client, "GET", "/api/v1/status",
                                     headers: [("Authorization", "Bearer \(token)")])
            #expect(own.status == 200, "A's device reads A's data: \(own.status) \(own.body.prefix(200))")
        }
        let ingest = try await alex.service.createIngestToken(name: "alex-ingest", allowWrite: ["stepCount"])
        // An OAuth client of A's MCP endpoint, approved by A with grants, and its access token.
        let clientID = "http://127.0.0.1:9/alex-agent.json", redirect = "http://127.0.0.1:9/callback"
        _ = try await alex.service.oauthRecordClient(clientID: clientID, name: "Alex's agent", source: .metadataDocument,
                                                     redirectURIs: [redirect])
        let verifier = "alex-verifier-" + String(repeating: "v", count: 43)
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let requestID = try await alex.service.oauthBeginAuthorization(OAuthAuthorizationRequest(
            clientID: clientID, redirectURI: redirect, codeChallenge: challenge, state: "s", resource: resource,
            scope: "health:read health:write", expiresAt: Date().addingTimeInterval(300)))
        let location = try await alex.service.oauthDecide(id: requestID, approve: true, read: ["stepCount"], write: ["stepCount"])
        let code = URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value ?? ""
        let pair = try await alex.service.oauthExchangeCode(code, clientID: clientID, redirectURI: redirect,
                                                            verifier: verifier, resource: resource)
        let principal = try await alex.service.oauthAuthenticate(accessToken: pair.accessToken, resource: resource)
        #expect(principal.kind == .mcp)
        // A console session, through A's own console login.
        let console = consoleOf(alex)
        let router = Router()
        console.addRoutes(to: router)
        let key = try await alex.service.issueConsoleKey()
        let session = Latest("")
        try await Application(router: router).test(.router) { client in
            let reply = try await send(client, "GET", "/login?key=\(key)", headers: [])
            var cookie = ""
            for (name, value) in reply.headers where name.lowercased() == "set-cookie" && value.hasPrefix("hb_console=") {
                cookie = String(value.dropFirst("hb_console=".count).prefix { $0 != ";" })
            }
            session.set(cookie)
            #expect(!cookie.isEmpty, "A's console login: \(reply.status) \(reply.headers) \(reply.body.prefix(300))")
            let own = try await send(client, "GET", "/", headers: [("Cookie", "hb_console=\(cookie)")])
            #expect(own.status == 200, "A's console session opens A's console: \(own.status) \(own.body.prefix(300))")
        }
        return Credentials(deviceToken: deviceToken.value, ingestToken: ingest.token, oauthToken: pair.accessToken,
                           mcpBearer: mcpBearerA, consoleCookie: session.value)
    }

    static func pairedServer(_ person: Person) throws -> PairedAPIServer {
        var configuration = PairedAPIServerConfiguration()
        configuration.rateLimit = 0
        // The sweep sends hundreds of refused requests from one address: the answers must be the authentication's
        // own refusals, not the throttle's 429.
        configuration.failedAuthBurst = 1_000_000
        configuration.pairingFreeFailures = 1_000_000
        configuration.defaultDeviceName = person.id + "-server"
        let identity = try ServerIdentity.loadOrCreate(home: person.home.directory).0
        return PairedAPIServer(configuration: configuration, identity: identity, state: person.state,
                               service: person.service, logger: logger)
    }

    static func consoleOf(_ person: Person, household: HouseholdServices? = nil) -> Console {
        let console = Console(service: person.service, home: person.home,
                              configuration: .init(port: consolePort, host: "127.0.0.1"),
                              pairing: ConsolePairing(fingerprint: { "" }, listening: { nil },
                                                      fallback: { .init(host: "192.0.2.10", port: 8443) }),
                              household: household, person: person.id, logger: logger)
        console.setPort(consolePort)
        return console
    }

    // MARK: The test

    @Test(arguments: TestStores.kinds)
    func everyCredentialOfOnePersonIsRefusedByEveryRouteOfAnother(kind: TestStoreKind) async throws {
        let directory = try TemporaryHome("isolation").url
        defer { try? FileManager.default.removeItem(at: directory) }
        let household = Household(home: HealthBridgeHome(directory: directory))
        _ = try household.add(name: "Alex", id: "alex")
        _ = try household.add(name: "Blake", id: "blake")
        let base = kind == .postgres ? try TestStores.freshPostgresConfiguration() : nil
        let alex = try await Self.open("alex", household: household, kind: kind, base: base)
        let blake = try await Self.open("blake", household: household, kind: kind, base: base)
        do {
            try await alex.store.save(Self.samples(for: "alex", value: 11))
            try await blake.store.save(Self.samples(for: "blake", value: Self.blakesValue))
            _ = try await blake.service.updateGrants(GrantsUpdate(principal: Principal.allDevices.id,
                                                                  allowRead: ["stepCount"], allowWrite: ["stepCount"]))
            let anchorBefore = try await blake.store.currentAnchor()
            let countBefore = try await blake.store.samples(SampleQuery(type: "stepCount")).samples.count
            #expect(countBefore == 3)

            let credentials = try await Self.credentials(of: alex)
            let sent = Latest(0)

            // B's paired API (with the ingest and Health Auto Export receivers).
            let paired = try Self.pairedServer(blake)
            let pairedRoutes = paired.routes
            #expect(pairedRoutes.contains { $0.path.contains("ingest") }, "the receivers are among the routes")
            try await paired.application().test(.router) { client in
                // The control: B's own device, paired on B's server, sees B's values, so the markers the sweep looks
                // for are what a leak would show.
                let (code, _) = try blake.state.issuePairingCode()
                let pairing = try JSONEncoder().encode(PairRequest(code: code, clientName: "blake-phone"))
                let paired = try await Self.send(client, "POST", "/api/v1/pair", headers: [("Content-Type", "application/json")],
                                                 body: Array(pairing))
                let token = try JSONDecoder().decode(PairResponse.self, from: Data(paired.body.utf8)).token
                let start = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-86_400))
                let end = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600))
                let own = try await Self.send(client, "GET", "/api/v1/health/data?types=stepCount&start=\(start)&end=\(end)",
                                              headers: [("Authorization", "Bearer \(token)")])
                #expect(own.status == 200 && Self.blakesMarkers.contains { own.body.contains($0) },
                        "B's own device reads B's data: \(own.status) \(own.body.prefix(300))")
                sent.add(try await Self.sweep(client, routes: pairedRoutes, router: "paired API",
                                             credentials: credentials))
            }

            // B's MCP endpoint with its OAuth authorization server (B's static bearer token is not A's).
            let oauth = OAuthServer(service: blake.service,
                                    configuration: .init(resource: Self.resource, consentOrigin: { nil }))
            let mcpRouter = Router()
            oauth.addRoutes(to: mcpRouter)
            let sessions = HealthMCPHTTP.addRoutes(
                to: mcpRouter, toolbox: HealthToolbox(service: blake.service),
                options: .init(bearerToken: Self.mcpBearerB, loopbackOnly: true,
                               authorizer: oauth.authorizer(staticToken: Self.mcpBearerB, anonymous: false)))
            let mcpRoutes = mcpRouter.routeList
            #expect(mcpRoutes.contains { $0.path == "/mcp" })
            // Live (a real loopback connection): the MCP SDK wants a Host with a port, which only a real client sends.
            try await Application(router: mcpRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
                .test(.live) { client in
                sent.add(try await Self.sweep(client, routes: mcpRoutes, router: "MCP",
                                             credentials: credentials))
                // B's own static token passes there: the refusals above are A's credentials', not a broken endpoint.
                let own = try await Self.send(client, "POST", "/mcp", headers: [
                    ("Host", "127.0.0.1:8081"), ("Content-Type", "application/json"),
                    ("Accept", "application/json, text/event-stream"), ("Authorization", "Bearer \(Self.mcpBearerB)")],
                    body: Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.utf8))
                // (The SDK behind the authorization may still refuse the test client's Host with 421: what matters is that
                // B's token passed the authorization that stopped every one of A's credentials.)
                #expect(![401, 403].contains(own.status) && !own.body.contains("Unauthorized"),
                        "B's own token passes B's MCP authorization: \(own.status) \(own.body.prefix(300))")
            }
            await sessions.closeAll()

            // B's console, with the household (its People page and B's view of what others share).
            let people = try await Self.households(household, alex, blake)
            try await people.share("alex", with: "blake", read: ["stepCount"])   // not A's credentials' way in
            let console = Self.consoleOf(blake, household: people)
            let consoleRouter = Router()
            console.addRoutes(to: consoleRouter)
            let consoleRoutes = consoleRouter.routeList
            try await Application(router: consoleRouter).test(.router) { client in
                sent.add(try await Self.sweep(client, routes: consoleRoutes, router: "console", credentials: credentials))
            }

            #expect(sent.value >= 5 * (pairedRoutes.count + mcpRoutes.count + consoleRoutes.count))
            #expect(try await blake.store.currentAnchor() == anchorBefore, "B's store changed")
            let after = try await blake.store.samples(SampleQuery(type: "stepCount")).samples
            #expect(after.count == countBefore)
            #expect(after.allSatisfy { ($0.value.quantity ?? 0) >= Self.blakesValue })
            // And A's store has only A's samples.
            let alexes = try await alex.store.samples(SampleQuery(type: "stepCount")).samples
            #expect(!alexes.contains { ($0.value.quantity ?? 0) >= Self.blakesValue })
        } catch {
            await Self.close(alex, blake)
            throw error
        }
        await Self.close(alex, blake)
    }

    /// Sharing between people (a caregiver): B grants A reading of steps. Through the household, A then reads B's
    /// steps and nothing else of B's (heart rate looks like no data), never writes, and B's audit log has the view;
    /// a person who shares nothing is not found; B's stopping ends it. On both stores: the grant lives in B's store.
    @Test(arguments: TestStores.kinds)
    func aCaregiverReadsOnlyWhatWasShared(kind: TestStoreKind) async throws {
        let directory = try TemporaryHome("caregiver").url
        defer { try? FileManager.default.removeItem(at: directory) }
        let household = Household(home: HealthBridgeHome(directory: directory))
        _ = try household.add(name: "Alex", id: "alex")
        _ = try household.add(name: "Blake", id: "blake")
        let base = kind == .postgres ? try TestStores.freshPostgresConfiguration() : nil
        let alex = try await Self.open("alex", household: household, kind: kind, base: base)
        let blake = try await Self.open("blake", household: household, kind: kind, base: base)
        let owner = try await Self.open(Household.ownerID, household: household, kind: kind, base: base)
        do {
            try await blake.store.save(Self.samples(for: "blake", value: Self.blakesValue))
            let now = Date()
            try await blake.store.save([HealthSample(type: "heartRate", start: now.addingTimeInterval(-600),
                                                     end: now.addingTimeInterval(-600), value: .quantity(61, unit: "count/min"),
                                                     source: HealthSource(name: "Blake Secret Watch"))])
            let people = try await Self.households(household, alex, blake, owner)

            // Nothing shared: A cannot tell B from nobody.
            await #expect(throws: HealthError.self) { _ = try await people.view(of: "blake", for: "alex") }
            #expect(try await people.sharedWith("alex").isEmpty)

            let shared = try await people.share("blake", with: "alex", read: ["stepCount"])
            #expect(shared.read == "stepCount")
            #expect(try await people.sharedWith("alex").map(\.person) == ["blake"])
            let view = try await people.view(of: "blake", for: "alex")
            let steps = try await view.summary(SummaryRequest(type: "stepCount", start: "1d", interval: "total",
                                                              statistics: ["sum"]))
            #expect(steps.buckets.first?.sum == 3 * Self.blakesValue + 3)
            let heart = try await view.summary(SummaryRequest(type: "heartRate", start: "1d", interval: "total",
                                                              statistics: ["average"]))
            #expect(heart.buckets.allSatisfy { $0.average == nil }, "heart rate was not shared: no data")
            let own = try await blake.service.summary(SummaryRequest(type: "heartRate", start: "1d", interval: "total",
                                                                     statistics: ["average"]))
            #expect(own.buckets.first?.average == 61)
            let anchor = try await blake.store.currentAnchor()
            await #expect(throws: HealthError.self) { _ = try await view.logWater(250, unit: "mL") }
            await #expect(throws: HealthError.self) {
                _ = try await blake.service.updateGrants(GrantsUpdate(principal: "person:alex", allowWrite: ["stepCount"]))
            }
            #expect(try await blake.store.currentAnchor() == anchor, "nothing was written into B's store")
            #expect(try await people.sharedWith("alex").first?.read == "stepCount", "a refused change changes nothing")

            try await people.recordView(of: "blake", by: "alex", types: ["stepCount"])
            let events = try await blake.service.auditEvents(AuditQuery(event: .dataRead, limit: 5))
            #expect(events.first?.detail?.principal == "person:alex")
            #expect(try await alex.service.auditEvents(AuditQuery(event: .dataRead, limit: 5)).isEmpty)

            // Removing A takes back what B shared with A, so a later "alex" inherits nothing.
            #expect(try await people.forget("alex") == ["blake"])
            #expect(try await people.sharedWith("alex").isEmpty)
            await #expect(throws: HealthError.self) { _ = try await people.view(of: "blake", for: "alex") }
        } catch {
            await Self.close(alex, blake, owner)
            throw error
        }
        await Self.close(alex, blake, owner)
    }

    /// The household of people the test already opened (opening anyone else is a test error).
    static func households(_ household: Household, _ people: Person...) async throws -> HouseholdServices {
        let services = HouseholdServices(household: household) { id in
            throw HealthError(.storeUnavailable, "the test opened every person already (\(id))")
        }
        for person in people { try await services.use(person.service, for: person.id) }
        return services
    }

    static func close(_ people: Person...) async {
        for person in people {
            if let store = person.store as? PostgresHealthStore {
                await store.close()
            }
            if let configuration = person.postgres {
                try? await PostgresHealthStore.dropSchema(configuration: configuration, logger: TestStores.logger)
            }
        }
    }
}

/// A value set inside a `@Sendable` test closure and read after it.
final class Latest<T: Sendable>: Sendable {
    private let storage: Mutex<T>
    init(_ value: T) { storage = Mutex(value) }
    var value: T { storage.withLock { $0 } }
    func set(_ value: T) { storage.withLock { $0 = value } }
}

extension Latest where T == Int {
    func add(_ amount: Int) { storage.withLock { $0 += amount } }
}
