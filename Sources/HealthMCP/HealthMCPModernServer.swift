import Foundation
import HealthAPI
import HealthModel
import HealthService
import Logging
import MCP

/// MCP 2026-07-28 (the stateless era) over the same registry as the 2025 server: the ``HealthToolbox`` tools, the
/// ``HealthPrompts`` and the ``HealthResources``. Every request stands alone (no `initialize`, no session): its
/// `_meta` carries the protocol version and the client's capabilities, and it is answered on its own.
///
/// - `server/discover` names the versions (both eras), the capabilities and the instructions.
/// - Every result carries `resultType`; the list results, `server/discover` and `resources/read` carry `ttlMs` and
///   `cacheScope` (`private`: the answers are one person's).
/// - A destructive tool (`delete_entries`) first answers `input_required` with a form elicitation asking the person
///   to confirm; the client retries with the answer and the echoed `requestState` (single use, bound to the tool,
///   its arguments and the principal, valid ``ToolConfirmations/lifetime``), and only then is the tool run.
/// - `subscriptions/listen` opens a ``ModernSubscription``: a stream that starts with its acknowledgement and tags
///   every frame with the subscription id.
///
/// The transports (``HealthMCPHTTP`` for `POST /mcp`, ``ModernStdioTransport`` for stdio) decode a request, hand it
/// here with the toolbox of the principal it acts for, and write the reply.
///
/// ```swift
/// let modern = HealthMCPModernServer()
/// let request = try MCPModernProtocol.Request.parse(body)
/// let reply = await modern.handle(request, headers: lowercasedHeaders, toolbox: toolbox)
/// ```
public struct HealthMCPModernServer: Sendable {
    /// Pending confirmations of destructive tool calls.
    public let confirmations: ToolConfirmations
    public var logger: Logger
    /// How long clients may keep the answers that do not change while the server runs (tools, prompts, templates).
    public static let staticListTTLms = 300_000

    public init(confirmations: ToolConfirmations = ToolConfirmations(),
                logger: Logger = Logger(label: "healthbridge.mcp.modern", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.confirmations = confirmations
        self.logger = logger
    }

    /// The answer to one message.
    public enum Reply: Sendable {
        /// A JSON-RPC response (a result or an error) and its HTTP status.
        case response(status: Int, body: Data)
        /// A notification: nothing to answer (HTTP 202).
        case accepted
        /// A `subscriptions/listen` stream, already acknowledged in its first frame.
        case listen(ModernSubscription)

        /// An error answer with the status of its code.
        static func error(_ id: ID?, _ error: MCPModernProtocol.RPCError) -> Reply {
            .response(status: MCPModernProtocol.httpStatus(forErrorCode: error.code),
                      body: MCPModernProtocol.errorResponse(id: id, error))
        }
    }

    /// Answers one message. `headers` (lowercase names) are given over HTTP, nil on stdio.
    public func handle(_ request: MCPModernProtocol.Request, headers: [String: String]?, toolbox: HealthToolbox) async -> Reply {
        guard let id = request.id else {
            // The stateless era defines no client-to-server notifications over HTTP: acknowledged and dropped.
            return .accepted
        }
        let envelope: MCPModernProtocol.Envelope
        switch MCPModernProtocol.classify(request, headers: headers) {
        case .success(let value): envelope = value
        case .failure(let error): return .error(id, error)
        }
        do {
            switch request.method {
            case "subscriptions/listen":
                return .listen(try await listen(id: id, params: request.params, toolbox: toolbox))
            default:
                let result = try await dispatch(request, envelope: envelope, toolbox: toolbox)
                return .response(status: 200, body: MCPModernProtocol.response(id: id, result: result))
            }
        } catch let error as MCPModernProtocol.RPCError {
            return .error(id, error)
        } catch let error as MCPError {
            return .error(id, MCPModernProtocol.RPCError(error))
        } catch let error as HealthError {
            return .error(id, MCPModernProtocol.RPCError(MCPError(error)))
        } catch {
            logger.error("modern MCP request failed", metadata: ["method": "\(request.method)",
                                                                 "error": "\(String(describing: type(of: error)))"])
            return .error(id, MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.internalError, "Internal error"))
        }
    }

    /// The encoded result of a request other than `subscriptions/listen`.
    func dispatch(_ request: MCPModernProtocol.Request, envelope: MCPModernProtocol.Envelope,
                  toolbox: HealthToolbox) async throws -> Data {
        let params = request.params
        switch request.method {
        case "server/discover":
            return discoverResult(toolbox: toolbox)
        case "tools/list":
            return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(ListTools.Result(tools: toolbox.tools)),
                                           cacheable: true, ttlMs: Self.staticListTTLms)
        case "tools/call":
            return try await callTool(params, envelope: envelope, toolbox: toolbox)
        case "prompts/list":
            return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(ListPrompts.Result(prompts: HealthPrompts.prompts)),
                                           cacheable: true, ttlMs: Self.staticListTTLms)
        case "prompts/get":
            let name = try Self.string(params, "name")
            let arguments = try Self.promptArguments(params["arguments"])
            let result = try await HealthPrompts(service: toolbox.service).get(name, arguments: arguments)
            return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(result), cacheable: false)
        case "resources/list":
            let resources = try await HealthResources(service: toolbox.service).list()
            return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(ListResources.Result(resources: resources)),
                                           cacheable: true)
        case "resources/templates/list":
            return MCPModernProtocol.stamp(
                try MCPModernProtocol.encoder.encode(ListResourceTemplates.Result(templates: HealthResources.templates)),
                cacheable: true, ttlMs: Self.staticListTTLms)
        case "resources/read":
            let result = try await HealthResources(service: toolbox.service).read(try Self.string(params, "uri"))
            return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(result), cacheable: true)
        default:
            throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.methodNotFound, "Method not found: \(request.method.prefix(80))")
        }
    }

    /// `server/discover`: both eras' versions, the capabilities, the instructions and the server's identity.
    func discoverResult(toolbox: HealthToolbox) -> Data {
        let result: JSONValue = .object([
            "supportedVersions": .array(MCPModernProtocol.supportedVersions.map(JSONValue.string)),
            "capabilities": .object([
                "prompts": .object(["listChanged": .bool(false)]),
                "resources": .object(["subscribe": .bool(true), "listChanged": .bool(false)]),
                "tools": .object(["listChanged": .bool(false)]),
            ]),
            "instructions": .string(HealthMCPServer.instructions(timeZone: toolbox.service.homeTimeZone)),
            "_meta": .object([MCPModernProtocol.MetaKey.serverInfo: Self.serverInfo]),
        ])
        return MCPModernProtocol.stamp(result.encoded(), cacheable: true, ttlMs: Self.staticListTTLms)
    }

    static let serverInfo: JSONValue = .object([
        "name": .string(HealthMCPServer.name), "title": .string(HealthMCPServer.title),
        "version": .string(HealthMCPServer.version),
    ])

    // MARK: Tools

    /// `tools/call`: a destructive tool asks for the person's confirmation first (`input_required`).
    func callTool(_ params: [String: JSONValue], envelope: MCPModernProtocol.Envelope, toolbox: HealthToolbox) async throws -> Data {
        let name = try Self.string(params, "name")
        var arguments: [String: JSONValue] = [:]
        switch params["arguments"] {
        case nil, .null?: break
        case .object(let fields)?: arguments = fields
        default: throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "arguments must be an object")
        }
        if HealthToolbox.definitionsByName[name]?.tool.annotations.destructiveHint == true {
            if let refusal = try await confirm(name, arguments: arguments, params: params, envelope: envelope, toolbox: toolbox) {
                return refusal
            }
        }
        let result = await toolbox.call(name, arguments: arguments.mapValues(\.sdkValue))
        return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(result), cacheable: false)
    }

    /// Nil when the call is confirmed (the retry carries an accepted confirmation and a valid state); else the
    /// result to answer: `input_required` asking for the confirmation, or a tool error when the person declined.
    func confirm(_ name: String, arguments: [String: JSONValue], params: [String: JSONValue],
                 envelope: MCPModernProtocol.Envelope, toolbox: HealthToolbox) async throws -> Data? {
        let principal = toolbox.service.principal.description
        let key = ToolConfirmations.Key(tool: name, arguments: String(decoding: JSONValue.object(arguments).encoded(), as: UTF8.self),
                                        principal: principal)
        if let state = params["requestState"]?.stringValue,
           try await confirmations.redeem(state, for: key, service: toolbox.service) {
            let answer = params["inputResponses"]?.objectValue?[ToolConfirmations.inputKey]?.objectValue
            let accepted = answer?["action"] == .string("accept")
                && answer?["content"]?.objectValue?["confirm"] == .bool(true)
            if accepted { return nil }
            let error = HealthToolbox.errorResult(HealthError(.notAuthorized, "the person did not confirm: nothing was deleted"))
            return MCPModernProtocol.stamp(try MCPModernProtocol.encoder.encode(error), cacheable: false)
        }
        guard envelope.clientCapabilities["elicitation"] != nil else {
            throw MCPModernProtocol.RPCError(
                MCPModernProtocol.ErrorCode.missingRequiredClientCapability,
                "\(name) needs the person's confirmation: the client must support elicitation (form mode)",
                data: .object(["requiredCapabilities": .object(["elicitation": .object(["form": .object([:])])])]))
        }
        let token = try await confirmations.issue(for: key, service: toolbox.service)
        let result: JSONValue = .object([
            "inputRequests": .object([ToolConfirmations.inputKey: .object([
                "method": "elicitation/create",
                "params": .object([
                    "mode": "form",
                    "message": .string(Self.confirmationMessage(name, arguments: arguments)),
                    "requestedSchema": .object([
                        "type": "object",
                        "properties": .object(["confirm": .object([
                            "type": "boolean", "title": "Delete",
                            "description": "Check to delete; nothing is deleted otherwise.",
                        ])]),
                        "required": .array(["confirm"]),
                    ]),
                ]),
            ])]),
            "requestState": .string(token),
        ])
        return MCPModernProtocol.stamp(result.encoded(), cacheable: false, resultType: "input_required")
    }

    /// What the person is asked to confirm, in their words.
    static func confirmationMessage(_ name: String, arguments: [String: JSONValue]) -> String {
        guard name == "delete_entries" else { return "Allow \(name)? It changes the health data and cannot be undone." }
        let what: String
        if let logID = arguments["log_id"]?.stringValue {
            what = "the entry \"\(logID.prefix(80))\" (every object written with that log id)"
        } else if case .array(let uuids)? = arguments["uuids"] {
            what = "\(uuids.count) object\(uuids.count == 1 ? "" : "s")"
        } else if let uuid = arguments["uuid"]?.stringValue {
            what = "the object \(uuid.prefix(40))"
        } else if let syncID = arguments["sync_id"]?.stringValue {
            what = "the object with sync id \"\(syncID.prefix(80))\""
        } else {
            what = "the entries asked for"
        }
        return "Delete \(what) from your health data? This cannot be undone."
    }

    // MARK: Subscriptions

    /// `subscriptions/listen`: the honored filter is the resource subscriptions (every URI must name a resource; the
    /// lists never change, so no list-changed type is honored).
    func listen(id: ID, params: [String: JSONValue], toolbox: HealthToolbox) async throws -> ModernSubscription {
        guard case .object(let filter)? = params["notifications"] else {
            throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "params.notifications must be an object")
        }
        var uris: [String] = []
        switch filter["resourceSubscriptions"] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard let uri = value.stringValue else {
                    throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "resourceSubscriptions must be URIs")
                }
                if !uris.contains(uri) { uris.append(uri) }
            }
        default:
            throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "resourceSubscriptions must be an array of URIs")
        }
        guard uris.count <= ResourceSubscriptions.maxSubscriptions else {
            throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams,
                                             "at most \(ResourceSubscriptions.maxSubscriptions) resources may be subscribed to on one stream")
        }
        for uri in uris { _ = try HealthResources.parse(uri) }
        let subscription = ModernSubscription(id: id, service: toolbox.service, logger: logger)
        try await subscription.start(uris)
        return subscription
    }

    // MARK: Parameters

    static func string(_ params: [String: JSONValue], _ key: String) throws -> String {
        guard let value = params[key]?.stringValue else {
            throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "params.\(key) must be a string")
        }
        return value
    }

    static func promptArguments(_ value: JSONValue?) throws -> [String: String]? {
        switch value {
        case nil, .null?: return nil
        case .object(let fields)?:
            var result: [String: String] = [:]
            for (key, value) in fields {
                guard let text = value.stringValue else {
                    throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "prompt argument \(key.prefix(64)) must be a string")
                }
                result[key] = text
            }
            return result
        default:
            throw MCPModernProtocol.RPCError(MCPModernProtocol.ErrorCode.invalidParams, "arguments must be an object of strings")
        }
    }
}

/// The confirmations of destructive tool calls waiting for the client's retry: a random token per question, bound to
/// the tool, its arguments (canonical JSON) and the principal, good once and for ``lifetime``. They are kept in the
/// service's store (``HealthService/issueToolConfirmation(binding:lifetime:)``), so that app servers sharing one
/// database accept a confirmation another one issued; redeeming is atomic there, so a token confirms once in all.
///
/// ```swift
/// let token = try await confirmations.issue(for: key, service: toolbox.service)
/// let confirmed = try await confirmations.redeem(token, for: key, service: otherServer.service)   // true once
/// ```
public struct ToolConfirmations: Sendable {
    /// The input request's key in `inputRequests` / `inputResponses`.
    public static let inputKey = "confirm"
    /// How long a question stays answerable.
    public static let lifetime: TimeInterval = HealthService.toolConfirmationLifetime
    /// The most questions waiting at once; the ones closest to expiry are dropped beyond.
    public static let capacity = HealthService.toolConfirmationCapacity

    public struct Key: Hashable, Sendable {
        public var tool: String
        public var arguments: String
        public var principal: String

        /// What the stored question is bound to (the store keeps only its SHA-256).
        var binding: String { [tool, principal, arguments].joined(separator: "\u{1F}") }
    }

    public init() {}

    /// A new question for `key`: its token, the `requestState` the client echoes.
    public func issue(for key: Key, service: HealthService) async throws -> String {
        try await service.issueToolConfirmation(binding: key.binding, lifetime: Self.lifetime)
    }

    /// True (once, across the servers on the store) when `token` was issued for `key` and has not expired.
    public func redeem(_ token: String, for key: Key, service: HealthService) async throws -> Bool {
        try await service.redeemToolConfirmation(token, binding: key.binding)
    }
}
