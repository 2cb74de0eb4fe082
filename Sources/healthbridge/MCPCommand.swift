import ArgumentParser
import Foundation
import HealthMCP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Run the MCP server on stdio, for an MCP client (Claude Desktop, Claude Code, …) to start.",
        discussion: """
            Speaks MCP (JSON-RPC, one message per line) on stdin/stdout until stdin closes; logs go to stderr \
            (HEALTHBRIDGE_LOG_LEVEL=debug for more). Register it in a client as the command `healthbridge mcp`.
            """)

    @OptionGroup var store: StoreOptions

    func run() async throws {
        // A client that goes away must end the server quietly, not kill it with SIGPIPE mid-write.
        signal(SIGPIPE, SIG_IGN)
        let service = try await store.openService()
        let toolbox = HealthToolbox(service: service, logger: CLILog.logger)
        try await HealthMCPServer.runStdio(toolbox: toolbox, logger: CLILog.logger)
    }
}
