import ArgumentParser
import Foundation
import HealthModel
import HealthService

extension ClientsCommand {
    /// `healthbridge clients oauth [--revoke CLIENT]`: the MCP clients authorized with OAuth, their grants and live
    /// tokens; revoke one (its tokens stop at once, its grants are withdrawn).
    struct OAuth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "oauth", abstract: "MCP clients authorized with OAuth (the consent page); revoke one.")
        @OptionGroup var store: StoreOptions
        @Option(help: "Revoke this client: its client_id or its principal (mcp:NAME).") var revoke: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let service = try await store.openService()
            if let revoke {
                guard let client = try await service.revokeOAuthClient(revoke) else {
                    throw ValidationError("no OAuth client '\(revoke)'; see `healthbridge clients oauth`")
                }
                print("Revoked \(client.principal.id) (\(client.name)): its tokens are refused from now on, its grants withdrawn.")
                return
            }
            let clients = try await service.oauthClients()
            if json {
                try Output.json(clients.map { summary in
                    ["clientId": AnyEncodable(summary.client.clientID), "name": AnyEncodable(summary.client.name),
                     "principal": AnyEncodable(summary.client.principal.id),
                     "source": AnyEncodable(summary.client.source.rawValue),
                     "read": AnyEncodable(summary.grants?.read.summary ?? "none"),
                     "write": AnyEncodable(summary.grants?.write.summary ?? "none"),
                     "activeTokens": AnyEncodable(summary.activeTokens),
                     "createdAt": AnyEncodable(ISO8601.string(summary.client.createdAt)),
                     "revokedAt": AnyEncodable(summary.client.revokedAt.map { ISO8601.string($0) })]
                })
                return
            }
            if clients.isEmpty {
                print("No OAuth client yet. An MCP client that connects with OAuth asks on the console's consent page.")
                return
            }
            Output.table(["principal", "name", "metadata", "read", "write", "live tokens", "state"], clients.map { summary in
                [summary.client.principal.id, summary.client.name,
                 summary.client.source == .metadataDocument ? summary.client.clientID : "registered",
                 summary.grants?.read.summary ?? "none", summary.grants?.write.summary ?? "none",
                 String(summary.activeTokens), summary.client.revokedAt == nil ? "active" : "revoked"]
            })
        }
    }
}
