import Foundation
import HealthService
import MCP

extension HealthMCPServer {
    /// Registers `prompts/list` and `prompts/get` (``HealthPrompts``) on a server.
    ///
    /// ```swift
    /// await HealthMCPServer.registerPrompts(on: server, prompts: HealthPrompts(service: toolbox.service))
    /// ```
    public static func registerPrompts(on server: Server, prompts: HealthPrompts) async {
        await server.withMethodHandler(ListPrompts.self) { _ in
            ListPrompts.Result(prompts: HealthPrompts.prompts)
        }
        await server.withMethodHandler(GetPrompt.self) { params in
            try await prompts.get(params.name, arguments: params.arguments)
        }
    }
}
