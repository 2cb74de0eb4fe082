import Foundation
import HealthAPI
import HealthMCP
import HealthModel
import HealthService
import MCP
import Testing

/// MCP 2026-07-28 behind the same registry: the envelope ladder, `server/discover`, the result fields every answer
/// carries, `input_required` before a delete, and the listen stream.
@Suite("MCP 2026-07-28")
struct ModernProtocolTests {
    static let version = MCPModernProtocol.version
    static var meta: [String: Any] {
        ["io.modelcontextprotocol/protocolVersion": version,
         "io.modelcontextprotocol/clientCapabilities": [String: Any](),
         "io.modelcontextprotocol/clientInfo": ["name": "modern-test", "version": "1"]]
    }

    /// A request body with the envelope (`meta` nil: none).
    static func body(_ method: String, id: Any? = 1, params: [String: Any] = [:],
                     meta: [String: Any]? = ModernProtocolTests.meta) throws -> Data {
        var params = params
        if let meta { params["_meta"] = meta }
        var object: [String: Any] = ["jsonrpc": "2.0", "method": method, "params": params]
        if let id { object["id"] = id }
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// The headers the Python client sends with a body.
    static func headers(_ method: String, name: String? = nil) -> [String: String] {
        var headers = ["mcp-protocol-version": version, "mcp-method": method]
        if let name { headers["mcp-name"] = name }
        return headers
    }

    /// Sends one request to the handler; returns the status and the decoded answer.
    static func send(_ server: HealthMCPModernServer, toolbox: HealthToolbox, _ method: String, params: [String: Any] = [:],
                     meta: [String: Any]? = ModernProtocolTests.meta, headers: [String: String]? = nil) async throws
        -> (status: Int, json: [String: Any]) {
        let request = try MCPModernProtocol.Request.parse(try body(method, params: params, meta: meta))
        switch await server.handle(request, headers: headers, toolbox: toolbox) {
        case .response(let status, let data):
            return (status, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
        case .accepted:
            Issue.record("\(method) was taken for a notification")
            return (202, [:])
        case .listen(let subscription):
            await subscription.close(graceful: false)
            Issue.record("\(method) opened a stream")
            return (200, [:])
        }
    }

    static func result(_ json: [String: Any]) -> [String: Any] { json["result"] as? [String: Any] ?? [:] }
    static func errorCode(_ json: [String: Any]) -> Int? { (json["error"] as? [String: Any])?["code"] as? Int }

    @Test func discoverNamesBothErasAndEveryResultCarriesItsFields() async throws {
        let toolbox = HealthToolbox(service: try await Fixture.service())
        let server = HealthMCPModernServer()
        let discover = Self.result(try await Self.send(server, toolbox: toolbox, "server/discover",
                                                       headers: Self.headers("server/discover")).json)
        #expect(discover["supportedVersions"] as? [String] == ["2025-06-18", "2025-11-25", "2026-07-28"])
        #expect(discover["resultType"] as? String == "complete")
        #expect(discover["cacheScope"] as? String == "private" && discover["ttlMs"] is Int)
        let capabilities = discover["capabilities"] as? [String: Any]
        #expect((capabilities?["resources"] as? [String: Any])?["subscribe"] as? Bool == true)
        #expect(capabilities?["tools"] != nil && capabilities?["prompts"] != nil)
        let serverInfo = (discover["_meta"] as? [String: Any])?["io.modelcontextprotocol/serverInfo"] as? [String: Any]
        #expect(serverInfo?["name"] as? String == "healthbridge")
        #expect((discover["instructions"] as? String)?.contains("summarize") == true)

        for method in ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] {
            let result = Self.result(try await Self.send(server, toolbox: toolbox, method).json)
            #expect(result["resultType"] as? String == "complete", "\(method)")
            #expect(result["cacheScope"] as? String == "private", "\(method)")
            #expect((result["ttlMs"] as? Int).map { $0 >= 0 } == true, "\(method)")
        }
        let tools = Self.result(try await Self.send(server, toolbox: toolbox, "tools/list").json)["tools"] as? [[String: Any]]
        #expect(tools?.map { $0["name"] as? String } == HealthToolbox.toolNames)

        let call = try await Self.send(server, toolbox: toolbox, "tools/call",
                                       params: ["name": "summarize", "arguments": ["type": "stepCount", "start": "7d"]],
                                       headers: Self.headers("tools/call", name: "summarize"))
        let result = Self.result(call.json)
        #expect(call.status == 200 && result["resultType"] as? String == "complete")
        #expect(result["ttlMs"] == nil, "a tool result is not cacheable")
        #expect(((result["structuredContent"] as? [String: Any])?["buckets"] as? [Any])?.count == 7)

        let read = Self.result(try await Self.send(server, toolbox: toolbox, "resources/read",
                                                   params: ["uri": "healthbridge://summary/stepCount"]).json)
        #expect(read["resultType"] as? String == "complete" && read["ttlMs"] as? Int == 0)
        #expect(((read["contents"] as? [[String: Any]])?.first?["text"] as? String)?.contains("\"merged\":true") == true)

        let prompt = Self.result(try await Self.send(server, toolbox: toolbox, "prompts/get",
                                                     params: ["name": "doctor_visit_summary", "arguments": ["days": "30"]]).json)
        #expect(prompt["resultType"] as? String == "complete" && (prompt["messages"] as? [Any])?.count == 1)
    }

    @Test func theLadderRefusesWhatThePythonServerRefuses() async throws {
        let toolbox = HealthToolbox(service: try await Fixture.service())
        let server = HealthMCPModernServer()
        // No envelope: invalid params (400).
        let bare = try await Self.send(server, toolbox: toolbox, "tools/list", meta: nil)
        #expect(bare.status == 400 && Self.errorCode(bare.json) == -32602)
        // Capabilities missing from the envelope.
        let partial = try await Self.send(server, toolbox: toolbox, "tools/list",
                                          meta: ["io.modelcontextprotocol/protocolVersion": Self.version])
        #expect(Self.errorCode(partial.json) == -32602)
        #expect(((partial.json["error"] as? [String: Any])?["message"] as? String)?.contains("clientCapabilities") == true)
        // An unknown version: -32022 naming the supported one.
        var old = Self.meta
        old["io.modelcontextprotocol/protocolVersion"] = "2027-01-01"
        let unsupported = try await Self.send(server, toolbox: toolbox, "tools/list", meta: old)
        #expect(unsupported.status == 400 && Self.errorCode(unsupported.json) == -32022)
        let data = (unsupported.json["error"] as? [String: Any])?["data"] as? [String: Any]
        #expect(data?["supported"] as? [String] == ["2026-07-28"] && data?["requested"] as? String == "2027-01-01")
        // Headers that disagree with the body: -32020.
        let method = try await Self.send(server, toolbox: toolbox, "tools/list", headers: Self.headers("prompts/list"))
        #expect(method.status == 400 && Self.errorCode(method.json) == -32020)
        let name = try await Self.send(server, toolbox: toolbox, "tools/call", params: ["name": "latest", "arguments": ["type": "bodyMass"]],
                                       headers: Self.headers("tools/call", name: "summarize"))
        #expect(Self.errorCode(name.json) == -32020)
        var noVersion = Self.headers("tools/list")
        noVersion["mcp-protocol-version"] = nil
        #expect(Self.errorCode(try await Self.send(server, toolbox: toolbox, "tools/list", headers: noVersion).json) == -32020)
        // A base64 Mcp-Name is decoded before the comparison.
        let encoded = "=?base64?" + Data("latest".utf8).base64EncodedString() + "?="
        let decoded = try await Self.send(server, toolbox: toolbox, "tools/call", params: ["name": "latest", "arguments": ["type": "bodyMass"]],
                                          headers: Self.headers("tools/call", name: encoded))
        #expect(decoded.status == 200 && Self.result(decoded.json)["resultType"] as? String == "complete")
        // The 2025 era's methods are not this era's: 404.
        let ping = try await Self.send(server, toolbox: toolbox, "ping")
        #expect(ping.status == 404 && Self.errorCode(ping.json) == -32601)
        // Bad params are invalid params, never a crash.
        #expect(Self.errorCode(try await Self.send(server, toolbox: toolbox, "tools/call", params: ["name": 3]).json) == -32602)
        #expect(Self.errorCode(try await Self.send(server, toolbox: toolbox, "prompts/get",
                                                   params: ["name": "weekly_trends", "arguments": ["days": 3]]).json) == -32602)
        #expect(Self.errorCode(try await Self.send(server, toolbox: toolbox, "resources/read",
                                                   params: ["uri": "healthbridge://summary/stepz"]).json) == -32602)
        // Not JSON, a batch, a notification.
        #expect(throws: MCPModernProtocol.RPCError.self) { try MCPModernProtocol.Request.parse(Data("{nope".utf8)) }
        #expect(throws: MCPModernProtocol.RPCError.self) { try MCPModernProtocol.Request.parse(Data("[]".utf8)) }
        let notification = try MCPModernProtocol.Request.parse(try Self.body("notifications/cancelled", id: nil))
        guard case .accepted = await server.handle(notification, headers: nil, toolbox: toolbox) else {
            Issue.record("a notification is acknowledged")
            return
        }
    }

    @Test func aDeleteAsksForConfirmationFirstAndRunsOnlyOnAnAcceptedAnswer() async throws {
        let service = try await ResourceSubscriptionTests.writableService()
        let toolbox = HealthToolbox(service: service)
        let server = HealthMCPModernServer()
        _ = try await toolbox.service.logWeight(71.5, unit: "kg", logId: "w-1")
        let arguments: [String: Any] = ["log_id": "w-1"]
        var eliciting = Self.meta
        eliciting["io.modelcontextprotocol/clientCapabilities"] = ["elicitation": ["form": [String: Any]()]]

        // A client that cannot elicit is told what it lacks (-32021), and nothing is deleted.
        let refused = try await Self.send(server, toolbox: toolbox, "tools/call", params: ["name": "delete_entries", "arguments": arguments])
        #expect(refused.status == 400 && Self.errorCode(refused.json) == -32021)

        // The first call answers input_required with a form asking to confirm.
        let asked = Self.result(try await Self.send(server, toolbox: toolbox, "tools/call",
                                                    params: ["name": "delete_entries", "arguments": arguments], meta: eliciting).json)
        #expect(asked["resultType"] as? String == "input_required")
        let state = try #require(asked["requestState"] as? String)
        let question = ((asked["inputRequests"] as? [String: Any])?["confirm"] as? [String: Any])
        #expect(question?["method"] as? String == "elicitation/create")
        let form = question?["params"] as? [String: Any]
        #expect(form?["mode"] as? String == "form" && (form?["message"] as? String)?.contains("w-1") == true)
        #expect(try await service.latest(LatestRequest(type: "bodyMass")).found == true, "nothing deleted yet")

        // Declined: a tool error, nothing deleted; the state is spent.
        let declined = Self.result(try await Self.send(server, toolbox: toolbox, "tools/call", params: [
            "name": "delete_entries", "arguments": arguments, "requestState": state,
            "inputResponses": ["confirm": ["action": "decline"]],
        ], meta: eliciting).json)
        #expect(declined["isError"] as? Bool == true && declined["resultType"] as? String == "complete")
        #expect(try await service.latest(LatestRequest(type: "bodyMass")).found == true)

        // The same state again (or one for other arguments) is a new question, not a deletion.
        let replay = Self.result(try await Self.send(server, toolbox: toolbox, "tools/call", params: [
            "name": "delete_entries", "arguments": arguments, "requestState": state,
            "inputResponses": ["confirm": ["action": "accept", "content": ["confirm": true]]],
        ], meta: eliciting).json)
        #expect(replay["resultType"] as? String == "input_required")
        let fresh = try #require(replay["requestState"] as? String)
        let other = Self.result(try await Self.send(server, toolbox: toolbox, "tools/call", params: [
            "name": "delete_entries", "arguments": ["log_id": "w-2"], "requestState": fresh,
            "inputResponses": ["confirm": ["action": "accept", "content": ["confirm": true]]],
        ], meta: eliciting).json)
        #expect(other["resultType"] as? String == "input_required", "a state is bound to its arguments")

        // Accepted with a state issued for these arguments: deleted.
        let again = Self.result(try await Self.send(server, toolbox: toolbox, "tools/call",
                                                    params: ["name": "delete_entries", "arguments": arguments], meta: eliciting).json)
        let done = Self.result(try await Self.send(server, toolbox: toolbox, "tools/call", params: [
            "name": "delete_entries", "arguments": arguments, "requestState": again["requestState"] as? String ?? "",
            "inputResponses": ["confirm": ["action": "accept", "content": ["confirm": true]]],
        ], meta: eliciting).json)
        #expect(done["resultType"] as? String == "complete" && done["isError"] as? Bool == false, "\(done)")
        #expect((done["structuredContent"] as? [String: Any])?["deleted"] as? Int == 1, "\(done)")
        #expect(try await service.latest(LatestRequest(type: "bodyMass")).found == false)
    }

    @Test func aListenStreamOpensWithItsAcknowledgementAndCarriesAWriteWithinASecond() async throws {
        let service = try await ResourceSubscriptionTests.writableService()
        let toolbox = HealthToolbox(service: service)
        let server = HealthMCPModernServer()
        let request = try MCPModernProtocol.Request.parse(try Self.body("subscriptions/listen", id: "listen-1", params: [
            "notifications": ["resourceSubscriptions": ["healthbridge://latest/bodyMass", "healthbridge://today"],
                              "toolsListChanged": true],
        ]))
        guard case .listen(let subscription) = await server.handle(request, headers: nil, toolbox: toolbox) else {
            Issue.record("subscriptions/listen opens a stream")
            return
        }
        func message(_ frame: ModernSubscription.Frame?) throws -> [String: Any] {
            guard case .message(let data)? = frame else { return [:] }
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let ack = try message(await subscription.next())
        #expect(ack["method"] as? String == "notifications/subscriptions/acknowledged")
        let params = ack["params"] as? [String: Any]
        #expect((params?["notifications"] as? [String: Any])?["resourceSubscriptions"] as? [String]
                == ["healthbridge://latest/bodyMass", "healthbridge://today"])
        #expect((params?["notifications"] as? [String: Any])?["toolsListChanged"] == nil, "the lists never change")
        #expect((params?["_meta"] as? [String: Any])?["io.modelcontextprotocol/subscriptionId"] as? String == "listen-1")

        _ = try await service.logWeight(72.0, unit: "kg")
        let committed = ContinuousClock.now
        var uris: Set<String> = []
        while uris.count < 2 {
            let update = try message(await subscription.next())
            #expect(update["method"] as? String == "notifications/resources/updated")
            let params = update["params"] as? [String: Any]
            #expect((params?["_meta"] as? [String: Any])?["io.modelcontextprotocol/subscriptionId"] as? String == "listen-1")
            uris.insert(params?["uri"] as? String ?? "")
        }
        #expect(uris == ["healthbridge://latest/bodyMass", "healthbridge://today"])
        // The 1 s figure is checked end to end by IntegrationTests/mcp_interop.py (5–12 ms measured); inside the
        // whole suite on two loaded cores a bound of 5 s still catches a push that is late or never comes.
        #expect(ContinuousClock.now - committed < .seconds(5))

        // A graceful end: the listen request's result, tagged, is the last frame.
        await subscription.close(graceful: true)
        let last = try message(await subscription.next())
        #expect(last["id"] as? String == "listen-1")
        let result = last["result"] as? [String: Any]
        #expect(result?["resultType"] as? String == "complete")
        #expect((result?["_meta"] as? [String: Any])?["io.modelcontextprotocol/subscriptionId"] as? String == "listen-1")
        #expect(await subscription.next() == nil)

        // An unknown resource refuses the stream.
        let bad = try MCPModernProtocol.Request.parse(try Self.body("subscriptions/listen", params: [
            "notifications": ["resourceSubscriptions": ["healthbridge://summary/stepz"]],
        ]))
        guard case .response(let status, _) = await server.handle(bad, headers: nil, toolbox: toolbox) else {
            Issue.record("an unknown resource is refused")
            return
        }
        #expect(status == 400)
    }

    @Test func aSlowListenerNeverHoldsTheWriterAndItsUpdatesCoalesce() async throws {
        let service = try await ResourceSubscriptionTests.writableService()
        let subscription = ModernSubscription(id: .number(7), service: service)
        try await subscription.start(["healthbridge://latest/bodyMass"])
        _ = await subscription.next()
        // Nobody reads: twenty writes commit as fast as ever.
        let start = ContinuousClock.now
        for index in 0..<20 { _ = try await service.logWeight(70 + Double(index) / 10, unit: "kg") }
        // A writer held by the listener would wait forever; 30 s leaves room for twenty durable writes on a loaded
        // machine (each waits for its fsync).
        #expect(ContinuousClock.now - start < .seconds(30))
        try await Task.sleep(for: .milliseconds(300))
        // One update waits to be taken, one more at most is marked behind it: never twenty. A keepalive is queued
        // only when nothing else is, so it marks the end of what was waiting.
        var frames = 0
        while frames < 20 {
            await subscription.keepalive()
            guard case .message? = await subscription.next() else { break }
            frames += 1
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(frames >= 1 && frames <= 2, "\(frames) frames")
        await subscription.close(graceful: false)
    }
}
