import Foundation
import HealthModel
import HealthService
import Logging
import MCP

/// Builds the HealthBridge MCP server: the ``HealthToolbox`` behind `tools/list` and `tools/call`, the prompts
/// (``HealthPrompts``) and the resources with their subscriptions (``HealthResources``).
///
/// ```swift
/// let server = await HealthMCPServer.make(toolbox: HealthToolbox(service: service))
/// try await server.start(transport: BlockingStdioTransport())
/// await server.waitUntilCompleted()
/// ```
public enum HealthMCPServer {
    public static let name = "healthbridge"
    public static let title = "HealthBridge"
    public static let version = HealthBridgeVersion.current

    /// What a client may show its model about the server.
    public static func instructions(timeZone: TimeZone) -> String {
        """
        HealthBridge answers questions about the user's Apple Health data with HealthKit-accurate numbers. \
        Dates accept ISO dates (2024-05-01), instants, now/today/yesterday, or spans back from now (7d, 2w, 3mo). \
        Days are cut in the user's home time zone (\(timeZone.identifier)) unless time_zone is given. \
        Totals (steps, distance, energy) come from summarize or health_today, merged across overlapping sources \
        (iPhone + Apple Watch) by priority as the Health app does: never add samples or per-source figures together. \
        Sleep per night comes from sleep_nights. list_types tells which types exist and the current time. \
        Results are paged: when has_more is true, call again with cursor=next_cursor.
        """
    }

    /// A server with the health tools, prompts and resources registered; start it with a transport.
    public static func make(toolbox: HealthToolbox) async -> Server {
        let server = Server(
            name: name, version: version, title: title,
            instructions: instructions(timeZone: toolbox.service.homeTimeZone),
            capabilities: Server.Capabilities(
                prompts: Server.Capabilities.Prompts(listChanged: false),
                resources: Server.Capabilities.Resources(subscribe: true, listChanged: false),
                tools: Server.Capabilities.Tools(listChanged: false)))
        let tools = toolbox.tools
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: tools)
        }
        await server.withMethodHandler(CallTool.self) { params in
            await toolbox.call(params.name, arguments: params.arguments)
        }
        await registerPrompts(on: server, prompts: HealthPrompts(service: toolbox.service))
        await registerResources(on: server, toolbox: toolbox)
        return server
    }

    /// Serves MCP on stdin/stdout until stdin closes. Logs go to the logger (stderr), never to stdout. Tool calls are
    /// answered by ``ToolCallTransport`` without the SDK's decoding round trips; messages of MCP 2026-07-28 by
    /// ``ModernStdioTransport``; everything else goes to the SDK.
    public static func runStdio(toolbox: HealthToolbox, logger: Logger) async throws {
        let stdio = ModernStdioTransport(BlockingStdioTransport(logger: logger), toolbox: toolbox, logger: logger)
        let transport = ToolCallTransport(stdio, toolbox: toolbox, logger: logger)
        let server = await make(toolbox: toolbox)
        try await server.start(transport: transport)
        logger.info("MCP server on stdio")
        await server.waitUntilCompleted()
        await server.stop()
    }
}
