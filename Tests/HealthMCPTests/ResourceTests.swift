import Foundation
import HealthAPI
import HealthMCP
import HealthModel
import HealthService
import HealthStore
import Logging
import MCP
import Testing

/// The resources: listed with MIME type and size, read as the tools' own JSON, templates, clear errors.
@Suite("MCP resources")
struct ResourceTests {
    func json(_ contents: [Resource.Content]) throws -> Value {
        let content = try #require(contents.first)
        #expect(content.mimeType == "application/json")
        return try JSONDecoder().decode(Value.self, from: Data(try #require(content.text).utf8))
    }

    @Test func listsTheFixedResourcesWithTheirSizeAndTheTemplates() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let (resources, _) = try await harness.client.listResources()
        #expect(resources.map(\.uri) == ["healthbridge://types", "healthbridge://sources", "healthbridge://today"])
        for resource in resources {
            #expect(resource.mimeType == "application/json")
            #expect((resource.description ?? "").count > 20)
            let contents = try await harness.client.readResource(uri: resource.uri)
            #expect(resource.size == contents.first?.text?.utf8.count, "\(resource.uri): size is the content's bytes")
        }
        let (templates, _) = try await harness.client.listResourceTemplates()
        #expect(templates.map(\.uriTemplate) == ["healthbridge://summary/{type}", "healthbridge://latest/{type}"])
        #expect(templates.allSatisfy { $0.mimeType == "application/json" })
    }

    @Test func readsTheToolsOwnDocuments() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let types = try json(try await harness.client.readResource(uri: "healthbridge://types"))
        #expect(types == .object(try await harness.ok("list_types")))
        let sources = try json(try await harness.client.readResource(uri: "healthbridge://sources"))
        #expect(sources == .object(try await harness.ok("list_sources")))
        let today = try json(try await harness.client.readResource(uri: "healthbridge://today"))
        #expect(today == .object(try await harness.ok("health_today")))
        let summary = try json(try await harness.client.readResource(uri: "healthbridge://summary/stepCount"))
        #expect(summary == .object(try await harness.ok("summarize", ["type": "stepCount", "start": "30d", "interval": "day"])))
        #expect(summary["buckets"]?.arrayValue?.count == 30)
        #expect(summary["merged"]?.boolValue == true)
        // Prefixed and percent-encoded identifiers name the same type.
        let latest = try json(try await harness.client.readResource(uri: "healthbridge://latest/HKQuantityTypeIdentifierBodyMass"))
        #expect(latest == .object(try await harness.ok("latest", ["type": "bodyMass"])))
        let encoded = try json(try await harness.client.readResource(uri: "healthbridge://latest/body%4Dass"))
        #expect(encoded["type"] == latest["type"])
    }

    @Test func unknownResourcesAndTypesAreClearErrors() async throws {
        let harness = try await Harness.make()
        defer { Task { await harness.close() } }
        let cases: [(String, Int, String)] = [
            ("healthbridge://weather", -32002, "Resource not found: 'healthbridge://weather'; the resources are healthbridge://types"),
            ("https://example.com/types", -32002, "healthbridge://summary/{type}"),
            ("healthbridge://summary/stepz", -32602, "HEALTH_INVALID_TYPE: unknown type 'stepz'"),
            ("healthbridge://summary/", -32602, "names no type"),
            ("healthbridge://summary/workout", -32602, "HEALTH_NO_SUMMARY"),
        ]
        for (uri, code, message) in cases {
            do {
                _ = try await harness.client.readResource(uri: uri)
                Issue.record("\(uri) should fail")
            } catch let error as MCPError {
                #expect(error.code == code, "\(uri): \(error)")
                #expect("\(error)".contains(message), "\(uri): \(error)")
            }
        }
        do {
            try await harness.client.subscribeToResource(uri: "healthbridge://latest/nothing")
            Issue.record("subscribing to an unknown type should fail")
        } catch let error as MCPError {
            #expect(error.code == -32602)
        }
    }
}

/// Push: `resources/subscribe`, then a commit through the service, then `notifications/resources/updated` within a
/// second; only for the resources the commit changes and the principal may read.
@Suite("MCP resource subscriptions")
struct ResourceSubscriptionTests {
    /// A writable service (in memory) whose MCP client may write weight and water.
    static func writableService() async throws -> HealthService {
        let service = HealthService(store: try SQLiteHealthStore.inMemory(), homeTimeZone: Fixture.utc, clock: { Fixture.end })
        try await service.updateGrants(GrantsUpdate(principal: "mcp", allowWrite: ["bodyMass", "dietaryWater"]))
        return service
    }

    @Test func aWriteNotifiesOnlyTheSubscribedResourcesItChanges() async throws {
        let service = try await Self.writableService()
        let toolbox = HealthToolbox(service: service)
        let (clientTransport, serverTransport) = await InMemoryTransport.createConnectedPair()
        let server = await HealthMCPServer.make(toolbox: toolbox)
        let noting = NotingTransport(serverTransport)
        try await server.start(transport: noting)
        let client = Client(name: "push-test", version: "1.0")
        let inbox = Inbox()
        await client.onNotification(ResourceUpdatedNotification.self) { message in await inbox.add(message.params.uri) }
        try await client.connect(transport: clientTransport)
        defer { Task { await client.disconnect(); await server.stop() } }

        try await client.subscribeToResource(uri: "healthbridge://latest/bodyMass")

        // Water changes neither the weight's latest value: no update for it.
        #expect(await toolbox.call("log_water", arguments: ["value": 250, "unit": "mL"]).isError == false)
        // Weight: the server sends the update promptly after the commit (measured where it leaves the server; the
        // bound is loose because the whole suite shares two cores here — the mcp-interop tier checks the 1 s of the
        // issue end to end against `serve` alone), and the client gets it.
        #expect(await toolbox.call("log_weight", arguments: ["value": 72.5]).isError == false)
        let committed = ContinuousClock.now
        let uri = await inbox.next(within: .seconds(10))
        #expect(uri == "healthbridge://latest/bodyMass")
        let sent = try #require(await noting.updatesSent.first)
        #expect(sent - committed < .seconds(5), "sent \(sent - committed) after the commit")
        let latest = try await client.readResource(uri: "healthbridge://latest/bodyMass")
        #expect(latest.first?.text?.contains("72.5") == true)

        // Any commit changes the type list.
        try await client.subscribeToResource(uri: "healthbridge://types")
        #expect(await toolbox.call("log_water", arguments: ["value": 300, "unit": "mL"]).isError == false)
        #expect(await inbox.next(within: .seconds(10)) == "healthbridge://types")
        #expect(await inbox.next(within: .milliseconds(300)) == nil, "the water commit changes no weight")
    }

    @Test func queuesCoalesceUnsubscribeEndsUpdatesAndAGoneClientIsDropped() async throws {
        let service = try await Self.writableService()
        let mcp = service.acting(as: .mcp())
        let gate = Gate()
        let inbox = Inbox()
        let subscriptions = ResourceSubscriptions(service: mcp) { uri in
            await gate.wait()
            await inbox.add(uri)
        }
        try await subscriptions.subscribe("healthbridge://latest/bodyMass")
        try await subscriptions.subscribe("healthbridge://today")
        // A slow client: deliveries wait while ten commits happen; each URI stays queued once.
        for index in 0..<10 {
            _ = try await mcp.logWeight(70 + Double(index) / 10, unit: "kg")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while await subscriptions.commitsSeen < 10, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await subscriptions.commitsSeen == 10)
        let queued = await subscriptions.pending
        #expect(queued.count == 2, "coalesced: \(queued)")
        await gate.open()
        var seen: [String] = []
        while let uri = await inbox.next(within: .milliseconds(500)) { seen.append(uri) }
        #expect(Set(seen) == ["healthbridge://latest/bodyMass", "healthbridge://today"])
        #expect((2...3).contains(seen.count), "ten commits: the update in flight (if it had started), then each resource once: \(seen)")

        await subscriptions.unsubscribe("healthbridge://today")
        await subscriptions.unsubscribe("healthbridge://latest/bodyMass")
        _ = try await mcp.logWeight(71, unit: "kg")
        #expect(await inbox.next(within: .milliseconds(300)) == nil)

        // A client that is gone: the delivery fails and the subscriptions end.
        let gone = ResourceSubscriptions(service: mcp) { _ in throw MCPError.connectionClosed }
        try await gone.subscribe("healthbridge://types")
        _ = try await mcp.logWeight(72, unit: "kg")
        let goneBy = ContinuousClock.now + .seconds(10)
        while await !gone.uris.isEmpty, ContinuousClock.now < goneBy {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await gone.uris.isEmpty)
    }

    @Test func aTypeTheClientMayNotReadNeverNotifies() async throws {
        let service = try await Self.writableService()
        try await service.updateGrants(GrantsUpdate(principal: "mcp", deny: ["bodyMass"]))
        let inbox = Inbox()
        let subscriptions = ResourceSubscriptions(service: service.acting(as: .mcp())) {
            await inbox.add($0)
        }
        try await subscriptions.subscribe("healthbridge://types")
        _ = try await service.logWeight(80, unit: "kg")
        #expect(await inbox.next(within: .milliseconds(400)) == nil, "a denied type looks like no data")
    }
}

/// The server's side of a transport, noting when each `notifications/resources/updated` leaves the server.
actor NotingTransport: Transport {
    nonisolated let logger = Logger(label: "noting", factory: { _ in SwiftLogNoOpLogHandler() })
    private let inner: any Transport
    private var incoming: AsyncThrowingStream<Data, any Error>?
    private(set) var updatesSent: [ContinuousClock.Instant] = []

    init(_ inner: any Transport) { self.inner = inner }

    func connect() async throws {
        try await inner.connect()
        incoming = await inner.receive()
    }

    func disconnect() async { await inner.disconnect() }

    func send(_ data: Data) async throws {
        if String(decoding: data, as: UTF8.self).contains("notifications/resources/updated") {
            updatesSent.append(ContinuousClock.now)
        }
        try await inner.send(data)
    }

    func receive() -> AsyncThrowingStream<Data, any Error> {
        incoming ?? AsyncThrowingStream { $0.finish() }
    }
}

/// What a subscriber received, in order; read with a time limit.
actor Inbox {
    private var items: [String] = []

    func add(_ item: String) { items.append(item) }

    /// The next item, or nil when none comes within `limit`.
    func next(within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        while items.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return items.isEmpty ? nil : items.removeFirst()
    }
}

/// A gate deliveries wait at until it opens.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }
}
