import Foundation
import GatewayNode
@testable import HealthService

/// The OpenClaw node's invoke handler, in process: the node adapter without the gateway's transport.
enum NodeInvoker {
    /// The payload (ok) or the `{code, message}` error, as JSON bytes.
    static func invoke(_ command: String, paramsJSON: String, service: HealthService? = nil,
                       writes: Bool = false) async throws -> (ok: Bool, json: Data) {
        let shared = try await World.service
        let service = service ?? shared
        let handler = NodeInvokeHandler(service: service, subscriptions: HealthSubscriptions(
            service: service, logger: World.logger), writesEnabled: writes)
        let result = await handler.invoke(NodeInvokeRequest(id: UUID().uuidString, nodeId: "test", command: command,
                                                            paramsJSON: paramsJSON, timeoutMs: 30_000))
        if result.ok { return (true, Data((result.payloadJSON ?? "{}").utf8)) }
        return (false, try JSONEncoder().encode(result.error))
    }
}

/// What a node declares with and without writes enabled.
enum NodeCommands {
    static let reads = NodeInvokeHandler.commands
    static let all = NodeInvokeHandler.commandsWithWrites
}
